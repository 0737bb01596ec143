// BLNQ (engine/solve/blnq.hpp): the paper's budget rule (L failed tries in a row, the counter
// back to 0 after every kept swap) checked try by try against replays, the `total` variant
// (L neighbours in all), consistent statistics and their standard errors, runs reproducible
// from the seed at any thread count, verified solutions, and the time limit.
#include "engine/solve/blnq.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "base/threads.hpp"
#include "engine/solve/verify.hpp"

namespace nq {
namespace {

// Improvements after the first b neighbours of run `seed`, for b = 0..steps: replays under the
// total rule with budget b, which follow the same random sequence as any run of that seed.
std::vector<std::uint64_t> improvements_by_prefix(std::uint32_t n, std::uint64_t seed,
                                                  std::uint64_t steps) {
  std::vector<std::uint64_t> out;
  Permutation rows;
  for (std::uint64_t b = 0; b <= steps; ++b)
    out.push_back(blnq_run(n, b, BlnqBudgetRule::total, seed, rows).improving);
  return out;
}

TEST(Blnq, ConsecutiveRuleEndsWhenTheCounterExceedsL) {
  // n = 8, L = 6: tiny, so that many runs improve after their first L tries. Each run is
  // replayed neighbour by neighbour to find where its improvements fell: no stretch of
  // failures before the end passes L, a failed run ends with exactly L + 1 failures in a row
  // (the paper's Figure 3 stops when its counter exceeds L), a successful one on an
  // improvement.
  constexpr std::uint32_t n = 8;
  constexpr std::uint64_t L = 6;
  int beyond_budget = 0, failed_runs = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    Permutation rows;
    const BlnqRun run = blnq_run(n, L, BlnqBudgetRule::consecutive, seed, rows);
    ASSERT_FALSE(run.stopped);
    const auto imp = improvements_by_prefix(n, seed, run.neighbours);
    ASSERT_EQ(imp.back(), run.improving) << seed;
    std::uint64_t last_improvement = 0;  // neighbours examined up to the last kept swap
    for (std::uint64_t t = 1; t <= run.neighbours; ++t) {
      if (imp[t] == imp[t - 1]) continue;
      EXPECT_LE(t - last_improvement - 1, L) << "seed " << seed << ": L + 1 failures before " << t;
      last_improvement = t;
    }
    if (run.success) {
      EXPECT_EQ(last_improvement, run.neighbours) << seed;
    } else {
      EXPECT_EQ(run.neighbours - last_improvement, L + 1) << seed;
      ++failed_runs;
    }
    beyond_budget += run.neighbours > L;
    EXPECT_TRUE(!run.success || verify_solution(rows.data(), n));
  }
  // The reset is observable: runs examine more than L neighbours in all.
  EXPECT_GT(beyond_budget, 10);
  EXPECT_GT(failed_runs, 0);
  // n = 2 has no solution: the run examines L + 1 neighbours, every one a failure.
  Permutation rows;
  EXPECT_EQ(blnq_run(2, 5, BlnqBudgetRule::consecutive, 1, rows).neighbours, 6u);
  EXPECT_EQ(blnq_run(2, 5, BlnqBudgetRule::total, 1, rows).neighbours, 5u);
}

TEST(Blnq, TotalRuleStopsAfterLNeighboursInAll) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Permutation rows;
    const BlnqRun run = blnq_run(16, 48, BlnqBudgetRule::total, seed, rows);
    EXPECT_LE(run.neighbours, 48u);
    if (!run.success) {
      EXPECT_EQ(run.neighbours, 48u) << seed;
    }
    // The same seed under the paper's rule goes at least as far, and further whenever it kept
    // a swap after its first L tries.
    const BlnqRun paper = blnq_run(16, 48, BlnqBudgetRule::consecutive, seed, rows);
    EXPECT_GE(paper.neighbours, run.neighbours);
    EXPECT_GE(paper.improving, run.improving);
  }
  {
    BlnqBudgetRule rule = BlnqBudgetRule::total;
    EXPECT_TRUE(parse_blnq_budget_rule("consecutive", rule));
    EXPECT_EQ(rule, BlnqBudgetRule::consecutive);
    EXPECT_TRUE(parse_blnq_budget_rule("total", rule));
    EXPECT_EQ(rule, BlnqBudgetRule::total);
    EXPECT_FALSE(parse_blnq_budget_rule("all", rule));
    EXPECT_EQ(BlnqConfig{}.rule, BlnqBudgetRule::consecutive);  // the paper's is the default
  }
}

TEST(Blnq, StatisticsAreConsistent) {
  for (const BlnqBudgetRule rule : {BlnqBudgetRule::consecutive, BlnqBudgetRule::total})
    for (const std::int64_t n : {4, 8, 16, 50}) {
      for (const std::uint64_t budget : {std::uint64_t(3 * n), std::uint64_t(n * n)}) {
        BlnqConfig c;
        c.n = n;
        c.budget = budget;
        c.runs = 40;
        c.seed = 9;
        c.threads = 2;
        c.rule = rule;
        const auto r = run_blnq(c);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->status, BlnqStatus::done);
        EXPECT_EQ(r->runs_done, 40u);
        std::uint64_t successes = 0;
        double sum = 0, sum_squares = 0;
        for (const BlnqRun& run : r->runs) {
          EXPECT_FALSE(run.stopped);
          EXPECT_EQ(run.success, run.final_collisions == 0);
          EXPECT_LE(run.final_collisions, run.initial_collisions);
          EXPECT_LE(run.improving, run.neighbours);
          // Every kept swap lowers the collisions by at least one.
          EXPECT_LE(run.improving,
                    static_cast<std::uint64_t>(run.initial_collisions - run.final_collisions));
          // A failed run spent its budget: all of it (total), or L + 1 tries in a row at its
          // end (consecutive).
          if (!run.success) {
            if (rule == BlnqBudgetRule::total) {
              EXPECT_EQ(run.neighbours, budget);
            } else {
              EXPECT_GE(run.neighbours, budget + 1 + run.improving);
            }
          }
          if (rule == BlnqBudgetRule::total) {
            EXPECT_LE(run.neighbours, budget);
          }
          successes += run.success;
          const auto final_collisions = static_cast<double>(run.final_collisions);
          sum += final_collisions;
          sum_squares += final_collisions * final_collisions;
        }
        EXPECT_EQ(r->successes, successes);
        EXPECT_LE(r->distinct_solutions, r->successes);
        EXPECT_DOUBLE_EQ(r->success_rate, static_cast<double>(successes) / 40.0);
        // The standard error of the mean: sample standard deviation / sqrt(runs).
        const double mean = sum / 40;
        const double variance = (sum_squares - 40 * mean * mean) / 39;
        EXPECT_NEAR(r->mean.final_collisions, mean, 1e-9);
        EXPECT_NEAR(r->standard_error.final_collisions, std::sqrt(variance / 40), 1e-9);
        EXPECT_TRUE(r->verified);
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
  EXPECT_GT(r->standard_error.final_collisions, 0);
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

TEST(Blnq, TimeLimitStopsTheRuns) {
  // n = 3 has no solution: with a budget of 10^12 failures in a row a run would go on for
  // hours. The limit ends it; nothing it did counts.
  const BlnqConfig c{.n = 3,
                     .budget = 1'000'000'000'000ULL,
                     .runs = 3,
                     .seed = 1,
                     .threads = 2,
                     .time_limit_seconds = 0.2};
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_blnq(c);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, BlnqStatus::time_limit);
  EXPECT_EQ(r->runs_done, 0u);
  EXPECT_EQ(r->successes, 0u);
  EXPECT_TRUE(r->solutions.empty());
  for (const BlnqRun& run : r->runs) EXPECT_TRUE(run.stopped);
  EXPECT_GE(seconds, 0.2);
  EXPECT_LT(seconds, 5);
  // A limit the runs finish within changes nothing.
  const BlnqConfig quick{.n = 16, .budget = 256, .runs = 10, .seed = 4, .time_limit_seconds = 60};
  BlnqConfig unlimited = quick;
  unlimited.time_limit_seconds = 0;
  const auto a = run_blnq(quick), b = run_blnq(unlimited);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->status, BlnqStatus::done);
  EXPECT_EQ(a->runs_done, 10u);
  EXPECT_EQ(a->solutions, b->solutions);
  EXPECT_DOUBLE_EQ(a->mean.neighbours, b->mean.neighbours);
}

// The exact mean of the initial collisions (inclusion-exclusion over each diagonal's squares)
// against every permutation of n = 1..8, and against the runs' sampled mean at larger n.
TEST(Blnq, ExactMeanInitialCollisionsOfARandomPermutation) {
  for (std::uint32_t n = 1; n <= 8; ++n) {
    std::vector<std::uint32_t> p(n);
    std::iota(p.begin(), p.end(), 0u);
    double sum = 0, count = 0;
    do {
      std::vector<int> up(2 * n), down(2 * n);
      std::int64_t collisions = 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        collisions += up[i + p[i]]++ > 0;
        collisions += down[i + n - 1 - p[i]]++ > 0;
      }
      sum += static_cast<double>(collisions);
      ++count;
    } while (std::next_permutation(p.begin(), p.end()));
    EXPECT_NEAR(blnq_expected_initial_collisions(n), sum / count, 1e-12) << "n = " << n;
  }
  // 400 runs of n = 100 and of n = 1000: within four standard errors of the exact mean.
  for (const std::int64_t n : {100, 1000}) {
    const auto r = run_blnq({.n = n, .budget = 1, .runs = 400, .seed = 11, .threads = 2});
    ASSERT_TRUE(r.ok());
    EXPECT_NEAR(r->mean.initial, blnq_expected_initial_collisions(n), 4 * r->standard_error.initial)
        << "n = " << n;
  }
}

// A run told to stop before it begins does nothing: its set-up (the shuffle, the diagonal
// counts: seconds at n = 10^8) polls the signal as its search does.
TEST(Blnq, ARunStoppedBeforeItBeginsDoesNoWork) {
  const std::atomic<bool> cancelled{true};
  detail::StopSignal stop;
  stop.cancel = &cancelled;
  Permutation rows;
  const BlnqRun run = blnq_run(1'000'000, 10, BlnqBudgetRule::consecutive, 1, rows, stop);
  EXPECT_TRUE(run.stopped);
  EXPECT_EQ(run.initial_collisions, 0);
  EXPECT_EQ(run.neighbours, 0u);
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
  c.runs = 1;
  for (const double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity(), 2e9}) {
    c.time_limit_seconds = bad;
    EXPECT_FALSE(run_blnq(c).ok()) << bad;
  }
  c.time_limit_seconds = 0;
  c.rule = static_cast<BlnqBudgetRule>(7);
  EXPECT_FALSE(run_blnq(c).ok());
  c.rule = BlnqBudgetRule::consecutive;
  c.threads = kMaxThreads + 1;
  EXPECT_FALSE(run_blnq(c).ok());
  c.threads = 2;
  c.n = 1'000'000;
  c.memory_limit = 1'000'000;
  const auto r = run_blnq(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("memory limit"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace nq
