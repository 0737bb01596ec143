// The join's pair counter (kernels/src/join/pair_counter.hpp and count_disjoint.hpp) against a
// count by bit columns, itself checked against a double loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>

#include "tests/support/testing.hpp"

namespace nq {
namespace {

// The pairs of a and b that share no bit, counted by columns (the join's counter's plainest
// oracle after a double loop, and several times fewer steps): for each bit, the members of b that
// hold it, as a bitset; a member x of a is disjoint from the members outside the union of its
// bits' sets. Raw pointers and indices: the sanitizer builds compile this file at -O0, where
// each iterator step of a range loop is a call.
std::uint64_t disjoint_pairs_by_columns(const std::vector<std::uint64_t>& a,
                                        const std::vector<std::uint64_t>& b) {
  const std::size_t words = (b.size() + 63) / 64;
  std::vector<std::uint64_t> columns(64 * words, 0), met(words);
  std::uint64_t* column = columns.data();
  for (std::size_t j = 0; j < b.size(); ++j)
    for (std::uint64_t y = b[j]; y != 0; y &= y - 1)
      column[std::countr_zero(y) * words + j / 64] |= std::uint64_t{1} << (j % 64);
  std::uint64_t pairs = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::uint64_t* m = met.data();
    std::fill(m, m + words, 0);
    for (std::uint64_t x = a[i]; x != 0; x &= x - 1) {
      const std::uint64_t* c = column + std::countr_zero(x) * words;
      for (std::size_t w = 0; w < words; ++w) m[w] |= c[w];
    }
    std::uint64_t held = 0;
    for (std::size_t w = 0; w < words; ++w) held += std::popcount(m[w]);
    pairs += b.size() - held;
  }
  return pairs;
}

TEST(JoinPairs, ColumnsCountAsTheDoubleLoop) {
  std::mt19937_64 rng(3);
  for (const std::size_t nb : {0, 1, 63, 64, 65, 200}) {
    std::vector<std::uint64_t> a(50), b(nb);
    for (auto& x : a) x = rng() & rng() & rng();
    for (auto& y : b) y = rng() & rng() & rng();
    if (nb > 0) b[0] = 0;  // a member with no bit meets every member of the other side
    a[1] = ~std::uint64_t{0};
    std::uint64_t want = 0;
    for (const std::uint64_t x : a)
      for (const std::uint64_t y : b) want += (x & y) == 0;
    EXPECT_EQ(disjoint_pairs_by_columns(a, b), want) << nb;
  }
}

// The join's pair counter (bit slices, chunk tables, the sieve from 512 sliced members and 1e7
// pairs, its blocks of 512 across groups with a last one of 256, and the diagonals only one side
// occupies dropped) against a plain double loop, on random patterns of several densities and
// sizes around every threshold (32 for slices, 256/512 for the block width, the sieve's), with
// both sides on all bits or on overlapping windows of them.
TEST(JoinPairs, MatchDoubleLoopAtEverySizeAndDensity) {
  std::mt19937_64 rng(11);
  std::size_t checked = 0;
  for (const bool skew : {false, true})
    for (const int bits : {10, 34, 38, 62})
      for (const auto& [na, nb] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 5},
                                                                                   {1, 1},
                                                                                   {31, 700},
                                                                                   {32, 33},
                                                                                   {257, 1000},
                                                                                   {600, 513},
                                                                                   {3000, 2000},
                                                                                   {511, 40000},
                                                                                   {512, 19532},
                                                                                   {700, 20000},
                                                                                   {1023, 40000},
                                                                                   {1024, 29297},
                                                                                   {2600, 12000},
                                                                                   {9000, 12000},
                                                                                   {20000, 8192}}) {
        const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
        // Skewed: a on all but the top 4 bits, b on all but the bottom 3 (as the join's east and
        // west halves leave some crossing diagonals empty).
        const std::uint64_t mask_a = skew ? mask >> 4 : mask, mask_b = skew ? mask & ~7ull : mask;
        // About a quarter of the bits set (the join's patterns have about a third).
        auto pattern = [&] { return rng() & rng() & mask; };
        std::vector<std::uint64_t> a(na), b(nb);
        for (auto& x : a) x = pattern() & mask_a;
        for (auto& y : b) y = pattern() & mask_b;
        const std::uint64_t want = disjoint_pairs_by_columns(a, b);
        EXPECT_EQ(test_support::join_scalar().count_disjoint_pairs(a, b, bits, false), want)
            << bits << " " << na << "x" << nb << " " << skew;
        // Both ways a visit of half a block can go: half-entries (as on Zen 4) or whole ones.
        for (const test_support::JoinBuild* build : test_support::join_vector_builds())
          for (const bool narrow : {false, true})
            EXPECT_EQ(build->count_disjoint_pairs(a, b, bits, narrow), want)
                << build->ops.isa << " " << bits << " " << na << "x" << nb << " " << skew << " "
                << narrow;
        checked += na * nb;
      }
  EXPECT_GT(checked, 100'000'000u);
}

}  // namespace
}  // namespace nq
