// The scaling simulator (engine/count/simulate.hpp): the runner's policy and nqcount-mpi's
// dealing replayed on measured task costs.
#include "engine/count/simulate.hpp"

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
#include "tests/support/sanitized.hpp"

namespace nq {
namespace {

using namespace detail;  // the layout the replays share

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

// Costs whose sums would overflow are refused at the row where the total passes the bound.

// Item 7 of the second hardening round: the steal tree and the workers not yet queued change
// how fast the replay runs, not what it finds: every steal and the makespan as the scan's, with
// more workers than tasks, fewer, one node or many, largest first or in plan order.
TEST(Simulator, StealTreeReplaysExactlyAsTheScanOfEveryRange) {
  std::mt19937_64 g(11);
  std::exponential_distribution<double> spread(1.0);
  for (const int size : {1, 7, 300, test_support::sized(1500, 500)}) {
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

}  // namespace
}  // namespace nq
