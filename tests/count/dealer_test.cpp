// nqcount-mpi's dealer (engine/count/dealer.hpp), without MPI: every subproblem dealt once,
// largest first, the sums exact; cross-checks dealt to another rank, a mismatch reported.
#include "engine/count/dealer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "engine/count/count.hpp"

namespace nq {
namespace {

// A canonical plan of `tasks` subproblems of weight 2, with costs 1..tasks.
struct Fixture {
  Plan plan;
  std::vector<std::uint64_t> todo, costs;
  Monitor progress;
  explicit Fixture(std::size_t tasks) {
    plan.n = 12;
    plan.subproblems.resize(tasks);
    plan.weights.assign(tasks, 2);
    for (std::size_t i = 0; i < tasks; ++i) {
      todo.push_back(i);
      costs.push_back(i + 1);
    }
  }
};

TEST(Dealer, DealsEverySubproblemOnceLargestFirstAndSumsWhatComesBack) {
  Fixture f(100);
  Dealer dealer(f.plan, f.todo, f.costs, nullptr, f.progress, {2, 3}, 0.0, 1);
  std::set<std::uint64_t> seen;
  std::uint64_t last_cost = ~std::uint64_t{0};
  int rank = 0;
  for (DealtBatch b = dealer.take(rank); !b.indices.empty(); b = dealer.take(rank)) {
    EXPECT_FALSE(b.check);
    std::vector<FinishedSubproblem> done;
    for (std::uint64_t i : b.indices) {
      EXPECT_TRUE(seen.insert(i).second) << i;
      EXPECT_LE(f.costs[i], last_cost);  // largest estimated cost first
      last_cost = f.costs[i];
      done.push_back({i, {i + 1, 10}});  // solutions i + 1, 10 nodes
    }
    dealer.deliver(rank, done, false);
    rank = 1 - rank;
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_FALSE(dealer.may_deal_more());
  const Partial sum = dealer.sum();
  EXPECT_EQ(sum.subproblems, 100u);
  EXPECT_EQ(sum.weighted, u128{2 * 5050});  // weight 2 times 1 + ... + 100
  EXPECT_EQ(sum.nodes, u128{1000});
  const auto by_rank = dealer.by_rank();
  EXPECT_EQ(by_rank[0] + by_rank[1], 100u);
  EXPECT_EQ(f.progress.subproblems_done.load(), 100u);
}

TEST(Dealer, CrossChecksGoToAnotherRankAndAMismatchIsReported) {
  Fixture f(8);
  Dealer dealer(f.plan, f.todo, f.costs, nullptr, f.progress, {1, 1}, 1.0, 7);
  // Rank 0 counts everything first; every subproblem is then waiting for its check.
  for (DealtBatch b = dealer.take(0); !b.indices.empty() && !b.check; b = dealer.take(0)) {
    std::vector<FinishedSubproblem> done;
    for (std::uint64_t i : b.indices) done.push_back({i, {i, 1}});
    dealer.deliver(0, done, false);
  }
  EXPECT_EQ(dealer.sum().subproblems, 0u);  // nothing settles before its check
  EXPECT_TRUE(dealer.may_deal_more());
  const DealtBatch check = dealer.take(1);
  ASSERT_TRUE(check.check);
  ASSERT_FALSE(check.indices.empty());
  std::vector<FinishedSubproblem> again;
  for (std::uint64_t i : check.indices)
    again.push_back({i, {i == check.indices[0] ? i + 1 : i, 1}});
  dealer.deliver(1, again, true);
  EXPECT_NE(
      dealer.failure().find("cross-check failed: subproblem " + std::to_string(check.indices[0])),
      std::string::npos)
      << dealer.failure();
  EXPECT_EQ(dealer.checked(), check.indices.size() - 1);
  EXPECT_EQ(dealer.checked_elsewhere(), check.indices.size() - 1);
}

// A batch limit caps every batch the rule deals (here one task a batch: the measurement of the
// dealing, perf/mpi_throughput.cpp).
TEST(Dealer, ABatchLimitCapsEveryBatch) {
  Fixture f(5);
  Dealer dealer(f.plan, f.todo, f.costs, nullptr, f.progress, {4}, 0.0, 1, 1);
  for (DealtBatch b = dealer.take(0); !b.indices.empty(); b = dealer.take(0)) {
    EXPECT_EQ(b.indices.size(), 1u);
    dealer.deliver(0, {{b.indices[0], {1, 1}}}, false);
  }
  EXPECT_EQ(dealer.sum().subproblems, 5u);
  EXPECT_EQ(dealer.checked(), 0u);
}

// --- The dealing's rules ---

// The batch rule: a rank's batch is a multiple of its threads (every thread gets a task while
// there are), at most 1/256 of the plan over all the threads a thread, never more than is left.
TEST(DealerBatch, ATaskForEveryThreadAndASmallShareOfThePlan) {
  const std::size_t plan = std::size_t{1} << 21, all = 1024 * 64;
  EXPECT_EQ(dealer_batch(plan, plan, 64, all), 64u);     // 2^21 / (64 * 65536) < 1: one a thread
  EXPECT_EQ(dealer_batch(plan, plan, 8, 1024), 8u * 8);  // the cap, 1/256 of the plan's share
  EXPECT_EQ(dealer_batch(40, plan, 64, all), 40u);       // what is left
  EXPECT_EQ(dealer_batch(1, 1, 1, 1), 1u);
  EXPECT_EQ(dealer_batch(100000, 100000, 1, 4), 97u);  // guided 6250, capped at 100000 / 1024
  EXPECT_EQ(dealer_batch(100, 100000, 1, 4), 6u);      // near the end, guided: 100 / 16
  EXPECT_EQ(dealer_batch_cap(plan, 64, all), 64u);
}

// Tasks of no estimated cost ride along: they do not count toward a batch's size.
TEST(DealerBatch, TasksOfNoCostDoNotCountTowardTheBatch) {
  const std::vector<double> cost = {5, 4, 3, 0, 0, 0};  // in dealing order: the free ones last
  auto at = [&](std::size_t i) { return cost[i]; };
  EXPECT_EQ(dealer_batch_end(0, cost.size(), 2, at), 2u);
  EXPECT_EQ(dealer_batch_end(2, cost.size(), 2, at), 6u);  // one costed task and every free one
  EXPECT_EQ(dealer_batch_end(3, cost.size(), 1, at), 6u);
  EXPECT_EQ(dealer_batch_end(6, cost.size(), 1, at), 6u);  // nothing left
  const std::vector<double> many(kDealerFreeTasks + 10, 0);
  EXPECT_EQ(dealer_batch_end(0, many.size(), 1, [&](std::size_t i) { return many[i]; }),
            kDealerFreeTasks);
}

// The dealing order: the largest estimated cost first, ties in plan order.
TEST(DealerOrder, LargestEstimateFirstTiesInPlanOrder) {
  const std::vector<double> cost = {1, 5, 3, 5, 0};
  EXPECT_EQ(dealer_order(cost.size(), [&](std::size_t i) { return cost[i]; }),
            (std::vector<std::size_t>{1, 3, 2, 0, 4}));
}

// Runs of consecutive tasks go together, in plan order, the costliest run first (ties in plan
// order), so that the join meets its neighbours; the run is 1 where the plan has few tasks a
// thread, and at most kDealerMaxRun.
TEST(DealerOrder, RunsOfNeighboursLargestRunFirst) {
  const std::vector<double> cost = {1, 5, 3, 5, 0, 9, 2};  // runs of 2: 6, 8, 9, 2
  EXPECT_EQ(dealer_order(
                cost.size(), [&](std::size_t i) { return cost[i]; }, 2),
            (std::vector<std::size_t>{4, 5, 2, 3, 0, 1, 6}));
  EXPECT_EQ(dealer_run(1000, 64), 1u);  // fewer than 256 tasks a thread
  EXPECT_EQ(dealer_run(5120, 2), 10u);  // 2,560 a thread: runs of 10, 256 a thread
  EXPECT_EQ(dealer_run(5120, 20), 1u);  // 256 a thread: a full batch is one task a thread
  EXPECT_EQ(dealer_run(1u << 20, 2), kDealerMaxRun);
}

}  // namespace
}  // namespace nq
