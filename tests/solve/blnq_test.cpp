// BLNQ (engine/solve/blnq.hpp): the statistics are consistent (success means 0 final
// collisions, collisions never rise, improving moves <= neighbours <= budget, distinct <=
// successes), runs are reproducible from the seed at any thread count, and a successful run's
// permutation is a solution.
#include "solve/blnq.hpp"

#include <gtest/gtest.h>

#include "solve/verify.hpp"

namespace nq {
namespace {

TEST(Blnq, StatisticsAreConsistent) {
  for (const std::int64_t n : {4, 8, 16, 50}) {
    for (const std::uint64_t budget : {std::uint64_t(3 * n), std::uint64_t(n * n)}) {
      BlnqConfig c;
      c.n = n;
      c.budget = budget;
      c.runs = 40;
      c.seed = 9;
      c.threads = 2;
      const auto r = run_blnq(c);
      ASSERT_TRUE(r.ok()) << r.error().message;
      std::uint64_t successes = 0;
      for (const BlnqRun& run : r->runs) {
        EXPECT_EQ(run.success, run.final_collisions == 0);
        EXPECT_LE(run.final_collisions, run.initial_collisions);
        EXPECT_LE(run.improving, run.neighbours);
        EXPECT_LE(run.neighbours, budget);
        // Every kept swap lowers the collisions by at least one.
        EXPECT_LE(run.improving,
                  static_cast<std::uint64_t>(run.initial_collisions - run.final_collisions));
        // A run stops early only on success.
        if (!run.success) {
          EXPECT_EQ(run.neighbours, budget);
        }
        successes += run.success;
      }
      EXPECT_EQ(r->successes, successes);
      EXPECT_LE(r->distinct_solutions, r->successes);
      EXPECT_DOUBLE_EQ(r->success_rate, static_cast<double>(successes) / 40.0);
      for (const Permutation& p : r->solutions) EXPECT_TRUE(verify_solution(p.data(), p.size()));
    }
  }
}

TEST(Blnq, SmallBoardsSucceedSometimesWithBudgetNSquared) {
  // n = 8, L = 64: some runs must succeed and some fail (the paper's point: a fixed budget).
  const BlnqConfig c{.n = 8, .budget = 64, .runs = 500, .seed = 3};
  const auto r = run_blnq(c);
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->successes, 0u);
  EXPECT_LT(r->successes, 500u);
  EXPECT_LE(r->distinct_solutions, 92u);  // Q(8)
}

TEST(Blnq, ReproducibleFromTheSeedAtAnyThreadCount) {
  BlnqConfig c{.n = 30, .budget = 900, .runs = 25, .seed = 12345, .threads = 1};
  const auto a = run_blnq(c);
  c.threads = 2;
  const auto b = run_blnq(c);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->runs.size(), b->runs.size());
  for (std::size_t k = 0; k < a->runs.size(); ++k) {
    EXPECT_EQ(a->runs[k].seed, b->runs[k].seed);
    EXPECT_EQ(a->runs[k].initial_collisions, b->runs[k].initial_collisions);
    EXPECT_EQ(a->runs[k].final_collisions, b->runs[k].final_collisions);
    EXPECT_EQ(a->runs[k].neighbours, b->runs[k].neighbours);
    EXPECT_EQ(a->runs[k].improving, b->runs[k].improving);
  }
  EXPECT_EQ(a->solutions, b->solutions);
  c.seed = 54321;
  const auto other = run_blnq(c);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->runs[0].seed, a->runs[0].seed);
}

TEST(Blnq, RefusesBadConfigs) {
  BlnqConfig c;
  c.n = 0;
  c.budget = 1;
  EXPECT_FALSE(run_blnq(c).ok());
  c.n = 8;
  c.budget = 0;
  EXPECT_FALSE(run_blnq(c).ok());
  c.budget = 10;
  c.runs = 0;
  EXPECT_FALSE(run_blnq(c).ok());
}

}  // namespace
}  // namespace nq
