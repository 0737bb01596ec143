// The front end: splits the count into subproblems, one canonical representative per D4 class.
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

#include <cstdint>
#include <functional>
#include <vector>

#include "d4.hpp"
#include "placement.hpp"
#include "subproblem.hpp"
#include "types.hpp"

namespace nq {

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
std::uint64_t count_fixed_completions(const Placement& fixed, const Mask* forbidden, Sym rotation);

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

// The work of one count: subproblems, each standing for `weights[i]` boards.
struct Plan {
  int n = 0;
  int split_rows = 0;
  std::uint64_t classes = 0;
  std::vector<Subproblem> subproblems;
  std::vector<std::uint8_t> weights;
  u128 sym4 = 0, sym2 = 0;  // see above; the classic route fills them by Burnside instead
  bool classic = false;     // subproblems are for count_classic
  bool rowsplit = false;    // plan_rowsplit: one subproblem per east row set (the join's plan)
};

// The canonical-class plan, n >= 4.
Plan plan_canonical(int n, int split_rows);
// The classic route: left-right mirror halving on the first row (and the second for odd n
// with the first queen in the middle), weight 2; unique by Burnside with whole-board fixed
// counts (SPEC 3.3b).
Plan plan_classic(int n, int split_rows);

// The join kernel's plan (kernels/join.hpp): the columns are cut into a west and an east half
// (odd n: the middle column apart), and a subproblem fixes which rows hold their queen in the
// east half (the rest hold theirs in the west), as per-row blocked squares, so any kernel can
// count it. Odd n: the middle queen's row r is not fixed; a subproblem fixes the west rows and
// leaves the middle column open in some of the other rows (engine/frontend.cpp), the middle
// column going with the east half. The rows' flip and the columns' mirror (which swaps the
// halves, so it maps a row set E to its complement) make a group of 4 acting on the row splits
// without changing their counts: one split per orbit, weighted by the orbit's size (odd n: a
// subproblem holds the splits of one weight that share their west rows). Unique by Burnside with
// whole-board fixed counts, as plan_classic. n >= 4. With `fixed_counts` false, sym4 and sym2 are
// left for the caller to add later from whole_board_symmetric(n) (the runner computes them while
// the count runs).
Plan plan_rowsplit(int n, bool fixed_counts = true);

// How many subproblems plan_rowsplit(n) makes, without making them (even n: Burnside over the
// four symmetries, the orbits of the row sets; odd n: a table).
std::uint64_t rowsplit_subproblems(int n);
// The largest row-split plan the engine makes: 4M subproblems, about 1 GB with the runner's
// per-node copies (n <= 24, 26 and the odd n <= 25).
inline constexpr std::uint64_t kMaxJoinPlan = std::uint64_t{1} << 22;

// Burnside's terms for a whole n-board: sym4 = solutions fixed by the 180 degree rotation but
// not the 90 degree one, sym2 = those fixed by the 90 degree rotation.
struct SymmetricCounts {
  u128 sym4 = 0, sym2 = 0;
};
SymmetricCounts whole_board_symmetric(int n);

// The default split for n: enough, small enough subproblems for many threads.
int default_split_rows(int n);

}  // namespace nq
