// The NUMA plan and the scheduling policy, as pure functions: synthetic machines far larger
// than this one, planned without running on them, and the simulator on costs we can reason about.
#include "engine/count/topology.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>

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

TEST(NumaPlan, OneCpuAWorkerOnlyWhereThreadsMatchTheCpus) {
  EXPECT_EQ(worker_cpus({0, 2, {4, 5}}, {0, 1}), (std::vector<int>{4, 5}));  // the node's own
  EXPECT_TRUE(worker_cpus({0, 1, {4, 5}}, {0, 1}).empty());                  // fewer threads
  EXPECT_TRUE(worker_cpus({0, 3, {4, 5}}, {0, 1}).empty());                  // more threads
  EXPECT_EQ(worker_cpus({-1, 2, {}}, {0, 3}), (std::vector<int>{0, 3}));     // no node: allowed
  EXPECT_TRUE(worker_cpus({-1, 2, {}}, {}).empty());                         // nothing known
  // Every node of a synthetic machine, planned for one thread a PU.
  const NumaPlan p = plan_arenas(machine("pack:2 numa:2 core:4 pu:2"), 32, true);
  for (const ArenaPlan& a : p.arenas) EXPECT_EQ(worker_cpus(a, {}), a.cpus) << a.node;
}

TEST(CpuPin, BindsTheThreadToOneCpuAndGivesItsMaskBack) {
  const std::vector<int> before = allowed_cpus();
  ASSERT_FALSE(before.empty());
  {
    const CpuPin pin(before.back());
    EXPECT_TRUE(pin.pinned());
    EXPECT_EQ(allowed_cpus(), std::vector<int>{before.back()});
    EXPECT_EQ(current_cpu(), before.back());
  }
  EXPECT_EQ(allowed_cpus(), before);
  for (int cpu : {-1, 1 << 20}) {  // none asked, and one this thread may not use
    const CpuPin pin(cpu);
    EXPECT_FALSE(pin.pinned()) << cpu;
    EXPECT_EQ(allowed_cpus(), before) << cpu;
  }
}

TEST(NumaPlan, CpuListIsCompact) {
  EXPECT_EQ(cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(cpu_list({5}), "5");
  EXPECT_EQ(cpu_list({}), "");
}

}  // namespace
}  // namespace nq
