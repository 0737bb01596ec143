// The orbits of the n-board's solutions, two ways: by enumeration with the bitboard kernel,
// and by the paper's algebraic growth (Zhang & Zhang 2011), plus the check of the
// paper's claim that the orbit signature separates orbits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/types.hpp"
#include "engine/algebra/algebra.hpp"

namespace nq {

inline constexpr int kMaxOrbitsN = 16;     // enumerate: 1.8 million orbits at n = 16
inline constexpr int kMaxAlgebraicN = 12;  // algebraic: about n^6 / 4 double moves per orbit

struct Orbit {
  Perm canonical;  // the lexicographically least member
  int size = 0;    // 8, 4, 2 (1 for n = 1)
};

// Every orbit, from the solutions the bitboard enumeration (kernels/enumerate.hpp) yields in
// lexicographic order: a solution is kept when it is the least of its images. The list comes
// out sorted by canonical form, the same at any thread count. `threads`: 0 is every hardware
// thread. Errors: n out of range, a bad thread count, memory or a thread the system refused.
Expected<std::vector<Orbit>> enumerate_orbits(int n, int threads = 0);

// One level of the algebraic growth: the orbits of n from those of n - 1.
struct AlgebraicLevel {
  int n = 0;
  std::size_t seeds = 0;     // orbits of n - 1 it grew from
  std::size_t from_inc = 0;  // orbits the Inc step found
  std::size_t from_mov = 0;  // orbits after the paper's Mov closure (Inc and Mov only)
  std::size_t orbits = 0;    // orbits at the end, after the double moves too
  std::uint64_t inc_steps = 0;
  std::uint64_t mov_steps = 0;
  std::uint64_t double_mov_steps = 0;
  int mov_rounds = 0;           // Mov generations, over the whole level
  int double_mov_rounds = 0;    // double-move passes (the last one finds nothing new)
  bool by_enumeration = false;  // n <= 4: the base (Q(2) = Q(3) = 0 leaves nothing to grow)
};

struct AlgebraicOrbits {
  std::vector<Orbit> orbits;           // sorted by canonical form
  std::vector<AlgebraicLevel> levels;  // from the base up to n
  std::vector<Orbit> base;             // the orbits of the base level (n = min(n, 4)), enumerated
};

// The paper's orbit search: the orbits of n - 1 (found the same way, down to the base n = 4)
// grow with Inc at every position, and every solution it makes seeds an orbit; then every
// orbit is transmuted with Mov (every queen to every gap) until a round finds no new orbit.
//
// That closure is not complete: some solutions have no solution one Mov away at all (n = 10
// has orbits with no Mov neighbour and no queen whose Del leaves a solution), so Inc and Mov
// alone cannot reach them. `from_mov` records what the paper's steps found. The search then
// goes on with double moves (two queens moved at once: Mov∘Mov through a non-solution), which
// reaches every orbit for n <= 12, alternating with Mov closures until neither finds anything.
//
// Orbits are told apart by canonical form, which is exact; the signatures are checked
// separately (check_signatures), so a collision is reported, not silently merged.
//
// With `growth`, every orbit the search finds from n = 5 up gets one edge: the step that found
// it first and the orbit it came from (the growth graph of the paper's figure).
enum class GrowthStep : std::uint8_t { kInc, kMov, kDoubleMov };
struct GrowthEdge {
  GrowthStep step = GrowthStep::kInc;
  Perm from, to;  // canonical forms: from has n - 1 queens for Inc, n for the moves
  // Inc only: the gaps, 0-based (gap k lies between rows, or columns, k - 1 and k; the paper's
  // position is k + 0.5), applied to `from` itself (its canonical form).
  int row_gap = -1, col_gap = -1;
};
// The result and the edges are the same at any thread count. Errors as enumerate_orbits'.
Expected<AlgebraicOrbits> algebraic_orbits(int n, std::vector<GrowthEdge>* growth = nullptr,
                                           int threads = 0);

// The paper's claim checked on a list of orbits: every member of an orbit has the orbit's
// signature (a theorem: a failure would be a bug), and different orbits have different
// signatures (the claim: a failure is a counterexample, reported with both orbits).
struct SignatureCollision {
  std::size_t first, second;  // indices into the orbit list
};
struct SignatureCheck {
  std::size_t distinct = 0;                    // distinct signatures
  std::vector<SignatureCollision> collisions;  // pairs of orbits with equal signatures
  std::vector<std::size_t> not_invariant;      // orbits whose members disagree
};
SignatureCheck check_signatures(const std::vector<Orbit>& orbits);

}  // namespace nq
