// The reducer: exact sums of weighted completion counts, 128 bits wide (Q(29) > 2^64).
#pragma once

#include <cstdint>

#include "base/types.hpp"

namespace nq {

// What the parallel reduction carries. A plain struct with join(), one per thread.
struct Partial {
  u128 weighted = 0;  // sum of weight * completions: the total number of solutions
  u128 nodes = 0;     // search-tree nodes over the subproblems counted (not weighted)
  std::uint64_t subproblems = 0;

  void join(const Partial& o) {
    weighted += o.weighted;
    nodes += o.nodes;
    subproblems += o.subproblems;
  }
};

// Orbit counts by orbit size: U1 (n = 1 only), U2, U4, U8.
struct OrbitCounts {
  u128 total = 0;
  u128 unique = 0;
  u128 u1 = 0, u2 = 0, u4 = 0, u8 = 0;
};

// Turns the total and the symmetric sums of a plan (see plan.hpp) into orbit counts.
// Fails if a division is not exact, which would mean a bug in the weights.
Expected<OrbitCounts> finish_orbits(u128 total, u128 sym4, u128 sym2);

}  // namespace nq
