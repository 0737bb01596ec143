// The pair counter's sieve (kernels/src/join/sieve.hpp): the cuts it chooses on sampled pairs, and
// its deepest cuts, on sides as large as a chunk pair, against subset sums.
#include <gtest/gtest.h>

#include <random>

#include "tests/support/testing.hpp"

namespace nq {
namespace {

// The sieve's cuts on large sides are chosen on the pairs that the cuts before leave: here
// diagonals 0 and 1 are always occupied together (each by 60% of both sides), diagonal 2 by
// half of each, independently, the others by a quarter. By each diagonal's own occupancy the
// two cuts would be 0 and 1, but once 0 is cut, cutting 1 rules out no pair more; so the second
// cut is 2. DeepSievesMatchSubsetSums below counts through this choice.
TEST(JoinPairs, CutsAreChosenOnThePairsLeft) {
  std::mt19937_64 rng(5);
  auto member = [&] {
    std::uint64_t x = rng() & rng() & 0x3f8;  // diagonals 3..9, a quarter each
    if (rng() % 10 < 6) x |= 3;               // 0 and 1 together
    if (rng() % 2 == 0) x |= 4;
    return x;
  };
  std::vector<std::uint64_t> a(3000), b(5000);
  for (auto& x : a) x = member();
  for (auto& y : b) y = member();
  EXPECT_EQ(test_support::join_scalar().sieve_cuts(a, b, 0x3ff, 2), 0b101u);
  EXPECT_EQ(test_support::join_scalar().sieve_cuts(a, b, 0x3fe, 2),
            0b110u);  // 0 not shared: 1, then 2
  for (const test_support::JoinBuild* build : test_support::join_vector_builds()) {
    EXPECT_EQ(build->sieve_cuts(a, b, 0x3ff, 2), 0b101u) << build->ops.isa;
    EXPECT_EQ(build->sieve_cuts(a, b, 0x3fe, 2), 0b110u) << build->ops.isa;
  }
}

// Slow: sides large enough for the sieve's deepest cuts (10 and 12 diagonals: more than a byte of
// key, up to 2^12 groups), as the halves of n = 22 and beyond reach; the sieve cuts that deep
// only where the sides share 38 diagonals or more, or 36 in a call of 1e10 pairs or more. The
// members have 22 random bits, so the expected count comes from subset sums instead of a double
// loop (with F[m] the members of b inside m, the pairs are the sum over a of F[~a]); then one
// member of each side also takes the bits above them up to `shared` (so the sides share that
// many), which takes exactly the pair of those two out. The third case has the fewest sliced
// members that take 12 cuts (64 a group). The fourth sizes are lopsided, as the halves of odd n
// are: 16 times more visiting members than sliced ones, where the sieve settles the most low
// key bits (three more than balanced sides). The last case is a chunk pair of n = 25..28
// (kJoinChunk, kernels.hpp): 1.8e13 pairs and 2^22 sliced members, where the sieve cuts 17
// diagonals (2^17 groups of 32 members on average, kJoinMaxCuts); its members have each bit at
// five eighths, so that the pairs left after the cuts stay few enough for a second or two.
TEST(SlowJoinPairs, DeepSievesMatchSubsetSums) {
  constexpr int kBits = 22;
  constexpr std::uint64_t kFull = (std::uint64_t{1} << kBits) - 1;
  std::mt19937_64 rng(23);
  struct Case {
    std::size_t na, nb;
    int shared;
    bool dense;
  };
  for (const auto& [na, nb, shared, dense] : std::vector<Case>{{150000, 300000, 40, false},
                                                               {150000, 300000, 36, false},
                                                               {270000, 280000, 40, false},
                                                               {20000, 320000, 40, false},
                                                               {4200000, 4300000, 44, true}}) {
    const std::uint64_t wide = ((std::uint64_t{1} << shared) - 1) & ~kFull;
    std::vector<std::uint64_t> a(na), b(nb);
    for (auto& x : a) x = (dense ? rng() | (rng() & rng()) : rng() & rng()) & kFull;
    for (auto& y : b) y = (dense ? rng() | (rng() & rng()) : rng() & rng()) & kFull;
    std::vector<std::uint64_t> inside(kFull + 1, 0);
    for (const std::uint64_t y : b) ++inside[y];
    for (int bit = 0; bit < kBits; ++bit)
      for (std::uint64_t m = 0; m <= kFull; ++m)
        if (m >> bit & 1) inside[m] += inside[m ^ (std::uint64_t{1} << bit)];
    std::uint64_t want = 0;
    for (const std::uint64_t x : a) want += inside[kFull & ~x];
    a[rng() % na] |= wide;
    b[rng() % nb] |= wide;
    std::uint64_t wide_a = 0, wide_b = 0;
    for (const std::uint64_t x : a)
      if (x & wide) wide_a = x;
    for (const std::uint64_t y : b)
      if (y & wide) wide_b = y;
    if (((wide_a & wide_b) & kFull) == 0) --want;
    EXPECT_GT(want, 0u);
    EXPECT_EQ(test_support::join_scalar().count_disjoint_pairs(a, b, shared, false), want)
        << na << "x" << nb << " " << shared;

    for (const test_support::JoinBuild* build : test_support::join_vector_builds())
      for (const bool narrow : {false, true})
        EXPECT_EQ(build->count_disjoint_pairs(a, b, shared, narrow), want)
            << build->ops.isa << " " << na << "x" << nb << " " << shared << " " << narrow;
  }
}

}  // namespace
}  // namespace nq
