// `nqcount estimate` and the join's lazy plan from the command line: bad input, an interval that
// holds the count's own answer, and a frontier board that starts and leaves a checkpoint on
// Ctrl-C. Runs the real binary (NQCOUNT_BIN), and its test build (NQCOUNT_TESTING_BIN) where a
// seam is needed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_runner.hpp"
#include "tests/support/sanitized.hpp"

namespace {

using namespace nq::test;  // nqcount, Outcome, expect_usage_error, read_file, temp_path

TEST(EstimateCli, BadInputIsOneErrorLineAndExitTwo) {
  expect_usage_error("estimate --n 3");
  expect_usage_error("estimate --n 33");
  expect_usage_error("estimate --n 12 --samples 0");
  expect_usage_error("estimate --n 12 --seconds -1");
  expect_usage_error("estimate --n 12 --seconds abc");
  expect_usage_error("estimate --n 12 --procs 0");
  expect_usage_error("estimate --n 12 --pieces 0");
  expect_usage_error("estimate --n 12 --check -1");
  expect_usage_error("estimate --n 12 --check 2000");
  expect_usage_error("estimate --n 12 --check 1 --check-rows -1");
  expect_usage_error("estimate --n 12 --check 1 --check-rows 12");
  expect_usage_error("estimate --n 12 --check 1 --check-rows 40");
  expect_usage_error("estimate --n 12 --check-rows 2");
  expect_usage_error("estimate --n 12 --spread -1");
  expect_usage_error("estimate --n 12 --spread nan");
  expect_usage_error("estimate");
  // The cluster's replay: ranks and rank 0's time per request in range, and only together.
  expect_usage_error("estimate --n 12 --ranks 0");
  expect_usage_error("estimate --n 12 --ranks -3");
  expect_usage_error("estimate --n 12 --ranks 2000000");
  expect_usage_error("estimate --n 12 --ranks 1e3");
  expect_usage_error("estimate --n 12 --ranks many");
  expect_usage_error("estimate --n 12 --ranks 4 --root-seconds -1");
  expect_usage_error("estimate --n 12 --ranks 4 --root-seconds 4000");
  expect_usage_error("estimate --n 12 --ranks 4 --root-seconds nan");
  expect_usage_error("estimate --n 12 --root-seconds 0.001");
  expect_usage_error("estimate --n 12 --ranks 4 --procs 0");
  expect_usage_error("estimate --n 12 --ranks 4 --cores 0");
  expect_usage_error("estimate --n 12 --ranks 4 --cores two");
  expect_usage_error("estimate --n 12 --cores 2");
  expect_usage_error("estimate --n 12 --tasks 100");
  expect_usage_error("estimate --n 12 --ranks 4 --tasks 0");
  expect_usage_error("estimate --n 12 --ranks 4 --tasks 5000000000");
}

// --ranks R --procs T: the sample's costs replayed through nqcount-mpi's dealer on R ranks of T
// threads: the wall time, the busy fraction, rank 0's load and the tail, in text and JSON; a
// slower rank 0 is busier and, slow enough, the bottleneck.
TEST(EstimateCli, RanksReplayTheDealerOnACluster) {
  const std::string args = "estimate --n 14 --samples 8 --spread 0 --threads 1 --ranks 4 --procs 2";
  const Outcome r = nqcount(args + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& c = j["cluster"];
  EXPECT_EQ(c["ranks"], 4);
  EXPECT_EQ(c["threads_per_rank"], 2);
  EXPECT_GT(c["busy_fraction"].get<double>(), 0.0);
  EXPECT_LE(c["busy_fraction"].get<double>(), 1.0);
  EXPECT_GT(c["makespan_seconds"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(c["makespan_seconds"].get<double>(), j["wall_seconds"].get<double>());
  EXPECT_GE(c["tail_seconds"].get<double>(), 0.0);
  EXPECT_LE(c["tail_seconds"].get<double>(), c["makespan_seconds"].get<double>());
  EXPECT_GT(c["root_seconds"].get<double>(), 0.0);  // the measured default
  EXPECT_GE(c["root_busy"].get<double>(), 0.0);
  // Rank 0 taking a second a request serves a run of milliseconds all the time.
  const Outcome slow = nqcount(args + " --root-seconds 1 --json");
  ASSERT_EQ(slow.status, 0) << slow.err;
  const auto s = nlohmann::json::parse(slow.out)["cluster"];
  EXPECT_EQ(s["root_seconds"], 1.0);
  EXPECT_GT(s["root_busy"].get<double>(), 0.9);
  EXPECT_LT(s["efficiency"].get<double>(), c["efficiency"].get<double>());
  // Eight threads on two shared cores: each task four times as long.
  const Outcome shared = nqcount(args + " --cores 2 --json");
  ASSERT_EQ(shared.status, 0) << shared.err;
  const auto shj = nlohmann::json::parse(shared.out);
  const auto& sh = shj["cluster"];
  EXPECT_EQ(sh["cores"], 2);
  const double core_seconds = shj["core_seconds"]["estimate"].get<double>();
  EXPECT_NEAR(sh["work_seconds"].get<double>(), 4 * core_seconds, 1e-6 * core_seconds);
  EXPECT_NEAR(c["work_seconds"].get<double>(), j["core_seconds"]["estimate"].get<double>(),
              1e-6 * j["core_seconds"]["estimate"].get<double>());
  const Outcome text = nqcount(args + " --root-seconds 1");
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* what : {"ranks of 2 threads", "busy", "rank 0", "tail", "the bottleneck",
                           "scattered as the sample's"})
    EXPECT_NE(text.out.find(what), std::string::npos) << what << "\n" << text.out;
  // The replay again with the tasks' times scattered as the sample's: about the same work (each
  // task a ratio of mean 1), a wall time no shorter than the work allows.
  const auto& sc = c["scattered"];
  EXPECT_GT(c["scatter"].get<double>(), 0.0);
  EXPECT_NEAR(sc["work_seconds"].get<double>(), c["work_seconds"].get<double>(),
              0.25 * c["work_seconds"].get<double>());
  EXPECT_GT(sc["busy_fraction"].get<double>(), 0.0);
  EXPECT_LE(sc["busy_fraction"].get<double>(), 1.0);
  EXPECT_GE(sc["makespan_seconds"].get<double>() * 8 * (1 + 1e-9),
            sc["work_seconds"].get<double>());
}

// --tasks N: the plan cut as nqcount-mpi --tasks N cuts it, into pieces of its ranks past one a
// task (n = 14: 1,716 ranks, 7 pieces each at most).
TEST(EstimateCli, TasksCutThePlanAsNqcountMpiDoes) {
  const Outcome r = nqcount(
      "estimate --n 14 --samples 8 --spread 0 --threads 1 --ranks 2 --procs 1 --tasks 20000 "
      "--json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tasks"], 1716 * 7);
  EXPECT_EQ(j["splits"], 1716);
}

// The intervals hold what a full count measures (its total, here; the seconds are a timing, left
// to scripts/estimate-check), and the same seed gives the same sample.
TEST(EstimateCli, IntervalHoldsTheCountedTotal) {
  for (int n : {12, 15}) {
    const Outcome counted = nqcount("--n " + std::to_string(n) + " --kernel join --json");
    ASSERT_EQ(counted.status, 0) << counted.err;
    const double total = nlohmann::json::parse(counted.out)["total"].get<double>();
    const std::string args = "estimate --n " + std::to_string(n) + " --samples 64 --json";
    const Outcome r = nqcount(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_LE(j["total"]["low"].get<double>(), total) << n;
    EXPECT_GE(j["total"]["high"].get<double>(), total) << n;
    EXPECT_EQ(j["samples"].get<int>(), 64);
    EXPECT_GT(j["core_seconds"]["estimate"].get<double>(), 0);
    EXPECT_LE(j["core_seconds"]["low"].get<double>(), j["core_seconds"]["estimate"].get<double>());
    EXPECT_GT(j["worker_bytes"].get<double>(), 0);
    EXPECT_GT(j["wall_seconds"].get<double>(), 0);
    const auto again = nlohmann::json::parse(nqcount(args).out);
    EXPECT_EQ(again["total"], j["total"]) << "the same seed, the same sample";
  }
  const Outcome text = nqcount("estimate --n 10 --samples 4 --procs 8");
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* field : {"core-hours", "total", "memory", "wall", "8 workers"})
    EXPECT_NE(text.out.find(field), std::string::npos) << field << "\n" << text.out;
}

// Seconds and solutions are never negative, nor their intervals' lower ends: on the smallest
// boards four draws of microseconds spread so much that the plain estimate +- t standard errors
// went below zero (n = 4: core-hours -8.4e-9 .. 1.1e-8).
TEST(EstimateCli, IntervalsStayAtOrAboveZero) {
  for (int n : {4, 5, 6}) {
    const Outcome r = nqcount("estimate --n " + std::to_string(n) + " --samples 4 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const char* field : {"core_seconds", "core_hours", "sample_core_hours", "total"}) {
      EXPECT_GE(j[field]["low"].get<double>(), 0) << n << " " << field << "\n" << r.out;
      EXPECT_GE(j[field]["high"].get<double>(), j[field]["estimate"].get<double>()) << field;
    }
  }
}

// --spread times the sample again: at least one pass more, whose spread (the machine's speed)
// goes into the core-seconds' interval only; --spread 0 times it once. The sample, and so the
// Q(n) estimate, is the same either way.
TEST(EstimateCli, PassesTimeTheSampleAgain) {
  const std::string args = "estimate --n 16 --samples 16 --json";
  const Outcome once = nqcount(args + " --spread 0");
  ASSERT_EQ(once.status, 0) << once.err;
  const auto o = nlohmann::json::parse(once.out);
  EXPECT_EQ(o["passes"].get<int>(), 1);
  EXPECT_EQ(o["speed_blocks"].get<int>(), 1);
  EXPECT_EQ(o["spread_seconds"].get<double>(), 0);
  EXPECT_EQ(o["speed_spread"].get<double>(), 0);
  EXPECT_GT(o["sampling_error"].get<double>(), 0);
  const Outcome again = nqcount(args + " --spread 30");
  ASSERT_EQ(again.status, 0) << again.err;
  const auto a = nlohmann::json::parse(again.out);
  // A count of n = 16 takes about 0.1 s: half of it bounds the passes' time, not 30 s.
  EXPECT_GE(a["passes"].get<int>(), 2);
  // The passes gathered by the eighth of the window they end in, and the first pass.
  EXPECT_GE(a["speed_blocks"].get<int>(), 2);
  EXPECT_LE(a["speed_blocks"].get<int>(), 9);
  EXPECT_LE(a["speed_blocks"].get<int>(), a["passes"].get<int>());
  EXPECT_LT(a["spread_seconds"].get<double>(), 5);
  EXPECT_GT(a["speed_spread"].get<double>(), 0) << "two timings of 16 subproblems differ";
  EXPECT_EQ(a["total"], o["total"]);
  const auto& cs = a["core_seconds"];
  EXPECT_LT(cs["low"].get<double>(), cs["estimate"].get<double>());
  EXPECT_GT(cs["high"].get<double>(), cs["estimate"].get<double>());
  // Without the machine's speed, the sampling error alone: the same estimate, a narrower
  // interval (Student's t with at least as many degrees of freedom, a smaller variance).
  const auto& ch = a["core_hours"];
  const auto& sample = a["sample_core_hours"];
  EXPECT_DOUBLE_EQ(sample["estimate"].get<double>(), ch["estimate"].get<double>());
  EXPECT_GE(sample["low"].get<double>(), ch["low"].get<double>());
  EXPECT_LE(sample["high"].get<double>(), ch["high"].get<double>());
  EXPECT_LT(sample["low"].get<double>(), sample["estimate"].get<double>());
  const Outcome text = nqcount("estimate --n 16 --samples 16");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find(" passes, the last "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" blocks: the machine's speed varied "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("at the sample's own speed: "), std::string::npos) << text.out;
}

// Where a pass over the whole sample would take more than an eighth of the window, each pass
// after the first times a part of it in turn, so that the window holds several passes and the
// speed's spread has degrees of freedom (one pass over 64 draws at n = 28 took 97 s of a 60 s
// window: 2 passes, an interval of +-72%). The window here, 0.6 s, holds several passes of two
// draws even where a draw takes a tenth of a second (AddressSanitizer on a slow CPU). The window
// is also at most half the count's estimated wall time, and where that caps it, what decides is
// how large the sample is beside the whole count, which falls as n grows: on a CPU with the
// join's AVX-512 build a pass of n = 20 (n = 18 under AddressSanitizer) fitted in an eighth of
// the window, all 64 draws a pass; n = 21 (20) took 12 (8) a pass there.
TEST(EstimateCli, LongPassesTimeTheSampleInParts) {
  const std::string args = "estimate --n " + std::to_string(nq::test_support::sized(21, 20)) +
                           " --samples 64 --threads 2 --spread 0.6";
  const Outcome once = nqcount(args + " --json");
  ASSERT_EQ(once.status, 0) << once.err;
  const auto j = nlohmann::json::parse(once.out);
  EXPECT_EQ(j["samples"].get<int>(), 64);
  EXPECT_LT(j["pass_draws"].get<int>(), 64) << once.out;
  EXPECT_GE(j["pass_draws"].get<int>(), 2) << "one draw per thread at least";
  EXPECT_GE(j["passes"].get<int>(), 3) << once.out;
  EXPECT_GE(j["speed_blocks"].get<int>(), 3) << once.out;
  EXPECT_GT(j["speed_spread"].get<double>(), 0);
  const auto& cs = j["core_seconds"];
  EXPECT_LT(cs["low"].get<double>(), cs["estimate"].get<double>());
  EXPECT_GT(cs["high"].get<double>(), cs["estimate"].get<double>());
  const Outcome text = nqcount(args);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find(" of the 64 draws each, in turn"), std::string::npos) << text.out;
}

// --check counts subproblems by the join and by the backtracking search, which agree; with
// --check-rows only a part of each (its first rows fixed), which has fewer solutions.
TEST(EstimateCli, CheckCountsByBothKernels) {
  const std::string args = "estimate --n 20 --samples 4 --check 3 --spread 0 --json";
  const Outcome whole = nqcount(args);
  ASSERT_EQ(whole.status, 0) << whole.err;
  const auto w = nlohmann::json::parse(whole.out);
  EXPECT_EQ(w["checked"].get<int>(), 3);
  EXPECT_EQ(w["check_rows"].get<int>(), 0);
  EXPECT_EQ(w["check_failure"].get<std::string>(), "");
  EXPECT_GT(w["checked_solutions"].get<double>(), 0);
  const Outcome part = nqcount(args + " --check-rows 2");
  ASSERT_EQ(part.status, 0) << part.err;
  const auto p = nlohmann::json::parse(part.out);
  EXPECT_EQ(p["checked"].get<int>(), 3);
  EXPECT_EQ(p["check_rows"].get<int>(), 2);
  EXPECT_EQ(p["check_failure"].get<std::string>(), "");
  EXPECT_LT(p["checked_solutions"].get<double>(), w["checked_solutions"].get<double>());
  const Outcome text = nqcount("estimate --n 20 --samples 4 --check 3 --check-rows 2 --spread 0");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("(their first 2 rows fixed; "), std::string::npos) << text.out;
}

// n = 28, a plan of 20M ranks in blocks of 10 (nothing stored), subproblems of hours: the count
// starts, shows progress with an ETA (from within the subproblems), and Ctrl-C leaves a valid
// checkpoint (exit 130) without waiting for a subproblem, or a pair of its chunks, to finish.
TEST(SlowEstimateCli, FrontierCountStartsAndCtrlCLeavesACheckpoint) {
  const std::string journal = temp_path("n28.ckpt");
  const std::string errfile = temp_path("n28.err");
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen(errfile.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    execl(NQCOUNT_BIN, NQCOUNT_BIN, "--n", "28", "--kernel", "join", "--threads", "2", "--progress",
          "--checkpoint", journal.c_str(), "--checkpoint-every", "1", nullptr);
    _exit(127);
  }
  // Started once the journal exists (planning is done by then), then counting for a while.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!std::filesystem::exists(journal) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(std::filesystem::exists(journal));
  // Interrupted once a progress line (every 5 s to a file) shows an ETA, in years on two threads.
  const auto counting = std::chrono::steady_clock::now();
  while (read_file(errfile).find("y  ") == std::string::npos &&
         std::chrono::steady_clock::now() - counting < std::chrono::seconds(90))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto signalled = std::chrono::steady_clock::now();
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(6))
      << "a cancel is seen within a chunk pair";
  const std::string err = read_file(errfile);
  ASSERT_TRUE(WIFEXITED(st)) << err;
  EXPECT_EQ(WEXITSTATUS(st), 130) << err;
  EXPECT_NE(err.find("progress saved in " + journal), std::string::npos) << err;
  EXPECT_NE(err.find("y  "), std::string::npos) << "an ETA in years on two threads\n" << err;
  const auto size = std::filesystem::file_size(journal);
  EXPECT_GE(size, 64u);
  EXPECT_EQ((size - 64) % 32, 0u) << "a flushed journal holds whole records";
}

// Beyond one chunk a subproblem (n >= 26: halves of millions of placements) the estimate counts
// a few chunk pairs of each sampled subproblem; its interval still holds Q(n) (the table's, which
// the estimate never reads). The test build cuts n = 20's halves into chunks of 512 placements
// (NQ_TEST_JOIN_CHUNK, one thread), so that its subproblems are dozens of chunk pairs as n = 26's
// are; n = 26 itself takes minutes of two cores (perf/results/log.md).
TEST(SlowEstimateCli, SampledChunkPairsStillHoldTheTotal) {
  const Outcome r = shell("NQ_TEST_JOIN_CHUNK=512 " NQCOUNT_TESTING_BIN
                          " estimate --n 20 --samples 64 --threads 1 --spread 0 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["sampled_within"].get<int>(), 32);
  const double q20 = 39029188884.0;
  EXPECT_LE(j["total"]["low"].get<double>(), q20);
  EXPECT_GE(j["total"]["high"].get<double>(), q20);
  // Without the seam the same estimate counts every sampled subproblem whole.
  const Outcome whole = nqcount("estimate --n 20 --samples 64 --threads 1 --spread 0 --json");
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_EQ(nlohmann::json::parse(whole.out)["sampled_within"], 0);
}

}  // namespace
