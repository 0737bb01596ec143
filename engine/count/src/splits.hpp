// How a board splits, for the front end's plans (plan.hpp): one canonical representative per D4
// class, and the row-split plan's splits.
//
// Every queen on the border has a corner distance: min(p, n-1-p) for its position p along its
// side. For a solution s let m(s) be the least corner distance of its border queens and M(s)
// the set of border queens at that distance. M is D4-equivariant (M(g s) = g M(s)), so the
// solutions split into classes by M, and a class's D4 images are classes too. We keep one
// canonical M per D4 class, with H = Stab(M) and weight w = 8/|H|, and count its completions:
// the solutions s with M(s) = M exactly (every other border queen strictly farther from the
// corners, enforced as per-row masks). Three kinds of class cover every solution once:
//
//   corner  m = 0: a queen in a corner (at most one: two corners share a line or a diagonal).
//           Rotated to (0,0), the orbit keeps two members, swapped by the transpose; we keep
//           the one whose row-1 queen's column c1 is less than column 1's queen's row r1
//           (c1 != r1, since (1,x) and (x,1) share a diagonal). Weight 8, no symmetric solution.
//   single  m >= 1, |M| = 1: one nearest queen, rotated to the top row at column m < n-1-m.
//           Its stabilizer is trivial: weight 8. This is almost all the work, and it is a plain
//           top-down search with masks, so the search tree keeps its shared prefixes.
//   tie     m >= 1, |M| >= 2: the nearest queens are fixed; M is canonical (least image), and
//           H may be nontrivial. With c = completions and c180, c90 = completions fixed by the
//           180 and 90 degree rotations (only when that rotation is in H; no solution with
//           n > 1 is fixed by a reflection), a solution orbit meets the class in one H-orbit:
//             total += w c;  orbits with stabilizer {1}, C2, C4: (c-c180)/|H|, 2(c180-c90)/|H|,
//             4 c90/|H|.  We keep sym4 += w (c180 - c90), sym2 += w c90, and finish with
//             U8 = (total - sym4 - sym2)/8, U4 = sym4/4, U2 = sym2/2.
// The fixed counts come from a half- (or quarter-) depth search that places whole rotation
// orbits at once, so the kernels only ever count c.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "base/d4.hpp"
#include "base/types.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/src/placement.hpp"
#include "kernels/subproblem.hpp"

namespace nq::detail {

enum class ClassKind : std::uint8_t { kCorner, kSingle, kTie };

// One canonical class of the split.
struct ClassPrefix {
  ClassKind kind;
  Placement fixed;          // the queens the class fixes
  Mask forbidden[kMaxN];    // per row: squares the class rules out, besides attacks
  std::uint8_t stabilizer;  // bit g: g maps the class to itself (identity always)
  int weight() const;       // 8 / |stabilizer|
};

// Calls `visit` for every canonical class of an n-board (n >= 4), in a fixed order.
void for_each_class(int n, const std::function<void(const ClassPrefix&)>& visit);

// The kernel's view of a class: every row open, the fixed queens' rows forced.
Subproblem class_subproblem(const ClassPrefix& c);

// Completions of `fixed` (closed under `rotation`) that avoid `forbidden` and that the
// rotation maps to themselves. `rotation` is kRot180 or kRot90. `forbidden` may be null.
// With `cancel`, the search stops soon after it is set (the count is then partial).
std::uint64_t count_fixed_completions(const Placement& fixed, const Mask* forbidden, Sym rotation,
                                      const std::atomic<bool>* cancel = nullptr);

// Knuth's estimate of the search-tree size of `s` (nodes), from `probes` random root-to-leaf
// paths: each path's estimate is the sum over depths of the product of the branching factors
// seen so far. Deterministic for a given seed.
double estimate_nodes(const Subproblem& s, int probes, std::uint64_t seed);

// The class seen through g: its queens and forbidden squares moved by g. Counts are the same
// for every g, but the size of the search tree is not: the front end searches each class in
// the orientation whose tree it estimates to be the smallest.
ClassPrefix oriented(const ClassPrefix& c, Sym g);

// Appends the children of `s` obtained by placing a queen in each of its first `rows` open
// rows (in every free square), which splits one subproblem into many. Keeps 2 rows open.
void split_subproblem(const Subproblem& s, int rows, std::vector<Subproblem>& out);

// How an odd board's row splits are grouped into subproblems. By west rows: one subproblem per
// west row set W, the middle queen free in every row r that W keeps (the join enumerates the
// west half once for all of them). By middle row: one subproblem per (r, E), the middle queen
// forced into row r (smaller halves, more of them). Which costs less depends on n, as
// `estimate` measures it: odd_split(n) picks by west rows up to kOddByWestRowsMaxN.
enum class OddSplit { kByWestRows, kByMiddleRow };
inline constexpr int kOddByWestRowsMaxN = 23;
inline OddSplit odd_split(int n) {
  return n <= kOddByWestRowsMaxN ? OddSplit::kByWestRows : OddSplit::kByMiddleRow;
}

// A split of the row-split plan, unranked by the combinatorial number system (row sets in
// increasing order as bit sets). The flip maps a split's east rows E to F(E), the mirror maps E
// to the west rows; a split stands for its orbit under both, or has weight 0 (counted as
// nothing) where another split does.
// Even n: exactly one of E and its mirror leaves out the last row (n-1): splits enumerate those
// E (h = n/2 of the other rows). The split stands for its orbit when E is the least of E, F(E)
// and the complement of F(E) (weight 2 when F(E) is E or its mirror, else 4): about half the
// splits.
// Odd n by west rows: a split is a triple (r, E, W), the middle queen's row and the east and
// west rows; the flip maps it to (n-1-r, F(E), F(W)) and the mirror to (r, W, E), and the triple
// kept is the least of its orbit under the key (west rows, r). Splits go two per W (h of the n
// rows): the first holds the kept r of orbits of 4, the second those of orbits of 2 (r the
// centre row).
// Odd n by middle row: r = 0..h major (r > h is the flip's image of n-1-r), then the E among the
// rows besides r and n-1 (as for even n); for r < h every split stands for an orbit of 4, for
// r = h the even-n rule applies.
struct RowSplitKey {
  std::uint32_t east = 0;         // bit i: row i holds its queen in the east half (odd n: or on
                                  // the middle column)
  std::uint32_t middle_rows = 0;  // odd n: the rows of `east` whose queen may take the middle
                                  // column (exactly one of them does)
  int weight = 0;                 // 2 or 4, or 0 where the split stands for no orbit
};
std::uint64_t row_splits(int n, OddSplit shape);
inline std::uint64_t row_splits(int n) {
  return row_splits(n, odd_split(n));
}
// Unranks in O(n) (O(n^2) by west rows). split < row_splits(n, shape).
RowSplitKey rowsplit_key(int n, std::uint64_t split, OddSplit shape);
inline RowSplitKey rowsplit_key(int n, std::uint64_t split) {
  return rowsplit_key(n, split, odd_split(n));
}
// The subproblem of a key: every row forced into its half; odd n: the middle column open in the
// key's middle rows only (a single middle row takes the middle square).
Subproblem rowsplit_subproblem(int n, const RowSplitKey& key);

// A part of subproblem s: the queens of its first `rows` open rows fixed, each on one of its
// row's open squares that no queen fixed above it attacks, drawn at random (the same seed, the
// same squares). Where a row has no such square left it gets none (the part has no solution).
// Counting the part costs the backtracking search about its first rows' branching less, so
// that both it and the join can count a part of a subproblem too large for the search (the
// estimate's check at n = 28).
Subproblem fix_first_rows(const Subproblem& s, int rows, std::uint64_t seed);

// Piece `part` of `parts` of subproblem s (Plan::pieces): its first open row keeps the open
// squares whose place among them, counted from column 0, is `part` modulo `parts`. The pieces
// of s share out its solutions by where their first-row queen stands, so their counts add up to
// s's; each is a subproblem like any other, so every kernel (the cross-check's too) counts the
// same piece. s itself where parts <= 1.
Subproblem rowsplit_piece(const Subproblem& s, std::uint64_t part, std::uint64_t parts);
// The subproblem a worker counts for split `key` of task `task` of a row-split plan: the split's,
// or the task's piece of it where the plan cuts splits into pieces (Plan::pieces).
Subproblem rowsplit_task_subproblem(const Plan& plan, std::size_t task, const RowSplitKey& key);

// Every representative of the row-split plan, in split order, with its weight: for tests and
// benchmarks, which want the subproblems themselves.
void rowsplit_all(int n, std::vector<Subproblem>& subproblems, std::vector<std::uint8_t>& weights,
                  OddSplit shape);
inline void rowsplit_all(int n, std::vector<Subproblem>& subproblems,
                         std::vector<std::uint8_t>& weights) {
  rowsplit_all(n, subproblems, weights, odd_split(n));
}
// Burnside's terms for a whole n-board: sym4 = solutions fixed by the 180 degree rotation but
// not the 90 degree one, sym2 = those fixed by the 90 degree rotation.
// With `cancel` (or `stop`: the caller's flag and the run's own), the search stops soon after
// either is set, and says it is not `complete`.
struct SymmetricCounts {
  u128 sym4 = 0, sym2 = 0;
  bool complete = true;
};
SymmetricCounts whole_board_symmetric(int n, const std::atomic<bool>* cancel = nullptr,
                                      const std::atomic<bool>* stop = nullptr);

}  // namespace nq::detail
