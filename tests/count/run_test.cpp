// The runner and reducer: exact orbit counts at every thread count, against brute force and
// against the classic route; the table only as a last check.
#include <gtest/gtest.h>

#include <array>

#include "count/cost.hpp"
#include "count/count.hpp"
#include "count/known.hpp"
#include "count/memory.hpp"
#include "count/schedule.hpp"
#include "tests/brute_force.hpp"

namespace nq {
namespace {

CountResult run(int n, int threads, const std::string& kernel = "auto", int split = -1) {
  CountConfig c;
  c.n = n;
  c.threads = threads;
  c.kernel = kernel;
  c.split_rows = split;
  auto r = count(c);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : CountResult{};
}

void expect_same(const OrbitCounts& a, const OrbitCounts& b, const std::string& what) {
  EXPECT_TRUE(a.total == b.total) << what;
  EXPECT_TRUE(a.unique == b.unique) << what;
  EXPECT_TRUE(a.u1 == b.u1 && a.u2 == b.u2 && a.u4 == b.u4 && a.u8 == b.u8) << what;
}

TEST(Runner, OrbitCountsMatchBruteForce) {
  for (int n = 1; n <= 10; ++n) {
    const auto b = test::brute_counts(n);
    for (const std::string kernel : {"auto", "reference"}) {
      const OrbitCounts o = run(n, 2, kernel).orbits;
      EXPECT_EQ(static_cast<long long>(o.total), b.total) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.unique), b.unique) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.u1), b.u1) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.u2), b.u2) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.u4), b.u4) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.u8), b.u8) << n << kernel;
    }
  }
}

TEST(Runner, IdenticalAtEveryThreadCountAndMatchesTheTable) {
  for (int n = 1; n <= 15; ++n) {
    const CountResult one = run(n, 1);
    for (int t : {2, 3, 7}) {
      const CountResult r = run(n, t);
      expect_same(r.orbits, one.orbits, "n=" + std::to_string(n) + " t=" + std::to_string(t));
      EXPECT_TRUE(r.nodes == one.nodes);
      EXPECT_EQ(r.threads, t);
    }
    const auto k = known_value(n);
    ASSERT_TRUE(k.has_value());
    EXPECT_TRUE(one.orbits.total == k->total) << n;
    EXPECT_TRUE(one.orbits.unique == k->unique) << n;
  }
}

TEST(Runner, ClassicRouteAgreesWithCanonicalRoute) {
  for (int n = 4; n <= 13; ++n)
    expect_same(run(n, 2, "reference").orbits, run(n, 2).orbits, "n=" + std::to_string(n));
}

TEST(Runner, SplitDepthDoesNotChangeCounts) {
  const CountResult base = run(12, 2, "auto", 0);
  for (int split = 1; split <= 6; ++split)
    expect_same(run(12, 2, "auto", split).orbits, base.orbits, "split " + std::to_string(split));
}

TEST(Runner, RejectsBadConfig) {
  CountConfig c;
  c.n = 0;
  EXPECT_FALSE(count(c).ok());
  c.n = kMaxCountN + 1;
  EXPECT_FALSE(count(c).ok());
  c.n = 8;
  c.kernel = "warp-drive";
  auto r = count(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("warp-drive"), std::string::npos);
}

TEST(Runner, CancelStopsEarlyAndSaysSo) {
  Monitor m;
  m.cancel = true;
  CountConfig c;
  c.n = 14;
  c.threads = 2;
  auto r = count(c, &m);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->cancelled);
  EXPECT_LT(r->subproblems, r->subproblems_total);
}

// Work stealing under contention: more threads than cores (here 8 on 2), so that threads are
// preempted in the middle of a claim or a steal. Every subproblem is counted exactly once: the
// count of them, the per-arena tallies and the nodes all agree with a one-thread run, and with
// task stats every row is filled by the one thread that claimed it.
TEST(Runner, ManyThreadsStealingCountEverySubproblemOnce) {
  for (const std::string kernel : {"auto", "join", "scalar"}) {
    CountConfig c;
    c.n = 12;
    c.threads = 1;
    c.kernel = kernel;
    const auto one = count(c);
    ASSERT_TRUE(one.ok()) << one.error().message;
    for (int round = 0; round < 10; ++round) {
      c.threads = 8;
      c.task_stats = round % 2 == 1;
      const auto r = count(c);
      ASSERT_TRUE(r.ok()) << r.error().message;
      const std::string what = kernel + " round " + std::to_string(round);
      expect_same(r->orbits, one->orbits, what);
      EXPECT_TRUE(r->nodes == one->nodes) << what;
      EXPECT_EQ(r->subproblems, r->subproblems_total) << what;
      std::uint64_t by_arenas = 0, taken = 0;
      for (const ArenaResult& a : r->arenas) {
        by_arenas += a.subproblems;
        taken += a.stolen + a.helped;
      }
      EXPECT_EQ(by_arenas, r->subproblems) << what;
      EXPECT_LE(taken, by_arenas) << what;
      if (c.task_stats) {
        ASSERT_EQ(r->tasks.size(), r->subproblems_total) << what;
        u128 nodes = 0;
        for (const TaskStat& t : r->tasks) nodes += t.nodes;
        EXPECT_TRUE(nodes == r->nodes) << what;
      }
    }
  }
}

TEST(SlowRunner, N16And17MatchTheTable) {
  for (int n : {16, 17}) {
    const CountResult r = run(n, 2);
    const auto k = known_value(n);
    EXPECT_TRUE(r.orbits.total == k->total) << n;
    EXPECT_TRUE(r.orbits.unique == k->unique) << n;
  }
  expect_same(run(16, 2, "reference").orbits, run(16, 1).orbits, "n=16 classic vs canonical");
}

// ---- the join kernel and its row-split plan ---------------------------------------------

TEST(Runner, JoinKernelGivesExactTotalAndUnique) {
  for (int n = 1; n <= 16; ++n) {
    const CountResult r = run(n, 2, "join");
    const auto k = known_value(n);
    ASSERT_TRUE(k.has_value()) << n;
    EXPECT_TRUE(r.orbits.total == k->total) << n;
    EXPECT_TRUE(r.orbits.unique == k->unique) << n;
    EXPECT_EQ(r.kernel, "join") << n;
  }
}

TEST(SlowRunner, JoinKernelN17And18MatchTheTable) {
  for (int n : {17, 18}) {
    const CountResult r = run(n, 2, "join");
    const auto k = known_value(n);
    ASSERT_TRUE(k.has_value()) << n;
    EXPECT_TRUE(r.orbits.total == k->total) << n;
    EXPECT_TRUE(r.orbits.unique == k->unique) << n;
  }
}

// ---- progress weights for the join's plan (engine/count/cost.hpp) ------------------------------

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
      const RowSplitKey key = rowsplit_key(n, i);
      // A rank that stands for no orbit costs nothing; the others their join's cost.
      const std::uint64_t expected =
          key.weight ? estimate_join_cost(rowsplit_subproblem(n, key), cost_probe_rows(n)) : 0;
      EXPECT_EQ(costs[i], expected) << i;
      EXPECT_EQ(costs[i], estimate_plan_cost(plan, i));
      if (key.weight) {
        EXPECT_GT(costs[i], 0u);
      }
    }
  }
  // Other plans keep the search-tree width.
  const Plan canonical = plan_canonical(12, 3);
  EXPECT_EQ(estimate_costs(canonical)[0], estimate_cost(canonical.subproblems[0], 3));
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
  EXPECT_LT(estimate_join_cost(packed, 3), estimate_join_cost(spread, 3));
  // A subproblem with a row left without a square costs the minimum.
  Subproblem dead = spread;
  dead.blocked[3] = dead.full;
  EXPECT_EQ(estimate_join_cost(dead, 3), 1u);
}

// ---- the memory bound (engine/count/memory.hpp) -----------------------------------------------

TEST(Memory, EveryCountCarriesItsEstimate) {
  for (const std::string kernel : {"auto", "join", "scalar", "reference"}) {
    const CountResult r = run(12, 2, kernel);
    EXPECT_GT(r.memory_estimate, 0u) << kernel;
    EXPECT_LT(r.memory_estimate, std::uint64_t{1} << 30) << kernel;  // n = 12 is small
  }
  EXPECT_GT(run(2, 1).memory_estimate, 0u);  // the enumeration route too
}

TEST(Memory, JoinScratchGrowsWithTheBoardAndIsBounded) {
  const Kernel* join = find_kernel("join");
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(kernel_scratch_bytes(&best_kernel(), 20), 0u);
  EXPECT_EQ(kernel_scratch_bytes(nullptr, 20), 0u);
  std::uint64_t last = 0;
  for (int n = 4; n <= kMaxCountN; ++n) {
    const std::uint64_t bytes = kernel_scratch_bytes(join, n);
    EXPECT_GE(bytes, last) << n;
    EXPECT_LE(bytes, kJoinScratchBytes) << n;
    last = bytes;
  }
  // It levels off where the kernel's caps take over, many times above n = 18's.
  EXPECT_EQ(kernel_scratch_bytes(join, kMaxCountN), kernel_scratch_bytes(join, kMaxCountN - 1));
  EXPECT_GT(last, 5 * kernel_scratch_bytes(join, 18));
}

// The join's plan is lazy: nothing of it is stored, and the runner's per-task arrays stay
// bounded by kMaxRowSplitTasks however many ranks the plan has.
TEST(Memory, RowSplitPlanIsNotMaterialised) {
  CountConfig c;
  c.kernel = "join";
  c.threads = 1;
  for (int n : {16, 24, 28, 32}) {
    const Plan plan = plan_rowsplit(n, false);
    EXPECT_TRUE(plan.subproblems.empty()) << n;
    EXPECT_LE(plan.size(), kMaxRowSplitTasks) << n;
    EXPECT_GE(plan.size() * plan.block, plan.ranks) << n;
    c.n = n;
    const MemoryEstimate m = estimate_memory(plan, c, plan.size());
    EXPECT_EQ(m.plan, 0u) << n;
    EXPECT_LT(m.run, std::uint64_t{128} << 20) << n;
  }
}

TEST(Memory, EstimateGrowsWithThreadsAndThePlan) {
  CountConfig c;
  c.n = 14;
  c.kernel = "join";
  c.threads = 1;
  const auto plan = make_plan(c);
  ASSERT_TRUE(plan.ok());
  const std::uint64_t one = estimate_memory(*plan, c, plan->size()).total();
  c.threads = 8;
  const std::uint64_t eight = estimate_memory(*plan, c, plan->size()).total();
  EXPECT_GE(eight - one, 7 * kernel_scratch_bytes(find_kernel("join"), 14));
  EXPECT_LT(estimate_memory(*plan, c, 0).total(), eight);  // fewer counted: less to deal
  c.kernel = "scalar";
  c.threads = 2;
  const auto small = make_plan(CountConfig{.n = 10, .threads = 2, .kernel = "scalar"});
  const auto large = make_plan(c);
  ASSERT_TRUE(small.ok() && large.ok());
  EXPECT_LT(estimate_memory(*small, c, small->size()).total(),
            estimate_memory(*large, c, large->size()).total());
}

TEST(Memory, RefusesARunAboveTheLimitBeforeCounting) {
  CountConfig c;
  c.n = 13;
  c.threads = 2;
  c.kernel = "join";
  const auto fits = count(c);
  ASSERT_TRUE(fits.ok());
  c.memory_limit = fits->memory_estimate;  // exactly the estimate: allowed
  EXPECT_TRUE(count(c).ok());
  c.memory_limit = fits->memory_estimate - 1;
  Monitor m;
  const auto refused = count(c, &m);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("memory limit"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("--memory-limit"), std::string::npos);
  EXPECT_EQ(m.subproblems_done.load(), 0u);  // nothing was counted
  // count_selected (nqcount-mpi's ranks) checks too.
  const auto plan = make_plan(c);
  ASSERT_TRUE(plan.ok());
  const std::vector<std::uint64_t> first{0};
  c.memory_limit = std::uint64_t{1} << 20;  // below what the process itself takes
  EXPECT_FALSE(count_selected(c, *plan, first).ok());
  c.memory_limit = 0;  // the default: most of this machine's memory
  EXPECT_TRUE(count_selected(c, *plan, first).ok());
}

TEST(Memory, DefaultLimitIsMostOfTheMemoryAndReported) {
  EXPECT_GT(default_memory_limit(), std::uint64_t{64} << 20);
  const auto refused = check_memory(~std::uint64_t{0}, 0);
  ASSERT_TRUE(refused.has_value());
  EXPECT_NE(refused->message.find(format_bytes(default_memory_limit())), std::string::npos);
  EXPECT_FALSE(check_memory(1, 0).has_value());
}

TEST(Memory, SizesParseAsPeopleTypeThem) {
  const std::uint64_t kib = 1024, mib = kib << 10, gib = mib << 10;
  EXPECT_EQ(parse_byte_size("1000000"), 1000000u);
  EXPECT_EQ(parse_byte_size("512M"), 512 * mib);
  EXPECT_EQ(parse_byte_size("8G"), 8 * gib);
  EXPECT_EQ(parse_byte_size("8GB"), 8 * gib);
  EXPECT_EQ(parse_byte_size("8gib"), 8 * gib);
  EXPECT_EQ(parse_byte_size("1.5G"), 3 * gib / 2);
  EXPECT_EQ(parse_byte_size("64K"), 64 * kib);
  EXPECT_EQ(parse_byte_size("2T"), 2048 * gib);
  EXPECT_EQ(parse_byte_size("100B"), 100u);
  for (const char* bad : {"", "0", "0G", "-1", "abc", "8X", "8GG", "1.5", "1.", ".5G", " 8G", "8G ",
                          "1e9", "1,5G", "99999999999T", "+8G"})
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
}

TEST(Memory, BytesPrintAsPeopleReadThem) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(std::uint64_t{8} << 30), "8.0 GiB");
}

}  // namespace
}  // namespace nq
