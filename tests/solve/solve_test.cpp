// The solver (engine/solve/solve.*, engine/solve/src/qs4.cpp) and the verifier
// (engine/solve/verify.*). Every solution is checked here by an independent counter-based check,
// not by the verifier alone.
#include "engine/solve/solve.hpp"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "base/threads.hpp"
#include "engine/solve/src/local_search.hpp"
#include "engine/solve/verify.hpp"
#include "tests/support/sanitized.hpp"

namespace {

using nq::Permutation;
using nq::SolveConfig;
using nq::SolveMethod;
using nq::SolveStatus;

// The plainest possible check: one int counter per row and per diagonal.
template <class Rows>
bool is_solution(const Rows& p, bool modular = false) {
  const std::size_t n = p.size();
  // counts[0, n): rows; [n, 3n): i + row; [3n, 5n): i - row + n.
  std::vector<int> counts(5 * n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] >= n) return false;
    const std::size_t s = modular ? (i + p[i]) % n : i + p[i];
    const std::size_t d = modular ? (i + n - p[i]) % n : i + n - p[i];
    if (++counts[p[i]] > 1 || ++counts[n + s] > 1 || ++counts[3 * n + d] > 1) return false;
  }
  return true;
}

nq::SolveResult run(SolveConfig c) {
  auto r = nq::solve(c);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : nq::SolveResult{};
}

SolveConfig config(std::int64_t n, SolveMethod m = SolveMethod::qs4, std::uint64_t seed = 1,
                   int threads = 2) {
  SolveConfig c;
  c.n = n;
  c.method = m;
  c.seed = seed;
  c.threads = threads;
  return c;
}

TEST(Solve, EveryMethodReturnsVerifiedSolutionsFor4To300) {
  for (SolveMethod m :
       {SolveMethod::qs4, SolveMethod::qs4_plain, SolveMethod::minconflict, SolveMethod::swap})
    for (std::uint64_t seed = 1; seed <= nq::test_support::sized(3u, 1u); ++seed)
      for (int n = 4; n <= 300; ++n) {
        const auto r = run(config(n, m, seed));
        ASSERT_EQ(r.status, SolveStatus::found) << nq::solve_method_name(m) << " n=" << n;
        ASSERT_EQ(r.solutions.size(), 1u);
        EXPECT_TRUE(r.verified);
        ASSERT_EQ(r.solutions[0].size(), static_cast<std::size_t>(n));
        EXPECT_TRUE(is_solution(r.solutions[0]))
            << nq::solve_method_name(m) << " n=" << n << " seed=" << seed;
      }
}

TEST(Solve, LargeBoardsUseTheTiledStartUpAndVerify) {
  for (std::int64_t n : {20000, 65537, 300000, 1000003}) {
    const auto r = run(config(n));
    ASSERT_EQ(r.status, SolveStatus::found) << n;
    EXPECT_TRUE(r.verified);
    EXPECT_TRUE(is_solution(r.solutions[0])) << n;
  }
}

TEST(Solve, SmallBoards) {
  auto one = run(config(1));
  ASSERT_EQ(one.status, SolveStatus::found);
  EXPECT_EQ(one.solutions.at(0), Permutation{0});
  for (int n : {2, 3}) {
    const auto r = run(config(n));
    EXPECT_EQ(r.status, SolveStatus::no_solution) << n;
    EXPECT_TRUE(r.solutions.empty());
  }
}

TEST(Solve, SameSeedSameSolutionAtAnyThreadCount) {
  for (std::int64_t n : {8, 57, 1000, 200000}) {
    const auto a = run(config(n, SolveMethod::qs4, 42, 2));
    const auto b = run(config(n, SolveMethod::qs4, 42, 2));
    const auto c = run(config(n, SolveMethod::qs4, 42, 1));
    const auto d = run(config(n, SolveMethod::qs4, 42, 3));
    ASSERT_EQ(a.status, SolveStatus::found);
    EXPECT_EQ(a.solutions, b.solutions) << n;
    EXPECT_EQ(a.restarts, b.restarts) << n;
    EXPECT_EQ(a.solutions, c.solutions) << n;
    EXPECT_EQ(a.solutions, d.solutions) << n;
  }
  for (SolveMethod m : {SolveMethod::qs4_plain, SolveMethod::minconflict, SolveMethod::swap}) {
    const auto a = run(config(30, m, 9, 2));
    const auto b = run(config(30, m, 9, 2));
    EXPECT_EQ(a.solutions, b.solutions) << nq::solve_method_name(m);
  }
  // And different seeds give different solutions (at n = 1000 a repeat would be a bug).
  EXPECT_NE(run(config(1000, SolveMethod::qs4, 1)).solutions,
            run(config(1000, SolveMethod::qs4, 2)).solutions);
}

TEST(Solve, FiveDistinctSolutions) {
  for (std::int64_t n : {6, 8, 50, 1000}) {
    SolveConfig c = config(n);
    c.solutions = 5;
    const auto r = run(c);
    if (n == 6) {  // 6 has only 4 solutions
      EXPECT_EQ(r.status, SolveStatus::exhausted);
      EXPECT_EQ(r.solutions.size(), 4u);
      continue;
    }
    ASSERT_EQ(r.status, SolveStatus::found) << n;
    ASSERT_EQ(r.solutions.size(), 5u);
    std::set<std::vector<std::uint32_t>> distinct;
    for (const auto& p : r.solutions) {
      EXPECT_TRUE(is_solution(p));
      distinct.insert(std::vector<std::uint32_t>(p.begin(), p.end()));
    }
    EXPECT_EQ(distinct.size(), 5u) << n;
    EXPECT_TRUE(r.verified);
  }
}

TEST(Solve, EveryCyclicShiftOfAModularSolutionIsASolution) {
  for (std::int64_t n : {1, 5, 7, 11, 13, 25, 101, 1009}) {
    for (SolveMethod m : {SolveMethod::qs4, SolveMethod::minconflict}) {
      SolveConfig c = config(n, m, 3);
      c.modular = true;
      const auto r = run(c);
      ASSERT_EQ(r.status, SolveStatus::found) << n;
      EXPECT_TRUE(r.verified);
      const Permutation& p = r.solutions.at(0);
      EXPECT_TRUE(is_solution(p, true)) << n;
      if (n > 1) {
        EXPECT_FALSE(r.modular_route.empty());
      }
      std::vector<std::uint32_t> shifted(n);
      for (std::int64_t s = 0; s < n; ++s) {
        for (std::int64_t i = 0; i < n; ++i) shifted[i] = p[(i + s) % n];
        ASSERT_TRUE(is_solution(shifted)) << "n=" << n << " shift " << s;
      }
    }
  }
  // Small modular boards are found by the toroidal search itself.
  SolveConfig c = config(7);
  c.modular = true;
  EXPECT_EQ(run(c).modular_route, "search");
}

TEST(Solve, BadInputIsAnError) {
  EXPECT_FALSE(nq::solve(config(0)).ok());
  EXPECT_FALSE(nq::solve(config(-5)).ok());
  EXPECT_FALSE(nq::solve(config(nq::kMaxSolveN + 1)).ok());
  for (std::int64_t n : {2, 3, 4, 9, 12, 1000}) {
    SolveConfig c = config(n);
    c.modular = true;
    const auto r = nq::solve(c);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_NE(r.error().message.find("gcd(n, 6) = 1"), std::string::npos);
  }
  SolveConfig c = config(10);
  c.solutions = 0;
  EXPECT_FALSE(nq::solve(c).ok());
  c = config(10);
  c.max_tries = 100;  // qs4 has no such limit
  EXPECT_FALSE(nq::solve(c).ok());
}

TEST(Solve, TimeLimitStopsCleanly) {
  SolveConfig c = config(200000, SolveMethod::swap);  // hill climbing: hopeless at this size
  c.time_limit_seconds = 0.2;
  const auto r = run(c);
  EXPECT_EQ(r.status, SolveStatus::time_limit);
  EXPECT_TRUE(r.solutions.empty());
}

// `verified` speaks of the answer: a run that found nothing (or too little) is not verified,
// and the attempts it spent are counted.
TEST(Solve, FailedRunsAreNotVerifiedAndCountTheirRestarts) {
  SolveConfig c = config(60, SolveMethod::swap);
  c.max_tries = 1;  // every attempt gives up at its first failed swap
  c.max_restarts = std::numeric_limits<std::uint64_t>::max();  // only the time limit ends it
  c.time_limit_seconds = 0.3;
  const auto timed = run(c);
  EXPECT_EQ(timed.status, SolveStatus::time_limit);
  EXPECT_FALSE(timed.verified);
  EXPECT_GT(timed.restarts, 10u);

  c = config(8);
  c.solutions = 93;  // n = 8 has 92
  const auto few = run(c);
  EXPECT_EQ(few.status, SolveStatus::exhausted);
  EXPECT_EQ(few.solutions.size(), 92u);
  EXPECT_FALSE(few.verified);

  // Asked for every solution there is, a small board gives them all, whatever the seed (the
  // local search alone missed one of n = 8's 92 about one run in ten), and they are distinct.
  for (std::uint64_t seed = 1; seed <= nq::test_support::sized(20u, 5u); ++seed) {
    c = config(8);
    c.seed = seed;
    c.solutions = 92;
    const auto all = run(c);
    ASSERT_EQ(all.status, SolveStatus::found) << "seed " << seed;
    ASSERT_TRUE(all.verified);
    std::set<std::vector<std::uint32_t>> distinct;
    for (const Permutation& p : all.solutions) distinct.emplace(p.begin(), p.end());
    EXPECT_EQ(distinct.size(), 92u) << "seed " << seed;
  }

  c = config(1);
  c.solutions = 2;  // n = 1 has one
  const auto one = run(c);
  EXPECT_EQ(one.status, SolveStatus::exhausted);
  EXPECT_FALSE(one.verified);
}

// minconflict reaches large boards (its repair once gave up from n = 10^4 up); both comparison
// methods refuse boards beyond their measured range, saying why and what to use.
TEST(Solve, ComparisonMethodsReachTheirRangeAndRefuseBeyondIt) {
  const auto r = run(config(20000, SolveMethod::minconflict, 1, 1));
  ASSERT_EQ(r.status, SolveStatus::found);
  EXPECT_TRUE(is_solution(r.solutions.at(0)));
  EXPECT_EQ(r.restarts, 0u);
  for (const auto& [method, limit] : {std::pair{SolveMethod::minconflict, nq::kMaxMinconflictN},
                                      std::pair{SolveMethod::swap, nq::kMaxSwapN}}) {
    const auto refused = nq::solve(config(limit + 1, method));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("use --method qs4"), std::string::npos)
        << refused.error().message;
  }
}

// A search that cannot succeed ends: swap giving up at its first failed try restarts until
// the restart limit (1000 restarts in a row by default), whatever the thread count, and says so.
TEST(Solve, HopelessSearchesEndAtTheRestartLimit) {
  for (const int threads : {1, 2}) {
    SolveConfig c = config(50, SolveMethod::swap, 1, threads);
    c.max_tries = 1;
    const auto r = run(c);
    EXPECT_EQ(r.status, SolveStatus::restart_limit) << threads;
    EXPECT_EQ(r.restarts, nq::kDefaultMaxRestarts + 1) << threads;  // attempts 0..1000 failed
    EXPECT_FALSE(r.verified);
    EXPECT_TRUE(r.solutions.empty());
    c.max_restarts = 5;
    EXPECT_EQ(run(c).restarts, 6u) << threads;
    c.solutions = 3;  // the path of --solutions K: failures in a row, from the last success
    EXPECT_EQ(run(c).status, SolveStatus::restart_limit) << threads;
  }
  // A limit that a working search never meets changes nothing.
  SolveConfig c = config(30, SolveMethod::swap, 4);
  const auto unlimited = run(c);
  c.max_restarts = 1'000'000;
  EXPECT_EQ(run(c).solutions, unlimited.solutions);
  // A modular search's last allowed attempt is the construction: it still finds one.
  c = config(13, SolveMethod::qs4, 2);
  c.modular = true;
  c.max_restarts = 1;
  const auto modular = run(c);
  EXPECT_EQ(modular.status, SolveStatus::found);
  EXPECT_TRUE(is_solution(modular.solutions.at(0), true));
}

// Every field of a config is checked: an Error, never a hang or a quiet default.
TEST(Solve, EveryBadConfigIsAnError) {
  SolveConfig c = config(8);
  c.method = static_cast<SolveMethod>(99);
  auto r = nq::solve(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not a SolveMethod"), std::string::npos) << r.error().message;
  for (const double bad : {std::nan(""), std::numeric_limits<double>::infinity(), -1.0, 2e9}) {
    c = config(8);
    c.time_limit_seconds = bad;
    r = nq::solve(c);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("--time-limit"), std::string::npos) << r.error().message;
  }
  c = config(8);
  c.threads = nq::kMaxThreads + 1;
  EXPECT_FALSE(nq::solve(c).ok());
  c = config(1'000'000);
  c.memory_limit = 1'000'000;  // bytes: below what a million columns take
  r = nq::solve(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("memory limit"), std::string::npos) << r.error().message;
  c.memory_limit = nq::solve_memory_estimate(c);  // at the estimate: it runs
  EXPECT_TRUE(nq::solve(c).ok());
  EXPECT_FALSE(nq::solve_runs(config(8), 0).ok());
}

// What the estimate counts grows with n, the method's arrays and the attempts at once.
TEST(Solve, MemoryEstimateFollowsTheArrays) {
  const std::uint64_t qs4 = nq::solve_memory_estimate(config(100'000'000, SolveMethod::qs4, 1, 2));
  const std::uint64_t plain =
      nq::solve_memory_estimate(config(100'000'000, SolveMethod::qs4_plain, 1, 2));
  EXPECT_GT(qs4, 400'000'000u);      // the permutation alone: 4 bytes a column
  EXPECT_LT(qs4, 1'500'000'000u);    // one attempt (the threads split it), bitsets
  EXPECT_GT(plain, 4'000'000'000u);  // two attempts with 32-bit counters per diagonal
  EXPECT_LT(nq::solve_memory_estimate(config(1000)), 64u << 20);
}

TEST(Solve, CancelStops) {
  nq::Monitor monitor;
  monitor.cancel = true;
  auto r = nq::solve(config(100000, SolveMethod::swap), &monitor);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, SolveStatus::cancelled);
}

TEST(Verify, AcceptsSolutionsAndRejectsCorruptedOnes) {
  const auto r = run(config(500, SolveMethod::qs4, 5));
  const Permutation good = r.solutions.at(0);
  ASSERT_TRUE(nq::verify_solution(good.data(), good.size()));
  std::mt19937_64 rng(11);
  int rejected = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    Permutation bad = good;
    const std::size_t i = rng() % bad.size(), j = rng() % bad.size();
    switch (trial % 3) {
      case 0:
        std::swap(bad[i], bad[j]);
        break;  // a permutation, usually attacked
      case 1:
        bad[i] = bad[j];
        break;  // a repeated row (unless i == j)
      default:
        bad[i] = static_cast<std::uint32_t>(rng() % 600);
        break;  // maybe out of range
    }
    std::string why;
    const bool ok = nq::verify_solution(bad.data(), bad.size(), false, &why);
    EXPECT_EQ(ok, is_solution(bad)) << trial;
    if (!ok) {
      ++rejected;
      EXPECT_FALSE(why.empty());
    }
  }
  EXPECT_GT(rejected, 1500);
  // Every queen on one diagonal; a solution that is not modular; empty boards.
  Permutation diagonal(9);
  std::iota(diagonal.begin(), diagonal.end(), 0u);
  EXPECT_FALSE(nq::verify_solution(diagonal.data(), diagonal.size()));
  const Permutation eight{2, 4, 6, 0, 3, 1, 7, 5};  // one of the 92, not toroidal
  EXPECT_TRUE(nq::verify_solution(eight.data(), 8));
  EXPECT_FALSE(nq::verify_solution(eight.data(), 8, true));
  EXPECT_FALSE(nq::verify_solution(eight.data(), 0));
}

TEST(Verify, RejectsCorruptionAtLargeN) {
  // p(i) = 2i mod n is a (modular) solution for gcd(n, 6) = 1.
  const std::uint32_t n = 3'000'017;
  ASSERT_NE(n % 2, 0u);
  ASSERT_NE(n % 3, 0u);
  Permutation p(n);
  for (std::uint64_t i = 0; i < n; ++i) p[i] = static_cast<std::uint32_t>(2 * i % n);
  {
    ASSERT_TRUE(nq::verify_solution(p.data(), n));
    ASSERT_TRUE(nq::verify_solution(p.data(), n, true));
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 6; ++trial) {
      Permutation bad = p;
      const std::size_t i = rng() % n, j = rng() % n;
      if (i == j) continue;
      if (trial % 2)
        bad[i] = bad[j];
      else
        std::swap(bad[i], bad[j]);
      EXPECT_EQ(nq::verify_solution(bad.data(), n), is_solution(bad)) << trial;
      EXPECT_FALSE(nq::verify_solution(bad.data(), n)) << trial;
    }
    Permutation tail = p;
    tail[n - 1] = n;  // out of range, in the last column
    EXPECT_FALSE(nq::verify_solution(tail.data(), n));
  }
}

TEST(Verify, PartsCheckedInParallelCatchClashesBetweenParts) {
  // From n = 2^21 on, the columns are split into parts with their own tables; a clash between
  // two parts shows only in the final pass over the tables. The verdict and the message must
  // not depend on the thread count.
  const std::uint32_t n = 3'000'017;
  Permutation p(n);
  for (std::uint64_t i = 0; i < n; ++i) p[i] = static_cast<std::uint32_t>(2 * i % n);
  auto check = [&](const Permutation& q, int threads, std::string& why) {
    tbb::task_arena arena(threads);
    bool ok = false;
    arena.execute([&] { ok = nq::verify_solution(q.data(), n, false, &why); });
    return ok;
  };
  std::string why;
  for (int threads : {1, 2, 4}) EXPECT_TRUE(check(p, threads, why)) << threads;
  const std::size_t first = 100, last = n - 100, middle = n / 2 + 7;
  std::vector<Permutation> bad(4, p);
  std::swap(bad[0][first], bad[0][last]);  // moved across parts: diagonals clash
  bad[1][last] = bad[1][first];            // a row used in the first and the last part
  bad[2][middle] = bad[2][first];          // and in the first and the middle
  bad[3][first + 1] = bad[3][first];       // inside one part
  for (std::size_t k = 0; k < bad.size(); ++k) {
    ASSERT_FALSE(is_solution(bad[k])) << k;
    std::string one;
    EXPECT_FALSE(check(bad[k], 1, one)) << k;
    EXPECT_FALSE(one.empty()) << k;
    for (int threads : {2, 4}) {
      std::string many;
      EXPECT_FALSE(check(bad[k], threads, many)) << k << " threads " << threads;
      EXPECT_EQ(many, one) << k << " threads " << threads;
    }
  }
}

// An attempt told to stop before it begins does no work: every method's set-up passes (arrays
// of gigabytes at its largest n) poll the signal too, not only its search loop. The textbook
// QS4 had polled its repair only, and minconflict only after its set-up.
TEST(Attempts, AnAttemptStoppedBeforeItBeginsDoesNoWork) {
  const std::atomic<bool> cancelled{true};
  nq::detail::StopSignal stop;
  stop.cancel = &cancelled;
  using nq::detail::AttemptOutcome;
  const nq::detail::AttemptOptions o{200'000, 3, false, false, 0};
  for (const auto attempt : {&nq::detail::qs4_attempt, &nq::detail::qs4_plain_attempt,
                             &nq::detail::minconflict_attempt, &nq::detail::swap_attempt}) {
    Permutation rows;
    nq::detail::AttemptStats stats;
    EXPECT_EQ(attempt(o, rows, stop, stats), AttemptOutcome::stopped);
    EXPECT_EQ(stats.conflict_free + stats.repaired + stats.rescans, 0u);
  }
}

TEST(Attempts, QS4StartUpLeavesFewQueensToRepair) {
  // The point of the tiled start-up: nearly every queen is placed conflict-free.
  nq::detail::AttemptOptions o{2'000'000, 7, false, true, 0};
  Permutation rows;
  nq::detail::AttemptStats stats;
  const nq::detail::StopSignal never;
  ASSERT_EQ(nq::detail::qs4_attempt(o, rows, never, stats), nq::detail::AttemptOutcome::solved);
  EXPECT_TRUE(is_solution(rows));
  EXPECT_LT(stats.repaired, 2000u);
  EXPECT_EQ(stats.conflict_free + stats.repaired, 2'000'000u);
}

// solve --batch runs every size on one SolveThreads (an arena per size made a batch slow down
// as it went): the same answers as solve() alone, size after size, and a count that does not
// match its threads is refused rather than run on another.
TEST(Solve, SolveThreadsKeepOneArenaForManySolvesWithTheSameAnswers) {
  nq::SolveThreads threads(2);
  EXPECT_EQ(threads.threads(), 2);
  for (int round = 0; round < 2; ++round)
    for (const std::int64_t n : {1, 2, 4, 8, 10, 57, 1000, 20000}) {
      const SolveConfig c = config(n, SolveMethod::qs4, 9, 2);
      const auto shared = nq::solve(c, nullptr, threads);
      ASSERT_TRUE(shared.ok()) << shared.error().message;
      const nq::SolveResult alone = run(c);
      EXPECT_EQ(shared->status, alone.status) << n;
      EXPECT_EQ(shared->restarts, alone.restarts) << n;
      EXPECT_EQ(shared->solutions, alone.solutions) << n;
      EXPECT_EQ(shared->threads, 2) << n;
    }
  const auto other = nq::solve(config(8, SolveMethod::qs4, 9, 3), nullptr, threads);
  EXPECT_FALSE(other.ok());
}

}  // namespace
