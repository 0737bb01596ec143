// The NUMA plan and the scheduling policy, as pure functions: synthetic machines far larger
// than this one, planned without running on them, and the simulator on costs we can reason about.
#include "topology.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>

#include "schedule.hpp"

namespace nq {
namespace {

Topology machine(const std::string& description) {
  auto t = synthetic_topology(description);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? *t : Topology{};
}

std::vector<int> range(int first, int count) {
  std::vector<int> v(static_cast<std::size_t>(count));
  std::iota(v.begin(), v.end(), first);
  return v;
}

std::vector<int> arena_threads(const NumaPlan& p) {
  std::vector<int> t;
  for (const ArenaPlan& a : p.arenas) t.push_back(a.threads);
  return t;
}

TEST(Topology, TwoPackagesOfTwoNodesOfSixteenCores) {
  const Topology t = machine("pack:2 numa:2 core:16 pu:1");
  EXPECT_FALSE(t.this_system);
  EXPECT_EQ(t.packages, 2);
  EXPECT_EQ(t.cores, 64);
  EXPECT_EQ(t.pus, 64);
  ASSERT_EQ(t.nodes.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(t.nodes[k].os_index, k);
    EXPECT_EQ(t.nodes[k].package, k / 2);
    EXPECT_EQ(t.nodes[k].cores, 16);
    EXPECT_EQ(t.nodes[k].pus, range(16 * k, 16));
  }
}

TEST(Topology, HyperthreadsCountAsPusNotCores) {
  const Topology t = machine("pack:1 numa:2 core:4 pu:2");
  EXPECT_EQ(t.cores, 8);
  EXPECT_EQ(t.pus, 16);
  ASSERT_EQ(t.nodes.size(), 2u);
  EXPECT_EQ(t.nodes[1].cores, 4);
  EXPECT_EQ(t.nodes[1].pus, range(8, 8));
}

TEST(Topology, RejectsABadSyntheticDescription) {
  const auto t = synthetic_topology("numa:banana");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("numa:banana"), std::string::npos);
}

TEST(Topology, ReadsThisMachine) {
  const auto t = read_topology();
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_GE(t->nodes.size(), 1u);
  int pus = 0;
  for (const NumaNode& n : t->nodes) pus += static_cast<int>(n.pus.size());
  EXPECT_EQ(pus, t->pus);
}

TEST(NumaPlan, OneArenaPerNodeWithItsCpus) {
  const Topology t = machine("pack:2 numa:2 core:16 pu:1");
  const NumaPlan p = plan_arenas(t, 64, true);
  ASSERT_EQ(p.arenas.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(p.arenas[k].node, k);
    EXPECT_EQ(p.arenas[k].threads, 16);
    EXPECT_EQ(p.arenas[k].cpus, range(16 * k, 16));
  }
}

TEST(NumaPlan, SpreadsThreadsInProportionToCores) {
  const Topology t = machine("pack:2 numa:2 core:16 pu:1");
  EXPECT_EQ(arena_threads(plan_arenas(t, 10, true)), (std::vector<int>{3, 3, 2, 2}));
  EXPECT_EQ(arena_threads(plan_arenas(t, 130, true)), (std::vector<int>{33, 33, 32, 32}));
  EXPECT_EQ(arena_threads(plan_arenas(t, 3, true)), (std::vector<int>{1, 1, 1}));  // no node 3
  Topology uneven;
  uneven.nodes = {{0, 0, 8, range(0, 8)}, {1, 0, 24, range(8, 24)}};
  EXPECT_EQ(arena_threads(plan_arenas(uneven, 8, true)), (std::vector<int>{2, 6}));
  EXPECT_EQ(arena_threads(plan_arenas(uneven, 5, true)), (std::vector<int>{1, 4}));
}

TEST(NumaPlan, EveryThreadIsPlannedOnAnyMachine) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    Topology t;
    const int nodes = 1 + static_cast<int>(rng() % 8);
    int cpu = 0;
    for (int k = 0; k < nodes; ++k) {
      const int cores = 1 + static_cast<int>(rng() % 40);
      t.nodes.push_back({k, 0, cores, range(cpu, cores)});
      cpu += cores;
    }
    const int threads = 1 + static_cast<int>(rng() % 300);
    const NumaPlan p = plan_arenas(t, threads, true);
    int sum = 0;
    for (const ArenaPlan& a : p.arenas) {
      EXPECT_GE(a.threads, 1);
      sum += a.threads;
      // Proportional within one thread of the exact share.
      const auto& node = t.nodes[static_cast<std::size_t>(a.node)];
      const double exact = static_cast<double>(threads) * node.cores / cpu;
      EXPECT_LT(std::abs(a.threads - exact), 1.0) << trial;
    }
    EXPECT_EQ(sum, threads) << trial;
    EXPECT_EQ(p.threads, threads);
  }
}

TEST(NumaPlan, OffMeansOneUnpinnedArena) {
  const NumaPlan p = plan_arenas(machine("pack:2 numa:2 core:16 pu:1"), 20, false);
  ASSERT_EQ(p.arenas.size(), 1u);
  EXPECT_EQ(p.arenas[0].node, -1);
  EXPECT_EQ(p.arenas[0].threads, 20);
  EXPECT_TRUE(p.arenas[0].cpus.empty());
  EXPECT_EQ(plan_arenas(Topology{}, 5, true).arenas.size(), 1u);  // nothing known: same
}

TEST(NumaPlan, CpuListIsCompact) {
  EXPECT_EQ(cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(cpu_list({5}), "5");
  EXPECT_EQ(cpu_list({}), "");
}

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

TEST(Schedule, HelpsTheQueueWithMostWorkLeft) {
  EXPECT_EQ(queue_to_help({0, 0, 0}), -1);
  EXPECT_EQ(queue_to_help({1, 5, 5, 2}), 1);
  EXPECT_EQ(queue_to_help({}), -1);
}

std::vector<TaskStat> tasks_of(const std::vector<double>& seconds) {
  std::vector<TaskStat> t;
  for (std::size_t i = 0; i < seconds.size(); ++i)
    t.push_back({static_cast<std::uint32_t>(i), 1, seconds[i], seconds[i]});
  return t;
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

TEST(Simulator, ReadsTaskStatsAndRejectsOtherFiles) {
  const std::string path = ::testing::TempDir() + "nq_stats_" + std::to_string(getpid()) + ".csv";
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
  for (const char* bad :
       {"", "id,nodes\n1,2\n", "id,nodes,seconds,estimate\n",
        "id,nodes,seconds,estimate\n1,2,x,4\n", "id,nodes,seconds,estimate\n1,2,-3,4\n"}) {
    std::ofstream(path) << bad;
    EXPECT_FALSE(read_task_stats(path).ok()) << bad;
  }
  std::remove(path.c_str());
  EXPECT_FALSE(read_task_stats(path).ok());
}

}  // namespace
}  // namespace nq
