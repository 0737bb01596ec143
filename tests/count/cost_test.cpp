// The cost estimate (engine/count/src/cost.hpp): the weights of the progress line, the scheduler
// and estimate. It must follow the real cost, for the search's plans and the join's.
#include "engine/count/src/cost.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "engine/count/count.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"

namespace nq {
namespace {

TEST(Cost, EstimateTracksTheTrueNodeCounts) {
  // The estimate is only useful if it follows the real cost: Pearson correlation over every
  // subproblem of a plan (measured 0.86 at n = 14 with the default probe depth).
  CountConfig config;
  config.n = 13;
  const auto plan = make_plan(config);
  ASSERT_TRUE(plan.ok());
  const auto costs = estimate_costs(*plan);
  ASSERT_EQ(costs.size(), plan->subproblems.size());
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  const double m = static_cast<double>(costs.size());
  for (std::size_t i = 0; i < costs.size(); ++i) {
    const double x = static_cast<double>(costs[i]);
    const double y = static_cast<double>(count_one_scalar(plan->subproblems[i]).nodes);
    sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
  }
  const double r = (m * sxy - sx * sy) / std::sqrt((m * sxx - sx * sx) * (m * syy - sy * sy));
  EXPECT_GT(r, 0.6);
  for (std::uint64_t c : costs) EXPECT_GE(c, 1u);
}

// A row-split subproblem of an n-board (n even): `east_rows` hold their queen in the east half.
Subproblem row_split(int n, std::uint32_t east_rows) {
  Subproblem s;
  s.full = (Mask{1} << n) - 1;
  s.rows = n;
  const Mask west = (Mask{1} << (n / 2)) - 1, east = s.full & ~west;
  for (int i = 0; i < n; ++i) s.blocked[i] = (east_rows >> i & 1u) ? west : east;
  return s;
}

TEST(JoinCost, RowSplitPlansAreWeightedByTheJoinsCost) {
  for (int n : {12, 13}) {
    const Plan plan = plan_rowsplit(n);
    const auto costs = estimate_costs(plan);
    ASSERT_EQ(costs.size(), plan.size());
    ASSERT_EQ(plan.block, 1u);  // one rank per task at this size
    for (std::size_t i = 0; i < costs.size(); ++i) {
      const detail::RowSplitKey key = detail::rowsplit_key(n, i);
      // A rank that stands for no orbit costs nothing; the others their join's cost.
      const std::uint64_t expected =
          key.weight ? detail::estimate_join_cost(detail::rowsplit_subproblem(n, key),
                                                  detail::cost_probe_rows(n))
                     : 0;
      EXPECT_EQ(costs[i], expected) << i;
      EXPECT_EQ(costs[i], detail::estimate_plan_cost(plan, i));
      if (key.weight) {
        EXPECT_GT(costs[i], 0u);
      }
    }
  }
  // Other plans keep the search-tree width.
  const Plan canonical = plan_canonical(12, 3);
  EXPECT_EQ(estimate_costs(canonical)[0], detail::estimate_cost(canonical.subproblems[0], 3));
}

TEST(JoinCost, SpreadRowsCostMoreThanPackedRows) {
  // East rows 0..5 (the halves are two 6x6 boards: few placements) against alternate rows
  // (queens 2 rows apart rarely share a diagonal: many placements).
  const int n = 12;
  const Subproblem packed = row_split(n, 0b000000111111), spread = row_split(n, 0b010101010101);
  // The premise, from the kernel itself: its nodes are the half-board placements it enumerates.
  std::array<Tally, 2> t;
  const std::array<Subproblem, 2> both{packed, spread};
  find_kernel("join")->count(both, t);
  ASSERT_LT(t[0].nodes, t[1].nodes);
  EXPECT_LT(detail::estimate_join_cost(packed, 3), detail::estimate_join_cost(spread, 3));
  // A subproblem with a row left without a square costs the minimum.
  Subproblem dead = spread;
  dead.blocked[3] = dead.full;
  EXPECT_EQ(detail::estimate_join_cost(dead, 3), 1u);
}

}  // namespace
}  // namespace nq
