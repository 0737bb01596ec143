// Defects a new (or hostile) user found, each held by a test on the real binary (NQCOUNT_BIN):
// claims of verification, thread counts, options that do not apply, numbers in other bases,
// the --threads bound, the memory limit's message, SIGINT / SIGTERM in solve and in every phase
// of a count, refusals before heavy work, one journal per run, resumed task stats, and a
// checkpoint that cannot be saved.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_runner.hpp"
#include "tests/support/sanitized.hpp"

namespace {

using nq::test::expect_usage_error;
using nq::test::nqcount;
using nq::test::Outcome;
using nq::test::read_file;
using nq::test::shell;
using nq::test::temp_folder;
using nq::test::temp_path;

using nq::test::has;

// `verified` means that what was written was checked: a run that wrote nothing is not verified.
TEST(HardeningCli, FailedSolveRunsAreNotVerified) {
  const Outcome few = nqcount("solve --n 8 --solutions 93 --seed 1 --json");
  EXPECT_EQ(few.status, 1) << few.err;
  const auto j = nlohmann::json::parse(few.out);
  EXPECT_EQ(j["verified"], false) << few.out;

  // Every attempt of swap with one try fails at once: with no restart limit to speak of, the
  // run restarts until the time limit.
  const Outcome timed = nqcount(
      "solve --n 60 --method swap --max-tries 1 --max-restarts 9223372036854775807 "
      "--time-limit 0.5 --seed 3 --json");
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

// An option that needs another, or excludes one, is refused by the parser in one line that
// names both, whatever the order typed.
TEST(HardeningCli, OptionsThatNeedOrExcludeAnotherNameIt) {
  struct Case {
    const char* args;
    const char* said;
  };
  for (const Case& c : std::vector<Case>{
           {"--n 8 --progress --no-progress", "--progress excludes --no-progress"},
           {"--n 8 --no-progress --progress", "--progress excludes --no-progress"},
           {"--n 8 --checkpoint-every 5", "--checkpoint-every requires --checkpoint"},
           {"solve --n 8 --batch sizes.txt", "--n excludes --batch"},
           {"solve --n 13 --modular --ldpc-layout paper", "--ldpc-layout requires --ldpc"},
           {"estimate --n 8 --cores 2", "--cores requires --ranks"},
           {"estimate --n 8 --tasks 100", "--tasks requires --ranks"},
           {"estimate --n 8 --root-seconds 0.5", "--root-seconds requires --ranks"},
           {"simulate stats.csv --procs 2 --root-seconds 0.5", "--root-seconds requires --ranks"},
       }) {
    expect_usage_error(c.args);
    const std::string err = nqcount(c.args).err;
    EXPECT_EQ(err, std::string("nqcount: error: ") + c.said + "\n") << c.args;
  }
}

// Numbers that a command reads itself follow the options' rule: decimal, no leading zero, no
// padding, whole where whole is meant.
TEST(HardeningCli, HandReadNumbersAreStrictDecimals) {
  // Blanks around a position are separators, as in --perm (issue #47 item 4): ' 2,1' and
  // '2, 1' are taken (below); the numbers themselves stay strict.
  for (const char* args : {"edit --perm 2,4,1,3 --del 02,1", "edit --perm 2,4,1,3 --del 2.0,1",
                           "edit --perm 2,4,1,3 --inc 00.5,0.5", "orbit --perm 02,4,1,3",
                           "solve --method blnq --n 8 --budget 0010",
                           "solve --n 13 --modular --ldpc 03,4", "--n 8 --memory-limit 010M"})
    expect_usage_error(args);
  for (const char* del : {"2,1", "' 2,1'", "'2, 1'"})
    EXPECT_EQ(nqcount(std::string("edit --perm 2,4,1,3 --del ") + del).status, 0) << del;
  EXPECT_EQ(nqcount("edit --perm 2,4,1,3 --inc 0.5,0.5").status, 0);
  EXPECT_EQ(nqcount("solve --method blnq --n 8 --budget 10 --runs 2").status, 0);
}

TEST(HardeningCli, OptionsThatDoNotApplyAreRefused) {
  for (const char* option :
       {"--kernel scalar", "--split-depth 2", "--checkpoint ck.bin", "--checkpoint-every 5",
        "--numa off", "--task-stats t.csv", "--memory-limit 1G", "--progress"})
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
  // A real number is one a double holds: neither above its range nor below its smallest, which
  // would read as 0 (no limit, no cross-check).
  for (const char* real : {"1e999", "1e-400"}) {
    expect_usage_error("solve --n 8 --time-limit " + std::string(real));
    EXPECT_NE(
        nqcount("--n 8 --cross-check " + std::string(real)).err.find("beyond a double's range"),
        std::string::npos)
        << real;
  }
  EXPECT_EQ(nqcount("--n 8 --cross-check 1.5e-05").status, 0);
  EXPECT_EQ(nqcount("--n 8 --cross-check 4.9e-324").status, 0);  // the smallest double above 0
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
              "1", "--max-restarts", "9223372036854775807", "--output", out.c_str(),
              static_cast<char*>(nullptr));
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

// Starts `command` under /bin/sh (which execs the last program in place, so the pid is its),
// stderr to `err`.
pid_t start(const std::string& command, const std::string& err) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen(err.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// The exit status of `pid` (-1 for a death by signal).
int finish(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Two runs started at the same moment on a journal that does not exist yet: one counts, the
// other is refused, and the journal left is whole. The board is large enough that the first
// still counts when the second opens the journal (a run that comes after the count has ended
// finds it complete and answers with it); once the second is refused, the first is killed, and
// the journal it leaves is read back by status; the last pair's is resumed to the known count.
void expect_one_of_each_pair_refused(int pairs, int n) {
  const std::string bin = NQCOUNT_BIN;
  for (int i = 0; i < pairs; ++i) {
    const std::string journal = temp_path("pair.ckpt");
    std::filesystem::remove(journal);
    const std::string cmd = bin + " --n " + std::to_string(n) + " --checkpoint " + journal;
    const std::array<pid_t, 2> run{start(cmd, temp_path("a.err")), start(cmd, temp_path("b.err"))};
    std::array<int, 2> status{-2, -2};  // -2: still running
    auto reap = [&](int k, int flags) {
      int st = 0;
      if (status[k] == -2 && waitpid(run[k], &st, flags) == run[k])
        status[k] = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    };
    while (status[0] == -2 && status[1] == -2) {
      reap(0, WNOHANG);
      reap(1, WNOHANG);
      if (status[0] == -2 && status[1] == -2)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    auto refused_run = [&] { return status[0] == 2 ? 0 : status[1] == 2 ? 1 : -1; };
    int refused = refused_run();
    if (refused >= 0 && status[1 - refused] == -2) kill(run[1 - refused], SIGKILL);
    reap(0, 0);
    reap(1, 0);
    // The count may end first on a loaded machine: the other run was refused while it counted,
    // and only exited after it.
    if (refused < 0) refused = refused_run();
    ASSERT_GE(refused, 0) << "pair " << i << ": " << status[0] << " " << status[1] << " "
                          << read_file(temp_folder() + "/a.err")
                          << read_file(temp_folder() + "/b.err");
    const std::string err = read_file(temp_folder() + (refused == 0 ? "/a.err" : "/b.err"));
    EXPECT_TRUE(has(err, "is in use by another run")) << err;
    EXPECT_NE(status[1 - refused], 2) << "pair " << i << ": both refused";
    const Outcome read = nqcount("status --json " + journal);
    EXPECT_EQ(read.status, 0) << "pair " << i << ": " << read.err;
  }
  const Outcome resumed = nqcount("--n " + std::to_string(n) + " --checkpoint " +
                                  temp_path("pair.ckpt") + " --verify --json");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
}

// n = 16 under a sanitizer, where it counts as long as n = 17 in Release.
TEST(HardeningCli, SimultaneousStartsOnANewJournalRefuseOne) {
  expect_one_of_each_pair_refused(4, nq::test_support::sized(17, 16));
}

TEST(SlowHardeningCli, FiftySimultaneousStartsOnNewJournalsRefuseOneOfEach) {
  expect_one_of_each_pair_refused(50, 17);
}

// A run that resumed did not time what it found done: its task stats mark those rows, and
// simulate leaves them out, saying so; a profile of resumed rows only is refused.
TEST(HardeningCli, ResumedTaskStatsAreMarkedAndLeftOutBySimulate) {
  const std::string journal = temp_path("stats.ckpt"), stats = temp_path("stats.csv");
  ASSERT_EQ(nqcount("--n 14 --checkpoint " + journal).status, 0);
  // Keep the header and 10 records: 10 subproblems done, the rest to count.
  std::filesystem::resize_file(journal, 128 + 10 * 32);
  const Outcome partial =
      nqcount("--n 14 --verify --checkpoint " + journal + " --task-stats " + stats);
  ASSERT_EQ(partial.status, 0) << partial.err;
  const std::string csv = read_file(stats);
  EXPECT_EQ(csv.rfind("id,nodes,seconds,estimate,plan_order,resumed\n", 0), 0u) << csv;
  std::size_t resumed = 0, rows = 0;
  for (std::size_t at = csv.find('\n'); at + 1 < csv.size(); at = csv.find('\n', at + 1)) {
    ++rows;
    const std::size_t eol = csv.find('\n', at + 1);
    const std::string row = csv.substr(at + 1, eol - at - 1);
    if (row.back() == '1') {
      ++resumed;
      EXPECT_EQ(row.substr(row.find(',') + 1, 4), "0,0,") << row;  // not timed: nodes, seconds 0
    }
  }
  EXPECT_EQ(resumed, 10u);
  const Outcome sim = nqcount("simulate " + stats + " --procs 4 --json");
  ASSERT_EQ(sim.status, 0) << sim.err;
  EXPECT_TRUE(has(sim.err, "10 of " + std::to_string(rows) + " tasks were resumed")) << sim.err;
  const auto j = nlohmann::json::parse(sim.out);
  EXPECT_EQ(j["tasks"], rows - 10);
  EXPECT_GT(j["makespan_seconds"].get<double>(), 0.0);

  // All resumed: nothing to replay.
  const Outcome again = nqcount("--n 14 --checkpoint " + journal + " --task-stats " + stats);
  ASSERT_EQ(again.status, 0) << again.err;
  const Outcome none = nqcount("simulate " + stats + " --procs 4");
  EXPECT_EQ(none.status, 2);
  EXPECT_TRUE(has(none.err, "no timed task")) << none.err;
}

// A journal that cannot be written (a file size limit stands in for a full disk): a completed
// count prints its counts, then says what was not saved and exits 2, as every failed write does;
// an interrupted one, whose work could not be saved, exits 2, not 130 as if it had been saved.
TEST(HardeningCli, UnsavedCheckpointOfAnInterruptedRunExits2) {
  const std::string journal = temp_path("full.ckpt"), err = temp_path("full.err");
  const std::string limited = "trap '' XFSZ; ulimit -f 1; ";  // 1 KiB: the header and 28 records
  const Outcome done = shell(limited + NQCOUNT_BIN + " --n 16 --verify --checkpoint " + journal);
  EXPECT_EQ(done.status, 2) << done.err;
  EXPECT_TRUE(has(done.out, "total        14772512")) << done.out;
  EXPECT_EQ(done.err.rfind("nqcount: error: ", 0), 0u) << done.err;
  EXPECT_EQ(std::count(done.err.begin(), done.err.end(), '\n'), 1) << done.err;
  EXPECT_TRUE(has(done.err, "the count is complete")) << done.err;

  std::filesystem::remove(journal);
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen(err.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    execl("/bin/sh", "sh", "-c",
          (limited + "exec " + NQCOUNT_BIN + " --n 19 --threads 2 --checkpoint " + journal).c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Long enough for more than 30 subproblems to be done, far from the end of the count.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(pid, SIGINT);
  EXPECT_EQ(finish(pid), 2) << read_file(err);
  const std::string said = read_file(err);
  EXPECT_TRUE(has(said, "nqcount: error: interrupted, and the progress could not be saved"))
      << said;
  EXPECT_FALSE(has(said, "resume with")) << said;
}

// SIGINT or SIGTERM while a large board is planned and its costs estimated (tens of seconds to
// minutes): exit 130 / 143 within a second, nothing to save.
void expect_prompt_exit(const std::string& args, int sig, int after_ms) {
  const std::string err = temp_path("signal.err");
  const pid_t pid = start(std::string(NQCOUNT_BIN) + " " + args, err);
  std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, sig);
  const int status = finish(pid);
  const double took = seconds_since(sent);
  EXPECT_EQ(status, 128 + sig) << args << " after " << after_ms << " ms: " << read_file(err);
  EXPECT_LT(took, 1.0) << args << " after " << after_ms << " ms";
}

TEST(HardeningCli, SignalsWhilePlanningExitWithinASecond) {
  expect_prompt_exit("--n 27", SIGINT, 500);
  expect_prompt_exit("--n 32 --threads 1", SIGTERM, 500);
  // The backtracking kernels' plan: its Burnside terms are the long part.
  expect_prompt_exit("--n 27 --kernel avx2 --threads 1", SIGINT, 500);
}

// On one thread: n = 27 (the join's plan, then its worker), n = 32 (the backtracking plan). Many
// workers' cancel is SignalsWhilePlanning's n = 27 and the n = 28 join count interrupted in
// estimate_cli_test (FrontierCountStartsAndCtrlC...).
TEST(SlowHardeningCli, SigintAt1And3SecondsExitsWithinASecond) {
  for (const char* args : {"--n 27 --threads 1", "--n 32 --threads 1"})
    for (const int ms : {1000, 3000}) expect_prompt_exit(args, SIGINT, ms);
}

// A machine of 65,536 CPUs takes hwloc seconds to read: a count waiting for it still stops.
TEST(HardeningCli, SignalsWhileReadingALargeMachineExitWithinASecond) {
  const std::string err = temp_path("machine.err");
  const pid_t pid = start("env HWLOC_SYNTHETIC='pack:16 numa:16 core:64 pu:4' " +
                              std::string(NQCOUNT_BIN) + " --n 12 --threads 2",
                          err);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, SIGTERM);
  EXPECT_EQ(finish(pid), 143) << read_file(err);
  EXPECT_LT(seconds_since(sent), 1.0);
}

// --memory-limit refuses as soon as the plan's size is known, before its heavy parts.
TEST(HardeningCli, MemoryLimitRefusesBeforeAnyHeavyWork) {
  for (const char* args : {"--n 32 --memory-limit 1K", "--n 27 --memory-limit 1K",
                           "--n 27 --kernel avx2 --threads 1 --memory-limit 100M"}) {
    const auto t = std::chrono::steady_clock::now();
    const Outcome r = nqcount(args);
    EXPECT_LT(seconds_since(t), 1.0) << args;
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err.rfind("nqcount: error: this count needs about ", 0), 0u) << r.err;
    EXPECT_TRUE(has(r.err, "--memory-limit")) << r.err;
  }
}

// A side file that cannot be written (the task stats: a file size limit stands in for a full
// disk) does not cost the finished count: the counts are printed, in text and in JSON, then one
// error line, and exit 2 says that a write failed.
TEST(HardeningCli, AFailedTaskStatsWriteKeepsTheCount) {
  const std::string stats = temp_path("stats.csv");
  const std::string limited = "trap '' XFSZ; ulimit -f 1; ";
  for (const char* json : {"", " --json"}) {
    const Outcome r =
        shell(limited + NQCOUNT_BIN + " --n 13 --threads 2 --task-stats " + stats + json);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(has(r.out, "73712")) << r.out;
    if (*json) {
      EXPECT_EQ(nlohmann::json::parse(r.out)["total"], 73712) << r.out;
    }
    EXPECT_EQ(r.err.rfind("nqcount: error: cannot write --task-stats", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(stats));
  }
}

// Out of memory or of threads (a virtual-memory limit), at any point of a run: one error line
// and exit 2, never an abort with a core, and no temporary file left behind. Each limit lands
// somewhere else: the loader, TBB's threads, the plan, the kernels' scratch, the journal. The
// n = 18 run plans and prepares the whole board but counts one shard of 64 of it: where a
// limit lets it through, it does not spend a whole count getting there.
TEST(HardeningCli, OutOfMemoryOrThreadsIsOneErrorLine) {
  if (nq::test_support::kSanitized) GTEST_SKIP() << "the sanitizers reserve far more address space";
  const std::string dir = nq::test::temp_dir("limited");
  int refused = 0;
  for (const int kb : {14000, 26000, 30000, 34000, 38000, 42000}) {
    for (const std::string& args : std::vector<std::string>{
             "--n 18 --threads 2 --shard 0/64 --checkpoint " + dir + "/s.ckpt",
             "--n 12 --threads 2",
             "--n 15 --threads 3 --checkpoint " + dir + "/j.ckpt --task-stats " + dir + "/t.csv"}) {
      std::filesystem::remove(dir + "/j.ckpt");
      std::filesystem::remove(dir + "/s.ckpt");
      const Outcome r = shell("ulimit -v " + std::to_string(kb) + "; " + NQCOUNT_BIN + " " + args +
                              " >/dev/null");
      if (has(r.err, "error while loading shared libraries")) continue;  // before main
      std::string said;  // without the warning of --threads 3 on a smaller machine
      std::istringstream lines(r.err);
      for (std::string line; std::getline(lines, line);)
        if (!has(line, "more than the")) said += line + "\n";
      ASSERT_TRUE(r.status == 0 || r.status == 2) << kb << " KB, " << args << ": " << said;
      if (said.empty()) continue;
      ++refused;
      EXPECT_EQ(said.rfind("nqcount: error: ", 0), 0u) << kb << " KB, " << args << ": " << said;
      EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1)
          << kb << " KB, " << args << ": " << said;
      EXPECT_TRUE(has(said, "out of memory") || has(said, "cannot start a thread"))
          << kb << " KB, " << args << ": " << said;
    }
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      EXPECT_NE(entry.path().filename().string().rfind(".nq.", 0), 0u)
          << kb << " KB: a temporary file left behind: " << entry.path();
  }
  EXPECT_GT(refused, 0);  // the limits did bite
}

// A complete journal answers at once without being written to, so it answers from storage
// that cannot be written (here: a file its user may not write); an incomplete one there is
// refused, since the resumed run must append to it.
TEST(HardeningCli, ACompleteJournalAnswersFromStorageThatCannotBeWritten) {
  if (::geteuid() != 0 || shell("command -v setpriv").status != 0)
    GTEST_SKIP() << "needs root and setpriv to run as another user";
  const std::string dir = nq::test::temp_dir("readonly");
  const std::string journal = dir + "/j.ckpt";
  ASSERT_EQ(nqcount("--n 10 --checkpoint " + journal).status, 0);
  std::filesystem::permissions(temp_folder(), std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add);
  std::filesystem::permissions(
      dir, std::filesystem::perms::others_exec | std::filesystem::perms::others_read,
      std::filesystem::perm_options::add);
  ::chmod(journal.c_str(), 0444);
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  const Outcome r = shell(as_nobody + NQCOUNT_BIN + " --n 10 --verify --checkpoint " + journal);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "resumed      56 subproblems")) << r.out;
  // An incomplete one: its header and the first records only.
  std::filesystem::permissions(journal, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::filesystem::resize_file(journal, 128 + 32 * 10);
  const Outcome part = shell(as_nobody + NQCOUNT_BIN + " --n 10 --checkpoint " + journal);
  EXPECT_EQ(part.status, 2) << part.err;
  EXPECT_TRUE(has(part.err, "cannot be written")) << part.err;
  EXPECT_TRUE(has(part.err, "46 of its 56 subproblems are still to count")) << part.err;
}

// A resumed join count keeps its journal's cut: a --tasks that cuts the plan otherwise is a
// contradiction, refused before any work; the --tasks the journal was made with is fine.
TEST(HardeningCli, ATasksThatContradictsTheJournalIsRefused) {
  const std::string journal = temp_path("cut.ckpt");
  ASSERT_EQ(nqcount("--n 14 --kernel join --tasks 5000 --checkpoint " + journal).status, 0);
  const Outcome same =
      nqcount("--n 14 --kernel join --tasks 5000 --verify --checkpoint " + journal);
  EXPECT_EQ(same.status, 0) << same.err;
  const Outcome none = nqcount("--n 14 --kernel join --verify --checkpoint " + journal);
  EXPECT_EQ(none.status, 0) << none.err;
  expect_usage_error("--n 14 --kernel join --tasks 7 --checkpoint " + journal);
  const Outcome other = nqcount("--n 14 --kernel join --tasks 7 --checkpoint " + journal);
  EXPECT_TRUE(has(other.err, "--tasks 7 cuts the plan into")) << other.err;
}

// A word that is no command is said to be none (it once read as `count`, which then asked for
// --n); --version is answered by every command, as the completion offers it.
TEST(HardeningCli, AWordThatIsNoCommandAndVersionAfterACommand) {
  for (const char* args : {"bogus", "bogus --n 5", "12"}) {
    expect_usage_error(args);
    const Outcome r = nqcount(args);
    EXPECT_TRUE(has(r.err, "is not a command (the commands: count, solve")) << args << r.err;
  }
  EXPECT_TRUE(has(nqcount("12").err, "nqcount --n 12")) << nqcount("12").err;
  const std::string version = nqcount("--version").out;
  ASSERT_FALSE(version.empty());
  for (const char* command : {"count", "solve", "table", "orbit", "estimate", "topology"}) {
    const Outcome r = nqcount(std::string(command) + " --version");
    EXPECT_EQ(r.status, 0) << command << ": " << r.err;
    EXPECT_EQ(r.out, version) << command;
  }
}

}  // namespace
