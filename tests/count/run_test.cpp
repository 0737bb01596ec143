// The runner: exact orbit counts at every thread count, against brute force and
// against the classic route; the table only as a last check.
#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "base/sanitizers.hpp"
#include "engine/count/count.hpp"
#include "engine/count/known.hpp"
#include "engine/count/src/cost.hpp"
#include "engine/count/task_stats.hpp"
#include "tests/brute_force.hpp"
#include "tests/cli_runner.hpp"
#include "tests/count/run_count.hpp"
#include "tests/support/sanitized.hpp"
#include "tests/support/testing.hpp"

namespace nq {
namespace {

using test::run;

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
  c.n = kMaxN + 1;
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
  for (const char* kernel : {"auto", "join"}) {  // the join's run computes Burnside beside
    c.kernel = kernel;
    auto r = count(c, &m);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->cancelled) << kernel;
    EXPECT_EQ(r->subproblems, 0u) << kernel;  // cancelled before the plan was made
  }
}

// Work stealing under contention: more threads than cores (here 8 on 2), so that threads are
// preempted in the middle of a claim or a steal. Every subproblem is counted exactly once: the
// count of them, the per-arena tallies and the nodes all agree with a one-thread run, and with
// task stats every row is filled by the one thread that claimed it.
TEST(Runner, ManyThreadsStealingCountEverySubproblemOnce) {
  for (const std::string kernel : {"auto", "join", "scalar"}) {
    CountConfig c{.n = 12, .threads = 1, .kernel = kernel};
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

// Two counts at once sharing seats (nqcount-mpi's batches held by a rank): never more threads
// counting than seats, whatever threads each count has, and the selections' counts still add up
// to the whole.
TEST(Runner, CountsSharingSeatsNeverCountOnMoreThreadsThanSeats) {
  for (const std::string kernel : {"join", "scalar"}) {
    CountConfig c{.n = 12, .threads = 4, .kernel = kernel};
    const auto whole = count(c);
    ASSERT_TRUE(whole.ok());
    const auto plan = make_plan(c);
    ASSERT_TRUE(plan.ok());
    for (int seats : {1, 3}) {
      ThreadSeats shared(seats);
      c.seats = &shared;
      std::vector<std::uint64_t> halves[2];
      for (std::uint64_t i = 0; i < plan->size(); ++i) halves[i % 2].push_back(i);
      Expected<CountResult> parts[2] = {Error{""}, Error{""}};
      std::vector<std::thread> batches;
      for (int b = 0; b < 2; ++b)
        batches.emplace_back([&, b] { parts[b] = count_selected(c, *plan, halves[b]); });
      for (std::thread& t : batches) t.join();
      ASSERT_TRUE(parts[0].ok() && parts[1].ok()) << kernel;
      EXPECT_TRUE(parts[0]->orbits.total + parts[1]->orbits.total == whole->orbits.total)
          << kernel << " seats " << seats;
      EXPECT_GE(shared.most_taken(), 1) << kernel;
      EXPECT_LE(shared.most_taken(), seats) << kernel;
    }
  }
}

// The threads that counted (a kernel that records them, as count_selected's second kernel).
std::mutex g_counted_on_mu;
std::set<std::thread::id> g_counted_on;
void count_recording_threads(std::span<const Subproblem> in, std::span<Tally> out) {
  {
    std::lock_guard lock(g_counted_on_mu);
    g_counted_on.insert(std::this_thread::get_id());
  }
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = count_one_scalar(in[i]);
}
bool supported() {
  return true;
}
std::string_view scalar_isa() {
  return "scalar";
}
const Kernel kThreadRecording{.name = "threads",
                              .supported = &supported,
                              .count = &count_recording_threads,
                              .isa = &scalar_isa};

// The calling thread takes part in its count (so that a count always ends, whatever else holds
// TBB's threads): a one-thread count is counted on the caller alone. An MPI rank counts its
// batches so, each from a thread of its own that lives for the whole run; the batches, named in
// any order and some twice, add up to the whole.
TEST(Runner, TheCallingThreadCountsAndSelectionsAddUp) {
  CountConfig c{.n = 11, .threads = 1, .kernel = "scalar"};
  const auto whole = count(c);
  const auto plan = make_plan(c);
  ASSERT_TRUE(whole.ok() && plan.ok());
  c.recheck = true;
  const test_support::ForcedSecondKernel forced(&kThreadRecording);
  g_counted_on.clear();
  std::set<std::thread::id> callers;
  u128 total = 0;
  constexpr std::uint64_t kBatches = 8;
  std::thread caller([&] {
    callers.insert(std::this_thread::get_id());
    for (std::uint64_t b = 0; b < kBatches; ++b) {
      std::vector<std::uint64_t> batch;  // every kBatches-th subproblem, backwards, some twice
      for (std::uint64_t i = b; i < plan->size(); i += kBatches) batch.push_back(i);
      std::reverse(batch.begin(), batch.end());
      const std::size_t distinct = batch.size();
      batch.push_back(batch.front());
      const auto r = count_selected(c, *plan, batch);
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_EQ(r->subproblems_total, distinct);
      EXPECT_EQ(r->subproblems, distinct);
      EXPECT_FALSE(r->cancelled);
      total += r->orbits.total;
    }
  });
  caller.join();
  EXPECT_TRUE(total == whole->orbits.total);
  // Under ThreadSanitizer the workers are plain threads of their own, and the caller waits.
  if (!NQ_TSAN) {
    EXPECT_EQ(g_counted_on, callers);
  }
}

// Runs `body` on a thread of its own; a body still running after a minute is a deadlock, which
// ends the test program with a message instead of hanging the test run.
template <class Body>
void without_deadlock(const char* what, Body body) {
  std::promise<void> finished;
  std::future<void> done = finished.get_future();
  std::thread run([&] {
    body();
    finished.set_value();
  });
  if (done.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fprintf(stderr, "%s: still counting after 60 s, a deadlock\n", what);
    std::abort();
  }
  run.join();
}

// A program that caps TBB at one thread (global_control, the usual way to make TBB serial) still
// gets its counts, on the one thread it allows (the caller's), and is told so.
TEST(Runner, CountsUnderAGlobalCapOfOneThread) {
  without_deadlock("a count under a cap of one thread", [] {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    for (const int threads : {1, 2}) {
      CountConfig c{.n = 10, .threads = threads};
      const auto r = count(c);
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_TRUE(r->orbits.total == known_value(10)->total);
      EXPECT_EQ(r->threads, 1);
      const auto plan = make_plan(c);
      ASSERT_TRUE(plan.ok());
      const std::uint64_t first[] = {0};
      EXPECT_TRUE(count_selected(c, *plan, first).ok());
    }
  });
}

// Counts made from inside TBB's own tasks (a program counting several boards in a
// parallel_for), as many as TBB has threads: each caller waits inside a task, so the counts must
// not need threads of TBB's that are all waiting.
TEST(Runner, CountsFromInsideTbbTasksAsManyAsItsThreads) {
  if (NQ_TSAN) GTEST_SKIP() << "the test's own parallel_for runs on oneTBB's uninstrumented tasks";
  std::array<u128, 8> totals{};
  without_deadlock("counts inside TBB tasks", [&] {
    tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
    tbb::parallel_for(0, static_cast<int>(totals.size()), [&](int i) {
      CountConfig c{.n = 8 + i % 3, .threads = 2};
      const auto r = count(c);
      if (r.ok()) totals[static_cast<std::size_t>(i)] = r->orbits.total;
    });
  });
  for (std::size_t i = 0; i < totals.size(); ++i)
    EXPECT_TRUE(totals[i] == known_value(static_cast<int>(8 + i % 3))->total) << i;
}

// A count whose threads wait for a seat that never comes still stops on a cancel.
TEST(Runner, ACancelEndsACountWaitingForASeat) {
  ThreadSeats none(0);
  CountConfig c{.n = 10, .threads = 2};
  c.seats = &none;
  const auto plan = make_plan(c);
  ASSERT_TRUE(plan.ok());
  std::vector<std::uint64_t> all(plan->size());
  for (std::uint64_t i = 0; i < all.size(); ++i) all[i] = i;
  Monitor m;
  std::thread cancel([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    m.cancel = true;
  });
  const auto r = count_selected(c, *plan, all, &m);
  cancel.join();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->cancelled);
  EXPECT_EQ(r->subproblems, 0u);
  EXPECT_EQ(none.most_taken(), 0);
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

// The plan cut into pieces of a rank (CountConfig::min_tasks past the ranks): the same totals
// and unique counts, every piece cross-checked by the second kernel on the same piece.
TEST(Runner, JoinPlanCutIntoPiecesOfSplitsCountsExactly) {
  for (int n = 8; n <= test_support::sized(15, 13); ++n) {
    CountConfig c{.n = n, .threads = 2, .kernel = "join"};
    c.min_tasks = std::uint64_t{1} << 30;
    c.cross_check = 1;
    const auto r = count(c);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const auto k = known_value(n);
    ASSERT_TRUE(k.has_value()) << n;
    EXPECT_TRUE(r->orbits.total == k->total) << n;
    EXPECT_TRUE(r->orbits.unique == k->unique) << n;
    EXPECT_EQ(r->subproblems_total, make_plan(c)->splits * static_cast<std::uint64_t>(n / 2)) << n;
    EXPECT_EQ(r->cross_checked, r->subproblems_total) << n;
    EXPECT_TRUE(r->cross_check_failure.empty()) << n;
  }
}

TEST(SlowRunner, JoinKernelN16And17MatchTheTable) {
  for (int n : {16, 17}) {
    const CountResult r = run(n, 2, "join");
    const auto k = known_value(n);
    ASSERT_TRUE(k.has_value()) << n;
    EXPECT_TRUE(r.orbits.total == k->total) << n;
    EXPECT_TRUE(r.orbits.unique == k->unique) << n;
  }
}

// A checkpoint is a file a later run reads back: "-" is no such file, and the library says so
// instead of creating a file named "-".
TEST(Runner, ACheckpointNamedDashIsAnError) {
  CountConfig config;
  config.n = 8;
  config.threads = 1;
  config.checkpoint = "-";
  const auto r = count(config);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("checkpoint '-'"), std::string::npos) << r.error().message;
}

// A complete count whose checkpoint cannot be saved (a file size limit stands in for a full
// disk) keeps its counts and says what was not saved beside them.
TEST(Runner, ACompleteCountKeepsItsCountsWhenItsCheckpointCannotBeSaved) {
  const std::string journal = test::temp_path("unsaved.ckpt");
  const pid_t child = ::fork();
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit one_kilobyte{1024, 1024};
    ::setrlimit(RLIMIT_FSIZE, &one_kilobyte);
    CountConfig config;
    config.n = 12;
    config.threads = 2;
    config.checkpoint = journal;
    const auto r = count(config);
    const bool kept = r.ok() && r->orbits.total == 14200 && !r->cancelled &&
                      r->checkpoint_failure.find("cannot write") != std::string::npos;
    ::_exit(kept ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace nq
