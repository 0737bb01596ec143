// Defects a new (or hostile) user found, each held by a test on the real binary (NQCOUNT_BIN):
// claims of verification, thread counts, options that do not apply, numbers in other bases,
// the --threads bound, the memory limit's message, and SIGINT / SIGTERM in solve.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_runner.hpp"

namespace {

using nq::test::expect_usage_error;
using nq::test::nqcount;
using nq::test::Outcome;
using nq::test::read_file;
using nq::test::temp_path;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `verified` means that what was written was checked: a run that wrote nothing is not verified.
TEST(HardeningCli, FailedSolveRunsAreNotVerified) {
  const Outcome few = nqcount("solve --n 8 --solutions 93 --seed 1 --json");
  EXPECT_EQ(few.status, 1) << few.err;
  const auto j = nlohmann::json::parse(few.out);
  EXPECT_EQ(j["verified"], false) << few.out;

  // Every attempt of swap with one try fails at once: the run restarts until the time limit.
  const Outcome timed =
      nqcount("solve --n 60 --method swap --max-tries 1 --time-limit 0.5 --seed 3 --json");
  EXPECT_EQ(timed.status, 1) << timed.err;
  EXPECT_TRUE(has(timed.err, "time limit")) << timed.err;
  const auto t = nlohmann::json::parse(timed.out);
  EXPECT_EQ(t["verified"], false) << timed.out;
  EXPECT_GT(t["restarts"].get<std::uint64_t>(), 10u) << timed.out;
}

TEST(HardeningCli, OneQueenHasOneSolutionOnly) {
  const Outcome two = nqcount("solve --n 1 --solutions 2");
  EXPECT_EQ(two.status, 1) << two.err;
  EXPECT_TRUE(two.out.empty()) << two.out;
  EXPECT_TRUE(has(two.err, "found only 1")) << two.err;
  const Outcome one = nqcount("solve --n 1");
  EXPECT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, "1\n");
}

// More threads than the hardware: our warning (as count's), no TBB warning, the real count, in
// every command that takes --threads.
TEST(HardeningCli, SolveOversubscribedWarnsLikeCountAndReportsItsThreads) {
  const int threads = static_cast<int>(std::thread::hardware_concurrency()) + 3;
  const std::string t = std::to_string(threads);
  const Outcome solve = nqcount("solve --n 40 --seed 5 --json --threads " + t);
  ASSERT_EQ(solve.status, 0) << solve.err;
  EXPECT_EQ(nlohmann::json::parse(solve.out)["threads"], threads);
  const Outcome count = nqcount("--n 8 --json --threads " + t);
  ASSERT_EQ(count.status, 0) << count.err;
  const Outcome blnq = nqcount("solve --method blnq --n 16 --runs 8 --json --threads " + t);
  ASSERT_EQ(blnq.status, 0) << blnq.err;
  EXPECT_EQ(nlohmann::json::parse(blnq.out)["threads"], threads);
  const Outcome estimate = nqcount("estimate --n 12 --samples 4 --json --threads " + t);
  ASSERT_EQ(estimate.status, 0) << estimate.err;
  for (const Outcome* r : {&solve, &count, &blnq, &estimate}) {
    EXPECT_TRUE(has(r->err, "nqcount: warning: --threads " + t + " is more than the")) << r->err;
    EXPECT_FALSE(has(r->err, "TBB")) << r->err;
    EXPECT_EQ(std::count(r->err.begin(), r->err.end(), '\n'), 1) << r->err;
  }
}

// Options that say nothing together, or alone: refused rather than quietly ignored.
TEST(HardeningCli, OptionsWithoutEffectAreRefused) {
  expect_usage_error("--n 8 --progress --no-progress");
  expect_usage_error("--n 8 --checkpoint-every 5");
  expect_usage_error("--n 8 --cross-check-seed 3");  // n = 8: nothing is cross-checked
  expect_usage_error("--n 8 --cross-check 0 --cross-check-seed 3");
  EXPECT_EQ(nqcount("--n 8 --cross-check 0.5 --cross-check-seed 3").status, 0);
}

// Numbers that a command reads itself follow the options' rule: decimal, no leading zero, no
// padding, whole where whole is meant.
TEST(HardeningCli, HandReadNumbersAreStrictDecimals) {
  for (const char* args : {"edit --perm 2,4,1,3 --del ' 2,1'", "edit --perm 2,4,1,3 --del '2, 1'",
                           "edit --perm 2,4,1,3 --del 02,1", "edit --perm 2,4,1,3 --del 2.0,1",
                           "edit --perm 2,4,1,3 --inc 00.5,0.5", "orbit --perm 02,4,1,3",
                           "solve --method blnq --n 8 --budget 0010",
                           "solve --n 13 --modular --ldpc 03,4", "--n 8 --memory-limit 010M"})
    expect_usage_error(args);
  EXPECT_EQ(nqcount("edit --perm 2,4,1,3 --del 2,1").status, 0);
  EXPECT_EQ(nqcount("edit --perm 2,4,1,3 --inc 0.5,0.5").status, 0);
  EXPECT_EQ(nqcount("solve --method blnq --n 8 --budget 10 --runs 2").status, 0);
}

TEST(HardeningCli, OptionsThatDoNotApplyAreRefused) {
  for (const char* option : {"--threads 2", "--kernel scalar", "--split-depth 2",
                             "--checkpoint ck.bin", "--checkpoint-every 5", "--numa off",
                             "--task-stats t.csv", "--memory-limit 1G", "--progress"})
    expect_usage_error("count --n 8 --algo dp " + std::string(option));
  EXPECT_EQ(nqcount("count --n 8 --algo dp --no-progress").status, 0);
  expect_usage_error("solve --n 8 --json --format board");
  expect_usage_error("solve --n 8 --method qs4 --max-tries 5");
}

TEST(HardeningCli, ThreadsAboveTheBoundAreRefused) {
  for (const char* threads : {"4097", "65536"}) {
    expect_usage_error("count --n 8 --threads " + std::string(threads));
    expect_usage_error("solve --n 8 --threads " + std::string(threads));
    expect_usage_error("topology --threads " + std::string(threads));
  }
  EXPECT_EQ(nqcount("topology --threads 4096 --json").status, 0);
}

// Every integer option is plain decimal: 010 is not octal 8, 0x8 is not hex, no padding.
TEST(HardeningCli, NumbersAreDecimalOnly) {
  for (const char* n : {"010", "0x8", "0X8", "' 5'", "'5 '", "+5", "-5", "5.0", "1e1", "0b101",
                        "0o10", "''", "five", "8k"})
    expect_usage_error("count --n " + std::string(n));
  for (const char* args :
       {"solve --n 8 --seed 010", "solve --n 8 --seed 0x10", "solve --n 8 --time-limit 0x10",
        "solve --n 8 --time-limit ' 1'", "solve --n 8 --time-limit inf",
        "solve --n 8 --time-limit -1", "table --n 08", "list --n 6 --limit 0x2", "orbits --n 06"})
    expect_usage_error(args);
  const Outcome ten = nqcount("count --n 10 --json");
  ASSERT_EQ(ten.status, 0) << ten.err;
  EXPECT_EQ(nlohmann::json::parse(ten.out)["n"], 10);
  EXPECT_EQ(nqcount("solve --n 8 --time-limit 2.5 --seed 0").status, 0);
  EXPECT_EQ(nqcount("solve --n 8 --time-limit 2.5e1 --seed 0").status, 0);  // as JSON writes it
}

TEST(HardeningCli, DuplicatedOptionsAreRefused) {
  expect_usage_error("count --n 8 --n 9");
  expect_usage_error("solve --n 8 --seed 1 --seed 2");
}

// The memory limit compares bytes, and its message says both sizes exactly enough to be true.
TEST(HardeningCli, MemoryLimitAtTheEstimateIsAccepted) {
  const Outcome probe = nqcount("--n 10 --threads 1 --json");
  ASSERT_EQ(probe.status, 0) << probe.err;
  const auto estimate =
      nlohmann::json::parse(probe.out)["memory_estimate_bytes"].get<std::uint64_t>();
  const Outcome at = nqcount("--n 10 --threads 1 --memory-limit " + std::to_string(estimate));
  EXPECT_EQ(at.status, 0) << at.err;
  const std::string below = std::to_string(estimate - 1);
  const Outcome under = nqcount("--n 10 --threads 1 --memory-limit " + below);
  EXPECT_EQ(under.status, 2) << under.err;
  EXPECT_TRUE(has(under.err, std::to_string(estimate) + " bytes")) << under.err;
  EXPECT_TRUE(has(under.err, below + " bytes")) << under.err;
  EXPECT_TRUE(has(at.out, std::to_string(estimate) + " bytes")) << at.out;
}

// SIGINT and SIGTERM during a solve: 130 and 143, nothing written.
TEST(HardeningCli, SolveInterruptedExits130And143) {
  const std::string out = temp_path("interrupted_solve.txt");
  for (const int sig : {SIGINT, SIGTERM}) {
    int status = -1;
    // A run whose attempts all fail: it only ends by a signal. A slow build may not have
    // installed its handlers yet after the first wait: then wait longer.
    for (int wait_ms = 300; wait_ms <= 2700 && status == -1; wait_ms *= 3) {
      const pid_t pid = fork();
      if (pid == 0) {
        std::freopen("/dev/null", "w", stderr);
        execl(NQCOUNT_BIN, NQCOUNT_BIN, "solve", "--n", "60", "--method", "swap", "--max-tries",
              "1", "--output", out.c_str(), static_cast<char*>(nullptr));
        _exit(127);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
      kill(pid, sig);
      int st = 0;
      waitpid(pid, &st, 0);
      status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    EXPECT_EQ(status, 128 + sig);
    EXPECT_TRUE(read_file(out).empty());
  }
}

}  // namespace
