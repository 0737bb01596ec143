// The scheduling policy (deal, ranges, steals) and the simulator that replays it, with the
// task-stats file it reads.
#include "engine/count/schedule.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <queue>
#include <random>

#include "engine/count/topology.hpp"
#include "tests/cli_runner.hpp"

namespace nq {
namespace {

TEST(Schedule, LargestFirstIsStable) {
  EXPECT_EQ(largest_first({1, 5, 3, 5, 0}), (std::vector<std::uint32_t>{1, 3, 2, 0, 4}));
}

TEST(Schedule, DealsInProportionToThreads) {
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

TEST(Schedule, DealBalancesUnequalCosts) {
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

TEST(Schedule, ClaimSizeStaysSmall) {
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

TEST(Schedule, ThreadRangesAreLptSharesLargestFirst) {
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

TEST(Schedule, ThreadRangesInPlanOrderAreContiguousBlocksOfEqualCost) {
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

TEST(Schedule, StealSplitsTheWorkInHalves) {
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

TEST(Schedule, ThievesTakeTheLargestHalfOrTheOwnersFarSide) {
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

TEST(Schedule, RangeWorkIsPositiveForAnyNonEmptyRange) {
  const std::vector<double> costs = {1e18, 0, 0, 1e-30};
  const auto after = suffix_costs(iota_ids(4), costs);
  EXPECT_EQ(range_work(after, 2, 2), 0.0);
  EXPECT_GT(range_work(after, 1, 3), 0.0);  // rounded to nothing, still not empty
  EXPECT_DOUBLE_EQ(range_work(after, 0, 4), 1e18);
}

TEST(Schedule, ThievesStealAtHomeFirstThenAnywhere) {
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

TEST(Schedule, LayoutCoversEveryIndexOnce) {
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

std::vector<TaskStat> tasks_of(const std::vector<double>& seconds) {
  std::vector<TaskStat> t;
  for (std::size_t i = 0; i < seconds.size(); ++i)
    t.push_back({static_cast<std::uint32_t>(i), 1, seconds[i], seconds[i]});
  return t;
}

// nqcount-mpi's dealing: one rank alone takes the sum; with a free root, many equal tasks on
// many ranks divide about evenly; a slow root makes itself the bottleneck (busy nearly all the
// time, requests waiting their turn).
TEST(DealerSimulator, OneRankTakesTheSumAndASlowRootIsTheBottleneck) {
  const auto alone = simulate_dealer(tasks_of({1, 2, 3, 4}), 1, 1, 0.5);
  EXPECT_DOUBLE_EQ(alone.makespan, 10);  // rank 0 skips its own queue
  EXPECT_DOUBLE_EQ(alone.efficiency, 1);
  EXPECT_DOUBLE_EQ(alone.root_busy, 0);

  const std::vector<double> equal(64 * 64, 0.01);
  const auto free_root = simulate_dealer(tasks_of(equal), 64, 1, 0);
  EXPECT_NEAR(free_root.work, 64 * 64 * 0.01, 1e-9);
  EXPECT_GT(free_root.efficiency, 0.9);
  EXPECT_LE(free_root.efficiency, 1.0 + 1e-12);

  const double root = 0.01;  // a batch result costs rank 0 as long as a task
  const auto slow_root = simulate_dealer(tasks_of(equal), 64, 1, root);
  EXPECT_LT(slow_root.efficiency, 0.5 * free_root.efficiency);
  EXPECT_GT(slow_root.root_busy, 0.9);
  EXPECT_GT(slow_root.longest_wait, 0);
  EXPECT_LE(slow_root.root_busy, 1.0);
  // A root far slower than the work: the makespan is its serving, every request in turn (each
  // rank's batches and its final "no more work"), so it is busy all of that time, never more.
  const auto bound = simulate_dealer(tasks_of(std::vector<double>(64, 1e-6)), 64, 1, 1.0);
  EXPECT_GE(bound.makespan, 63.0);  // at least the 63 other ranks' last requests
  EXPECT_NEAR(bound.root_busy, 1.0, 1e-6);
  // More threads a rank: the same tasks, fewer batches' worth of wall time each.
  const auto wide = simulate_dealer(tasks_of(equal), 4, 16, 0);
  EXPECT_GT(wide.efficiency, 0.8);
}

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

// The costly task estimated so goes first rather than last: the run does not end waiting on it.
TEST(DealerSimulator, TheCostliestTaskIsDealtFirst) {
  std::vector<double> seconds(63, 1.0);
  seconds.push_back(16.0);  // last in plan order
  // Ideal: (63 + 16) / 4 = 19.75 s. Dealt first, the 16 s task runs beside the rest (batches of
  // four: 24 s); dealt last, after it (63 / 4 + 16, about 32 s).
  const auto first = simulate_dealer(tasks_of(seconds), 1, 4, 0);
  EXPECT_LE(first.makespan, 24.0 + 1e-9);
  std::vector<TaskStat> unknown = tasks_of(seconds);
  for (TaskStat& t : unknown) t.estimate = 1;  // no estimate tells it apart: plan order
  EXPECT_GT(simulate_dealer(unknown, 1, 4, 0).makespan, first.makespan + 6);
}

// A rank holds kDealerBatchesHeld batches: the threads a batch's slow task leaves idle count
// the next batches instead of waiting for it. With task times scattered around their estimates
// (each one its estimate times a lognormal factor of about +-50%, as the sample's times were
// at n = 26 to 28), 64 ranks of 64 threads on 24 tasks a thread stay busy 85% of the time or
// more (0.886 with three batches held; 0.680 with two, 0.9 and more with four).
TEST(DealerSimulator, HeldBatchesKeepThreadsBusyWhenTaskTimesScatter) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> stray(-0.1, 0.45);
  std::uniform_real_distribution<double> cost(1, 10);
  std::vector<TaskStat> tasks(64 * 64 * 24);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].id = static_cast<std::uint32_t>(i);
    tasks[i].estimate = cost(rng);
    tasks[i].seconds = tasks[i].estimate * stray(rng);
  }
  const auto r = simulate_dealer(tasks, 64, 64, 0);
  EXPECT_GE(r.efficiency, 0.85) << r.efficiency;
}

// The tail runs from the first thread done for good to the end: one rank of two threads, tasks
// of 4, 1 and 1 s dealt as batches {4, 1} and {1}: the second thread is done at 2 s, the run
// at 4 s. A thread that never had a task is done at 0.
TEST(DealerSimulator, TheTailRunsFromTheFirstThreadDoneToTheEnd) {
  const auto r = simulate_dealer(tasks_of({4, 1, 1}), 1, 2, 0);
  EXPECT_DOUBLE_EQ(r.makespan, 4);
  EXPECT_DOUBLE_EQ(r.first_idle, 2);
  EXPECT_DOUBLE_EQ(r.tail, 2);
  const auto idle = simulate_dealer(tasks_of({3}), 1, 4, 0);
  EXPECT_DOUBLE_EQ(idle.first_idle, 0);
  EXPECT_DOUBLE_EQ(idle.tail, 3);
}

// The granularity that follows the cluster: kDealerTasksPerThread tasks a thread of all the
// ranks' threads, so that a plan cut that fine keeps the tail short where one with a few tasks a
// thread does not (tasks of 1 to 3 units, 4 against 32 a thread, 64 ranks of 16 threads, rank 0
// free).
TEST(DealerSimulator, MoreTasksAThreadShortenTheTail) {
  EXPECT_EQ(dealer_plan_tasks(640'000), kDealerTasksPerThread * 640'000);
  EXPECT_EQ(dealer_plan_tasks(0), kDealerTasksPerThread);
  auto uneven = [](std::size_t tasks) {  // costs 1 to 3, the same total whatever the cut
    std::vector<double> s(tasks);
    for (std::size_t i = 0; i < tasks; ++i)
      s[i] = (1.0 + static_cast<double>(i % 3)) / static_cast<double>(tasks);
    return tasks_of(s);
  };
  const std::size_t threads = 64 * 16;
  const auto coarse = simulate_dealer(uneven(4 * threads), 64, 16, 0);
  const auto fine = simulate_dealer(uneven(dealer_plan_tasks(threads)), 64, 16, 0);
  EXPECT_LT(fine.tail, coarse.tail);
  EXPECT_GT(fine.efficiency, 0.9);
  EXPECT_GT(fine.efficiency, coarse.efficiency);
}

TEST(DealerSimulator, ARankCountsItsNextBatchBesideASlowTask) {
  std::vector<double> seconds;
  for (int i = 0; i < 20; ++i) {  // batches of two (one rank of two threads, a plan of 40)
    seconds.push_back(10);
    seconds.push_back(1);
  }
  std::vector<TaskStat> tasks = tasks_of(seconds);
  for (TaskStat& t : tasks) t.estimate = 1;  // plan order
  const auto r = simulate_dealer(tasks, 1, 2, 0);
  EXPECT_EQ(r.batches, 20u);
  EXPECT_LT(r.makespan, 0.6 * 20 * 10);  // one batch at a time: 20 batches of 10 s
  EXPECT_GT(r.efficiency, 0.9);
}

TEST(Simulator, OneWorkerTakesTheSumOfTheCosts) {
  const auto r = simulate_schedule(tasks_of({1, 2, 3, 4}), 1, 16);
  EXPECT_DOUBLE_EQ(r.makespan, 10);
  EXPECT_DOUBLE_EQ(r.work, 10);
  EXPECT_DOUBLE_EQ(r.efficiency, 1);
}

TEST(Simulator, EqualTasksDivideEvenly) {
  const auto r = simulate_schedule(tasks_of(std::vector<double>(64 * 8, 0.5)), 64, 16);
  EXPECT_EQ(r.arenas, 4);
  EXPECT_DOUBLE_EQ(r.makespan, 4.0);
  EXPECT_DOUBLE_EQ(r.efficiency, 1.0);
}

TEST(Simulator, TheLargestTaskBoundsTheMakespan) {
  std::vector<double> costs(100, 1.0);
  costs[57] = 30;
  const auto r = simulate_schedule(tasks_of(costs), 32, 8);
  EXPECT_DOUBLE_EQ(r.makespan, 30.0);  // it starts first (largest first) and runs alone
  EXPECT_NEAR(r.speedup, 129.0 / 30.0, 1e-12);
}

TEST(Simulator, NodesHelpEachOtherAtTheEnd) {
  // Estimates that lie: node 0 gets the tasks that really cost 10, node 1 the ones that cost 1.
  // Without helping, node 0 would need 10 * 8 / 4 = 20 s; with it the makespan is near the
  // ideal 88 / 8 = 11 s.
  std::vector<TaskStat> t;
  for (std::uint32_t i = 0; i < 16; ++i) t.push_back({i, 1, i % 2 == 0 ? 10.0 : 1.0, 1.0});
  const auto r = simulate_schedule(t, 8, 4);
  EXPECT_EQ(r.arenas, 2);
  EXPECT_LE(r.makespan, 12.0);
}

TEST(Simulator, StealingSharesOutOneRangesWork) {
  // Estimates that lie: thread 0's LPT share (every 4th task, one node of 4) really holds all
  // the work. Without stealing it would take 64 * 1 s alone; stolen halves spread it.
  std::vector<TaskStat> t;
  for (std::uint32_t i = 0; i < 256; ++i) t.push_back({i, 1, i % 4 == 0 ? 1.0 : 0.0, 1.0});
  const auto r = simulate_schedule(t, 4, 4);
  EXPECT_EQ(r.arenas, 1);
  EXPECT_GT(r.steals, 0u);
  EXPECT_LE(r.makespan, 64.0 / 4 + 4.0);  // near the ideal 16 s
}

TEST(Simulator, OneHugeTaskAndManySmallOnes) {
  std::vector<double> costs(2000, 0.01);
  costs[1234] = 10;  // half the work in one task
  const auto r = simulate_schedule(tasks_of(costs), 16, 8);
  EXPECT_DOUBLE_EQ(r.makespan, 10.0);  // the huge task runs alone, the rest around it
}

TEST(Simulator, IsDeterministic) {
  std::mt19937 rng(3);
  std::vector<double> costs;
  for (int i = 0; i < 5000; ++i) costs.push_back(static_cast<double>(rng() % 100) * 1e-3);
  const auto a = simulate_schedule(tasks_of(costs), 48, 16);
  const auto b = simulate_schedule(tasks_of(costs), 48, 16);
  EXPECT_EQ(a.makespan, b.makespan);
  EXPECT_EQ(a.steals, b.steals);
  EXPECT_GT(a.efficiency, 0.95);  // many small tasks: near ideal
}

TEST(Simulator, NeverFasterThanPerfect) {
  std::mt19937 rng(11);
  std::vector<double> costs;
  for (int i = 0; i < 3000; ++i)
    costs.push_back(std::exp(static_cast<double>(rng() % 1000) / 150.0) * 1e-6);
  for (int p : {1, 2, 3, 16, 64, 100, 1024}) {
    const auto r = simulate_schedule(tasks_of(costs), p, 16);
    EXPECT_LE(r.efficiency, 1.0 + 1e-9) << p;
    EXPECT_GE(r.makespan, r.work / p - 1e-12) << p;
    EXPECT_GT(r.efficiency, 0.0) << p;
  }
}

TEST(Simulator, CostsFromNodesKeepTheTotalAndFollowTheNodes) {
  const std::vector<TaskStat> measured = {{0, 100, 3.0, 1}, {1, 300, 1.0, 1}, {2, 0, 0.5, 1}};
  const auto model = costs_from_nodes(measured);
  ASSERT_EQ(model.size(), 3u);
  EXPECT_DOUBLE_EQ(model[0].seconds, 1.125);  // 4.5 s over 400 nodes
  EXPECT_DOUBLE_EQ(model[1].seconds, 3.375);
  EXPECT_DOUBLE_EQ(model[2].seconds, 0.0);
  EXPECT_EQ(model[1].nodes, 300u);
}

// A join run keeps its plan's order: contiguous blocks of equal estimated cost, one per thread.
// Here that is the better schedule (3 + 3 | 2 + 2 + 2), while largest first deals 3, 2, 2 to
// one thread and 3, 2 to the other, and the last 2 cannot move: 7 against 6.
TEST(Simulator, PlanOrderReplaysContiguousBlocks) {
  const auto tasks = tasks_of({3, 3, 2, 2, 2});
  EXPECT_DOUBLE_EQ(simulate_schedule(tasks, 2, 16, 0, /*plan_order=*/true).makespan, 6);
  EXPECT_DOUBLE_EQ(simulate_schedule(tasks, 2, 16, 0, /*plan_order=*/false).makespan, 7);
}

TEST(Simulator, ReadsTaskStatsAndRejectsOtherFiles) {
  const std::string path = test::temp_path("stats.csv");
  {
    std::ofstream f(path);
    f << "id,nodes,seconds,estimate\n1,10,0.5,7\n0,20,0.25,9\n";
  }
  const auto t = read_task_stats(path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].id, 0u);  // sorted by id
  EXPECT_EQ((*t)[0].nodes, 20u);
  EXPECT_DOUBLE_EQ((*t)[1].seconds, 0.5);
  EXPECT_FALSE((*t)[0].plan_order);  // a file from before the column: largest first
  {
    std::ofstream f(path);
    f << "id,nodes,seconds,estimate,plan_order\n0,10,0.5,7,1\n1,20,0.25,9,1\n";
  }
  const auto ordered = read_task_stats(path);
  ASSERT_TRUE(ordered.ok()) << ordered.error().message;
  EXPECT_TRUE((*ordered)[0].plan_order);
  EXPECT_TRUE((*ordered)[1].plan_order);
  for (const char* bad :
       {"", "id,nodes\n1,2\n", "id,nodes,seconds,estimate\n",
        "id,nodes,seconds,estimate\n1,2,x,4\n", "id,nodes,seconds,estimate\n1,2,-3,4\n",
        "id,nodes,seconds,estimate,plan_order\n1,2,3,4\n",
        "id,nodes,seconds,estimate,plan_order\n1,2,3,4,2\n"}) {
    std::ofstream(path) << bad;
    EXPECT_FALSE(read_task_stats(path).ok()) << bad;
  }
  std::remove(path.c_str());
  EXPECT_FALSE(read_task_stats(path).ok());
}

TEST(Simulator, ReadsBackTheTaskStatsItsWriterFormats) {
  std::vector<TaskStat> tasks(3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    tasks[i].id = 2 - i;
    tasks[i].nodes = 1000 + i;
    tasks[i].seconds = 0.125 * (i + 1);
    tasks[i].estimate = 7.5 * i;
    tasks[i].plan_order = true;
    tasks[i].resumed = i == 1;
  }
  const std::string text = format_task_stats(tasks);
  EXPECT_EQ(text.rfind(std::string(kTaskStatsHeader) + "\n", 0), 0u) << text;
  const std::string path = test::temp_path("stats_rt");
  std::ofstream(path) << text;
  const auto back = read_task_stats(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), 3u);
  for (const TaskStat& t : *back) {
    const TaskStat& want = tasks[2 - t.id];
    EXPECT_EQ(t.nodes, want.nodes);
    EXPECT_DOUBLE_EQ(t.seconds, want.seconds);
    EXPECT_DOUBLE_EQ(t.estimate, want.estimate);
    EXPECT_TRUE(t.plan_order);
    EXPECT_EQ(t.resumed, want.resumed);
  }
  // The replay's tasks: the resumed row left out.
  const std::vector<TaskStat> timed = timed_tasks(*back);
  ASSERT_EQ(timed.size(), 2u);
  for (const TaskStat& t : timed) EXPECT_FALSE(t.resumed);
  // A resumed flag other than 0 or 1 is refused with its line.
  const auto bad = parse_task_stats(std::string(kTaskStatsHeader) + "\n0,1,1,1,0,2\n", "f");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("f:2: "), std::string::npos) << bad.error().message;
}

// Malformed rows are refused, each with the number of its line (the header is line 1).
TEST(Simulator, RefusesMalformedRowsWithTheLineNumber) {
  const std::string head = "id,nodes,seconds,estimate,plan_order\n";
  const std::string good = "0,10,0.5,7,0\n";
  struct Case {
    const char* row;
    const char* why;
  };
  for (const Case& c :
       {Case{"1,-10,0.5,7,0\n", "negative nodes"}, Case{"-1,10,0.5,7,0\n", "negative id"},
        Case{"0,10,0.5,7,0\n", "duplicate id"}, Case{"1,10,0.5,7,0junk\n", "trailing garbage"},
        Case{"1,10,0.5,7,0,9\n", "an extra field"}, Case{"1,10,0.5,7,0\r\n", "CRLF"},
        Case{"1, 10,0.5,7,0\n", "a padded field"}, Case{" 1,10,0.5,7,0\n", "a leading space"},
        Case{"1,+10,0.5,7,0\n", "a plus sign"}, Case{"1,0x10,0.5,7,0\n", "hexadecimal"},
        Case{"1,10,inf,7,0\n", "infinite seconds"}, Case{"1,10,nan,7,0\n", "not a number"},
        Case{"1,10,0.5,7\n", "a missing field"},
        Case{"4294967296,10,0.5,7,0\n", "an id above 32 bits"}}) {
    const auto r = parse_task_stats(head + good + c.row, "stats.csv");
    ASSERT_FALSE(r.ok()) << c.why;
    const bool names_line = r.error().message.find("stats.csv:3: ") != std::string::npos ||
                            r.error().message.find("rows 2 and 3") != std::string::npos;
    EXPECT_TRUE(names_line) << c.why << ": " << r.error().message;
  }
  EXPECT_FALSE(parse_task_stats("id,nodes,seconds,estimate,plan_order\r\n0,1,1,1,0\n", "f").ok());
  const auto fine = parse_task_stats(head + good + "1,3,1.5e-05,2,0\n", "stats.csv");
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_DOUBLE_EQ((*fine)[1].seconds, 1.5e-05);
}

// The replay as it was written first, straight from the policy: a scan of the workers for each
// steal (range_to_steal), every worker in the event queue from the start. simulate_schedule
// answers the same in O(log P) a steal; the two must agree exactly.
SimulatedRun scanning_replay(const std::vector<TaskStat>& tasks, int workers, int node_cores,
                             bool plan_order) {
  SimulatedRun run;
  run.workers = workers;
  Topology machine;
  for (int k = 0; k < (workers + node_cores - 1) / node_cores; ++k) {
    NumaNode node;
    node.os_index = k;
    node.cores = node_cores;
    machine.nodes.push_back(node);
  }
  std::vector<int> threads;
  for (const auto& a : plan_arenas(machine, workers, true).arenas) threads.push_back(a.threads);
  std::vector<double> cost, estimate;
  for (const TaskStat& t : tasks) {
    cost.push_back(t.seconds);
    estimate.push_back(t.estimate);
    run.work += t.seconds;
  }
  const WorkLayout layout =
      lay_out_work(claim_order(estimate, plan_order), estimate, threads, plan_order);
  std::vector<std::size_t> begin(layout.range_begin.begin(), layout.range_begin.end() - 1);
  std::vector<std::size_t> end(layout.range_begin.begin() + 1, layout.range_begin.end());
  auto left_of = [&](std::size_t w) { return range_work(layout.after, begin[w], end[w]); };
  using Event = std::pair<double, std::size_t>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> free_at;
  for (std::size_t w = 0; w < layout.workers(); ++w) free_at.push({0.0, w});
  while (!free_at.empty()) {
    const auto [now, w] = free_at.top();
    free_at.pop();
    if (begin[w] >= end[w]) {
      const int victim = range_to_steal(layout, layout.node_of[w], left_of);
      if (victim < 0) {
        run.makespan = std::max(run.makespan, now);
        continue;
      }
      const auto v = static_cast<std::size_t>(victim);
      const StealCut cut = cut_for_steal(layout, begin[v], end[v]);
      begin[w] = cut.thief_begin;
      end[w] = cut.thief_end;
      begin[v] = cut.victim_begin;
      end[v] = cut.victim_end;
      ++run.steals;
    }
    const auto node = static_cast<std::size_t>(layout.node_at(begin[w]));
    const std::size_t stop = std::min(begin[w] + layout.chunk[node], end[w]);
    double busy = 0;
    for (; begin[w] < stop; ++begin[w]) busy += cost[layout.ids[begin[w]]];
    free_at.push({now + busy, w});
  }
  return run;
}

// Item 7 of the second hardening round: the steal tree and the workers not yet queued change
// how fast the replay runs, not what it finds: every steal and the makespan as the scan's, with
// more workers than tasks, fewer, one node or many, largest first or in plan order.
TEST(Simulator, StealTreeReplaysExactlyAsTheScanOfEveryRange) {
  std::mt19937_64 g(11);
  std::exponential_distribution<double> spread(1.0);
  for (const int size : {1, 7, 300, 1500}) {
    std::vector<TaskStat> tasks;
    for (int i = 0; i < size; ++i) {
      const double s = spread(g);
      tasks.push_back(
          {static_cast<std::uint32_t>(i), 1, s, i % 5 == 0 ? 0.0 : s * (1 + spread(g))});
    }
    for (const int workers : {1, 3, 16, 100, 700, 2000})
      for (const int cores : {1, 4, 16, 64})
        for (const bool plan_order : {false, true}) {
          const SimulatedRun fast = simulate_schedule(tasks, workers, cores, 0, plan_order);
          const SimulatedRun scan = scanning_replay(tasks, workers, cores, plan_order);
          EXPECT_EQ(fast.makespan, scan.makespan)
              << size << " tasks, " << workers << " workers, " << cores << " cores";
          EXPECT_EQ(fast.steals, scan.steals)
              << size << " tasks, " << workers << " workers, " << cores << " cores";
        }
  }
}

// The dealer's replay as it was written first: an entry per thread of every rank (ranks times
// threads). simulate_dealer keeps a rank's unused threads as a count; the two must agree.
SimulatedDeal per_thread_dealer(const std::vector<TaskStat>& tasks, int ranks, int threads,
                                double root_seconds) {
  SimulatedDeal r;
  r.ranks = ranks;
  r.threads = threads;
  const auto each = static_cast<std::size_t>(threads);
  const std::size_t all = each * static_cast<std::size_t>(ranks), plan = tasks.size();
  const auto order = dealer_order(
      plan, [&](std::size_t i) { return tasks[i].estimate; }, dealer_run(plan, all));
  std::size_t next = 0;
  using FreeAt = std::priority_queue<double, std::vector<double>, std::greater<>>;
  std::vector<FreeAt> pools(static_cast<std::size_t>(ranks));
  for (FreeAt& pool : pools)
    for (int t = 0; t < threads; ++t) pool.push(0);
  using Event = std::pair<double, int>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> done;
  for (std::size_t b = 0; b < kDealerBatchesHeld; ++b)
    for (int k = 0; k < ranks; ++k) done.push({0.0, k});
  double server_free = 0;
  while (!done.empty()) {
    const auto [t, k] = done.top();
    done.pop();
    r.makespan = std::max(r.makespan, t);
    double start = t;
    if (k != 0) {
      start = std::max(t, server_free);
      r.longest_wait = std::max(r.longest_wait, start - t);
      server_free = start + root_seconds;
      start = server_free;
      r.makespan = std::max(r.makespan, start);
    }
    const std::size_t batch = dealer_batch(plan - next, plan, each, all);
    const std::size_t first = next;
    next = dealer_batch_end(next, plan, batch,
                            [&](std::size_t at) { return tasks[order[at]].estimate; });
    if (next == first) continue;
    ++r.batches;
    FreeAt& pool = pools[static_cast<std::size_t>(k)];
    double last = start;
    for (std::size_t i = first; i < next; ++i) {
      const double at = std::max(pool.top(), start) + tasks[order[i]].seconds;
      pool.pop();
      pool.push(at);
      last = std::max(last, at);
      r.work += tasks[order[i]].seconds;
    }
    done.push({last, k});
  }
  return r;
}

TEST(DealerSimulator, UnusedThreadsAsACountReplayExactlyAsAnEntryEach) {
  std::mt19937_64 g(5);
  std::exponential_distribution<double> spread(1.0);
  for (const int size : {1, 50, 2000}) {
    std::vector<TaskStat> tasks;
    for (int i = 0; i < size; ++i) {
      const double s = spread(g);
      tasks.push_back({static_cast<std::uint32_t>(i), 1, i % 7 == 0 ? 0.0 : s, i % 3 ? s : 0.0});
    }
    for (const int ranks : {1, 2, 17, 300})
      for (const int threads : {1, 3, 64})
        for (const double root : {0.0, 1e-4, 0.5}) {
          const SimulatedDeal fast = simulate_dealer(tasks, ranks, threads, root);
          const SimulatedDeal each = per_thread_dealer(tasks, ranks, threads, root);
          const std::string what = std::to_string(size) + " tasks, " + std::to_string(ranks) +
                                   " ranks of " + std::to_string(threads);
          EXPECT_EQ(fast.makespan, each.makespan) << what;
          EXPECT_EQ(fast.work, each.work) << what;
          EXPECT_EQ(fast.batches, each.batches) << what;
          EXPECT_EQ(fast.longest_wait, each.longest_wait) << what;
        }
  }
}

// The replays' own memory, by which simulate refuses up front: with ranks plus tasks, not ranks
// times threads; with workers plus tasks.
TEST(Simulator, ReplayMemoryGrowsWithRanksPlusTasks) {
  const std::uint64_t small = simulate_dealer_bytes(2000, 1024);
  const std::uint64_t many_ranks = simulate_dealer_bytes(2000, 1 << 20);
  EXPECT_LT(many_ranks, std::uint64_t{1} << 28);  // 2^20 ranks: under 256 MiB
  EXPECT_GT(many_ranks, 500 * small);             // and about in proportion to the ranks
  EXPECT_LT(simulate_schedule_bytes(2000, 1 << 16, 16), std::uint64_t{1} << 24);
  EXPECT_GT(simulate_schedule_bytes(1 << 20, 4, 16), simulate_schedule_bytes(1 << 10, 4, 16));
}

// Costs whose sums would overflow are refused at the row where the total passes the bound.
TEST(Simulator, RefusesProfilesWhoseTotalsCouldOverflow) {
  const std::string head = "id,nodes,seconds,estimate,plan_order\n";
  const auto seconds = parse_task_stats(head + "0,1,1,1,0\n1,1,1e308,1,0\n", "s.csv");
  ASSERT_FALSE(seconds.ok());
  EXPECT_EQ(seconds.error().message.rfind("s.csv:3: the seconds ", 0), 0u)
      << seconds.error().message;
  const auto estimates = parse_task_stats(head + "0,1,1,6e99,0\n1,1,1,6e99,0\n", "e.csv");
  ASSERT_FALSE(estimates.ok());
  EXPECT_EQ(estimates.error().message.rfind("e.csv:3: the estimates ", 0), 0u)
      << estimates.error().message;
  EXPECT_TRUE(parse_task_stats(head + "0,1,5e99,5e99,0\n1,1,5e99,5e99,0\n", "f.csv").ok());
}

}  // namespace
}  // namespace nq
