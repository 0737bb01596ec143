// The reducer (engine/count/reducer.hpp): partial sums joined exactly in 128 bits, and orbit
// counts from the total and the symmetric sums, refused when a division is not exact.
#include "engine/count/reducer.hpp"

#include <gtest/gtest.h>

namespace nq {
namespace {

TEST(Reducer, PartialsJoinExactlyPastTwoToTheSixtyFour) {
  const std::uint64_t big = ~std::uint64_t{0};
  Partial a{.weighted = u128{big} * 8, .nodes = big, .subproblems = 3};
  const Partial b{.weighted = u128{big} * 8, .nodes = 5, .subproblems = 4};
  a.join(b);
  EXPECT_TRUE(a.weighted == u128{big} * 16);
  EXPECT_TRUE(a.nodes == u128{big} + 5);
  EXPECT_EQ(a.subproblems, 7u);
  EXPECT_EQ(to_string(a.weighted), "295147905179352825840");  // 16 (2^64 - 1)
}

TEST(Reducer, OrbitsFromTheTotalAndTheSymmetricSums) {
  // n = 8: 92 solutions, 4 fixed by the half turn (one orbit of 4), none by the quarter turn.
  const auto eight = finish_orbits(92, 4, 0);
  ASSERT_TRUE(eight.ok());
  EXPECT_TRUE(eight->u8 == 11 && eight->u4 == 1 && eight->u2 == 0);
  EXPECT_TRUE(eight->unique == 12 && eight->total == 92);
  // Orbits of 2 (quarter-turn symmetric) count in their own column, and in unique.
  const auto four = finish_orbits(2, 0, 2);
  ASSERT_TRUE(four.ok());
  EXPECT_TRUE(four->u2 == 1 && four->u8 == 0 && four->unique == 1);
}

TEST(Reducer, InexactDivisionsAreAnErrorNotACount) {
  EXPECT_FALSE(finish_orbits(93, 4, 0).ok());  // 89 asymmetric: not a multiple of 8
  EXPECT_FALSE(finish_orbits(92, 2, 0).ok());  // half-turn orbits come in fours
  EXPECT_FALSE(finish_orbits(92, 0, 1).ok());  // quarter-turn orbits in twos
  EXPECT_FALSE(finish_orbits(4, 8, 0).ok());   // more symmetric than there are
}

}  // namespace
}  // namespace nq
