// The work's layout (engine/count/src/layout.hpp): the dealing to nodes and threads, the claims,
// and the steals, which the runner and the simulator share.
#include "engine/count/src/layout.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <queue>
#include <random>

#include "engine/count/dealer.hpp"
#include "engine/count/simulate.hpp"
#include "engine/count/src/layout.hpp"
#include "engine/count/topology.hpp"
#include "tests/cli_runner.hpp"

namespace nq {
namespace {

using namespace detail;  // the layout is the library's own

TEST(Layout, LargestFirstIsStable) {
  EXPECT_EQ(largest_first({1, 5, 3, 5, 0}), (std::vector<std::uint32_t>{1, 3, 2, 0, 4}));
}

TEST(Layout, DealsInProportionToThreads) {
  const std::vector<double> costs(400, 1.0);
  std::vector<std::uint32_t> order(400);
  std::iota(order.begin(), order.end(), 0u);
  const auto q = deal_to_arenas(order, costs, {1, 3});
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].size(), 100u);
  EXPECT_EQ(q[1].size(), 300u);
  // Every index dealt exactly once, each queue in dealing order.
  std::vector<int> seen(400, 0);
  for (const auto& queue : q) {
    EXPECT_TRUE(std::is_sorted(queue.begin(), queue.end()));
    for (std::uint32_t i : queue) ++seen[i];
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
}

TEST(Layout, DealBalancesUnequalCosts) {
  std::vector<double> costs;
  for (int i = 0; i < 1000; ++i) costs.push_back(1.0 + i % 97);
  const auto q = deal_to_arenas(largest_first(costs), costs, {4, 4, 4, 4});
  std::vector<double> load;
  for (const auto& queue : q) {
    double l = 0;
    for (std::uint32_t i : queue) l += costs[i];
    load.push_back(l);
  }
  const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
  EXPECT_LE(*hi - *lo, 97.0);  // LPT: within one task of each other
}

TEST(Layout, ClaimSizeStaysSmall) {
  EXPECT_EQ(claim_size(0, 4), 1u);
  EXPECT_EQ(claim_size(100, 4), 1u);
  EXPECT_EQ(claim_size(1000000, 1), 16u);
  EXPECT_EQ(claim_size(1280, 4), 10u);
}

std::vector<std::uint32_t> iota_ids(std::size_t count) {
  std::vector<std::uint32_t> ids(count);
  std::iota(ids.begin(), ids.end(), 0u);
  return ids;
}

double cost_of(const std::vector<std::uint32_t>& ids, std::size_t from, std::size_t to,
               const std::vector<double>& costs) {
  double c = 0;
  for (std::size_t k = from; k < to; ++k) c += costs[ids[k]];
  return c;
}

TEST(Layout, ThreadRangesAreLptSharesLargestFirst) {
  std::vector<double> costs;
  for (int i = 0; i < 200; ++i) costs.push_back(1.0 + (i * 37) % 101);
  const auto order = largest_first(costs);
  const ThreadRanges r = split_among_threads(order, costs, 4, false);
  ASSERT_EQ(r.bounds.size(), 5u);
  EXPECT_EQ(r.bounds.front(), 0u);
  EXPECT_EQ(r.bounds.back(), order.size());
  // A permutation of the list, each range what deal_to_arenas gives that thread, in order.
  EXPECT_TRUE(std::is_permutation(r.ids.begin(), r.ids.end(), order.begin()));
  const auto shares = deal_to_arenas(order, costs, {1, 1, 1, 1});
  std::vector<double> load;
  for (std::size_t t = 0; t < 4; ++t) {
    const std::vector<std::uint32_t> range(r.ids.begin() + static_cast<long>(r.bounds[t]),
                                           r.ids.begin() + static_cast<long>(r.bounds[t + 1]));
    EXPECT_EQ(range, shares[t]) << t;
    EXPECT_TRUE(std::is_sorted(range.begin(), range.end(), [&](std::uint32_t a, std::uint32_t b) {
      return costs[a] > costs[b];
    })) << t;
    load.push_back(cost_of(r.ids, r.bounds[t], r.bounds[t + 1], costs));
  }
  const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
  EXPECT_LE(*hi - *lo, 101.0);  // LPT: within one task of each other
}

TEST(Layout, ThreadRangesInPlanOrderAreContiguousBlocksOfEqualCost) {
  std::vector<double> costs;
  for (int i = 0; i < 1000; ++i) costs.push_back(1.0 + i % 7);
  const auto ids = iota_ids(costs.size());
  const ThreadRanges r = split_among_threads(ids, costs, 3, true);
  EXPECT_EQ(r.ids, ids);  // the order is kept
  ASSERT_EQ(r.bounds.size(), 4u);
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_LE(r.bounds[t], r.bounds[t + 1]);
    EXPECT_NEAR(cost_of(ids, r.bounds[t], r.bounds[t + 1], costs), total / 3, 7.0) << t;
  }
  // More threads than subproblems: some ranges are empty, none overlap.
  const ThreadRanges few = split_among_threads(iota_ids(2), {5, 5}, 4, true);
  EXPECT_EQ(few.bounds.front(), 0u);
  EXPECT_EQ(few.bounds.back(), 2u);
  EXPECT_TRUE(std::is_sorted(few.bounds.begin(), few.bounds.end()));
}

TEST(Layout, StealSplitsTheWorkInHalves) {
  const std::vector<double> costs(100, 1.0);
  const auto after = suffix_costs(iota_ids(100), costs);
  EXPECT_EQ(steal_split(after, 0, 100), 50u);   // half of equal tasks
  EXPECT_EQ(steal_split(after, 90, 100), 95u);  // only what is left counts
  EXPECT_EQ(steal_split(after, 98, 100), 99u);  // two: one each
  EXPECT_EQ(steal_split(after, 41, 42), 41u);   // one: the thief takes it
  // Largest first: the back holds many small tasks, the owner keeps its big ones.
  const std::vector<double> falling = {50, 20, 10, 5, 5, 4, 3, 2, 1};  // 100 in all
  const auto fall_after = suffix_costs(iota_ids(falling.size()), falling);
  EXPECT_EQ(steal_split(fall_after, 0, falling.size()), 1u);  // 50 and 50: a tie, the back
  EXPECT_EQ(steal_split(fall_after, 1, falling.size()), 3u);  // of 50: 20 or 30, a tie too
  // A huge task at the front: the thief takes the rest, never the owner's front position.
  const std::vector<double> huge = {1000, 1, 1};
  const auto huge_after = suffix_costs(iota_ids(3), huge);
  EXPECT_EQ(steal_split(huge_after, 0, 3), 1u);
  // ...and a huge task at the back goes alone.
  const std::vector<double> back = {1, 1, 1000};
  EXPECT_EQ(steal_split(suffix_costs(iota_ids(3), back), 0, 3), 2u);
  // Random ranges: begin <= mid < end, and mid > begin once there are two positions.
  std::mt19937 rng(5);
  std::vector<double> random_costs;
  for (int i = 0; i < 500; ++i) random_costs.push_back(static_cast<double>(rng() % 1000));
  const auto random_after = suffix_costs(iota_ids(500), random_costs);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t b = rng() % 500, e = b + 1 + rng() % (500 - b);
    const std::size_t mid = steal_split(random_after, b, e);
    EXPECT_GE(mid, b);
    EXPECT_LT(mid, e);
    if (e - b >= 2) {
      EXPECT_GT(mid, b);
    }
  }
}

TEST(Layout, ThievesTakeTheLargestHalfOrTheOwnersFarSide) {
  const std::vector<double> costs = {8, 4, 2, 1, 1, 6, 6};
  // Largest first: the thief takes the front (the largest tasks left), the owner the rest.
  WorkLayout lpt = lay_out_work(iota_ids(5), costs, {1}, false);
  EXPECT_TRUE(lpt.steal_front);
  StealCut c = cut_for_steal(lpt, 0, 5);  // 8 | 4 2 1 1
  EXPECT_EQ(c.thief_begin, 0u);
  EXPECT_EQ(c.thief_end, 1u);
  EXPECT_EQ(c.victim_begin, 1u);
  EXPECT_EQ(c.victim_end, 5u);
  c = cut_for_steal(lpt, 1, 5);  // claimed: position 0; of 4 2 1 1, 4 | 2 1 1 (a tie)
  EXPECT_EQ(c.thief_begin, 1u);
  EXPECT_EQ(c.thief_end, 2u);
  EXPECT_EQ(c.victim_begin, 2u);
  c = cut_for_steal(lpt, 4, 5);  // one position: the thief takes it, the owner keeps nothing
  EXPECT_EQ(c.thief_begin, 4u);
  EXPECT_EQ(c.thief_end, 5u);
  EXPECT_GE(c.victim_begin, c.victim_end);
  // Plan order: the thief takes the back, the owner goes on with its neighbours.
  WorkLayout plan = lay_out_work(iota_ids(7), costs, {1}, true);
  EXPECT_FALSE(plan.steal_front);
  c = cut_for_steal(plan, 3, 7);  // of 1 1 6 6 (14): 1 1 6 | 6, the back part nearest 7
  EXPECT_EQ(c.victim_begin, 3u);
  EXPECT_EQ(c.victim_end, 6u);
  EXPECT_EQ(c.thief_begin, 6u);
  EXPECT_EQ(c.thief_end, 7u);
  c = cut_for_steal(plan, 6, 7);
  EXPECT_EQ(c.thief_begin, 6u);
  EXPECT_EQ(c.thief_end, 7u);
  EXPECT_GE(c.victim_begin, c.victim_end);
}

TEST(Layout, RangeWorkIsPositiveForAnyNonEmptyRange) {
  const std::vector<double> costs = {1e18, 0, 0, 1e-30};
  const auto after = suffix_costs(iota_ids(4), costs);
  EXPECT_EQ(range_work(after, 2, 2), 0.0);
  EXPECT_GT(range_work(after, 1, 3), 0.0);  // rounded to nothing, still not empty
  EXPECT_DOUBLE_EQ(range_work(after, 0, 4), 1e18);
}

TEST(Layout, ThievesStealAtHomeFirstThenAnywhere) {
  // Two nodes of three workers each.
  const std::vector<double> costs(60, 1.0);
  const WorkLayout layout = lay_out_work(iota_ids(60), costs, {3, 3}, false);
  ASSERT_EQ(layout.workers(), 6u);
  EXPECT_EQ(layout.node_of, (std::vector<int>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(layout.node_at(0), 0);
  EXPECT_EQ(layout.node_at(59), 1);
  EXPECT_EQ(layout.node_at(layout.node_begin[1]), 1);
  std::vector<double> left = {0, 3, 5, 9, 9, 0};
  auto pick = [&](int node) {
    return range_to_steal(layout, node, [&](std::size_t w) { return left[w]; });
  };
  EXPECT_EQ(pick(0), 2);  // the richest at home, though node 1 is richer
  EXPECT_EQ(pick(1), 3);  // ties to the lower worker
  left = {0, 0, 0, 9, 1, 0};
  EXPECT_EQ(pick(0), 3);  // nothing at home: help the other node
  left.assign(6, 0);
  EXPECT_EQ(pick(0), -1);
  EXPECT_EQ(pick(1), -1);
}

TEST(Layout, LayoutCoversEveryIndexOnce) {
  std::vector<double> costs;
  for (int i = 0; i < 777; ++i) costs.push_back(static_cast<double>(i % 13));
  for (bool keep_order : {false, true}) {
    const WorkLayout layout = lay_out_work(largest_first(costs), costs, {5, 2, 1}, keep_order);
    EXPECT_TRUE(
        std::is_permutation(layout.ids.begin(), layout.ids.end(), iota_ids(costs.size()).begin()));
    ASSERT_EQ(layout.range_begin.size(), 9u);
    EXPECT_TRUE(std::is_sorted(layout.range_begin.begin(), layout.range_begin.end()));
    EXPECT_EQ(layout.worker_begin, (std::vector<std::size_t>{0, 5, 7, 8}));
    for (std::size_t w = 0; w < 8; ++w) {  // a range never spans two nodes
      const auto k = static_cast<std::size_t>(layout.node_of[w]);
      EXPECT_GE(layout.range_begin[w], layout.node_begin[k]);
      EXPECT_LE(layout.range_begin[w + 1], layout.node_begin[k + 1]);
    }
  }
}

}  // namespace
}  // namespace nq
