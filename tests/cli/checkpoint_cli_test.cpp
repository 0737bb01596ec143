// --checkpoint from the command line: real SIGINT / SIGTERM, the printed resume command, and
// refused journals. Runs the real binary (NQCOUNT_BIN).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_runner.hpp"

namespace {

using namespace nq::test;  // nqcount, shell, Outcome, read_file, temp_path, ...

// Whether process `pid` has `path` open.
bool holds_open(pid_t pid, const std::string& path) {
  std::error_code ec;
  const auto target = std::filesystem::weakly_canonical(path, ec);
  for (const auto& fd :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code link_ec;
    if (std::filesystem::read_symlink(fd.path(), link_ec) == target) return true;
  }
  return false;
}

// Starts nqcount, waits until it has its journal open and 30 ms more, sends `sig`.
Outcome interrupt(const std::vector<std::string>& args, const std::string& journal, int sig,
                  bool twice = false, int wait_ms = 30) {
  const std::string errfile = temp_path("interrupted.txt");
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen(errfile.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    std::vector<char*> argv{const_cast<char*>(NQCOUNT_BIN)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(NQCOUNT_BIN, argv.data());
    _exit(127);
  }
  // Ready once it holds the journal open (its signal handlers are installed before that).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!holds_open(pid, journal) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  kill(pid, sig);
  if (twice) kill(pid, sig);  // the second one exits at once, whatever the first was doing
  int st = 0;
  waitpid(pid, &st, 0);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, "", read_file(errfile)};
}

std::string resume_command(const std::string& err) {
  const std::string tag = "resume with: ";
  const auto at = err.find(tag);
  if (at == std::string::npos) return "";
  const auto end = err.find('\n', at);
  return err.substr(at + tag.size(), end - at - tag.size());
}

TEST(CheckpointCli, SigintAndSigtermSaveProgressAndThePrintedCommandResumesExactly) {
  const std::string journal = temp_path("n15.ckpt");
  // The scalar kernel: the lane kernels count n = 15 in a tenth of a second, which would let
  // the third run finish before its signal arrives.
  const std::vector<std::string> args{"--n",          "15",    "--threads",          "1",
                                      "--checkpoint", journal, "--checkpoint-every", "1",
                                      "--kernel",     "scalar"};
  std::size_t size = 0;
  std::string command;
  for (const int sig : {SIGINT, SIGTERM}) {
    // A run stopped before it finished any subproblem rightly saves nothing new (a slow
    // sanitizer build on a busy machine may still be planning after 30 ms): then stop it again,
    // later. The waits stay well inside the scalar kernel's whole n = 15 count.
    Outcome r;
    for (int wait_ms = 30; wait_ms <= 270; wait_ms *= 3) {
      r = interrupt(args, journal, sig, false, wait_ms);
      if (std::filesystem::file_size(journal) > size) break;
    }
    EXPECT_EQ(r.status, 128 + sig) << r.err;
    EXPECT_NE(r.err.find("interrupted after"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("progress saved in " + journal), std::string::npos) << r.err;
    command = resume_command(r.err);
    EXPECT_FALSE(command.empty()) << r.err;
    const std::size_t now = std::filesystem::file_size(journal);
    EXPECT_GT(now, size) << "the interrupted run saved nothing";
    EXPECT_EQ((now - 64) % 32, 0u) << "a flushed journal holds whole records";
    size = now;
  }
  // A double Ctrl-C leaves a journal that is still valid (at most a torn tail).
  const Outcome hard = interrupt(args, journal, SIGINT, true);
  EXPECT_EQ(hard.status, 130) << hard.err;
  ASSERT_FALSE(command.empty());
  const Outcome resumed = shell(command + " --json");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const Outcome plain = nqcount("--n 15 --threads 2 --json");
  ASSERT_EQ(plain.status, 0);
  const auto a = nlohmann::json::parse(resumed.out), b = nlohmann::json::parse(plain.out);
  for (const char* f : {"total", "unique", "orbits", "nodes", "subproblems"})
    EXPECT_EQ(a[f], b[f]) << f;
  EXPECT_GT(a["subproblems_resumed"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(a["verified"], true);
}

TEST(CheckpointCli, RefusedJournalsExitTwoWithOneLineAndStayUntouched) {
  const std::string journal = temp_path("n11.ckpt");
  ASSERT_EQ(nqcount("--n 11 --checkpoint " + journal).status, 0);
  const std::string garbage = temp_path("garbage.ckpt");
  std::ofstream(garbage) << "this is not a journal, but somebody's notes\n";
  const std::string truncated = temp_path("truncated.ckpt");
  std::ofstream(truncated, std::ios::binary) << read_file(journal).substr(0, 40);
  const std::pair<std::string, std::string> cases[] = {
      {journal, "--n 12"},                     // another n
      {journal, "--n 11 --split-depth 2"},     // another split
      {journal, "--n 11 --kernel reference"},  // another route
      {garbage, "--n 11"},
      {truncated, "--n 11"},
  };
  for (const auto& [file, args] : cases) {
    const std::string before = read_file(file);
    const Outcome r = nqcount(args + " --checkpoint " + file);
    EXPECT_EQ(r.status, 2) << args << " " << file;
    EXPECT_EQ(r.err.rfind("nqcount: error: checkpoint", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(read_file(file), before) << args << " " << file;
  }
  EXPECT_EQ(nqcount("--n 11 --checkpoint-every 0").status, 2);
}

TEST(CheckpointCli, ResumeWithAnotherCrossCheckIsRefused) {
  // A complete journal, and one cut short (as an interrupted run leaves it).
  const std::string complete = temp_path("xcheck.ckpt");
  ASSERT_EQ(
      nqcount("--n 12 --cross-check 0.5 --cross-check-seed 5 --checkpoint " + complete).status, 0);
  const std::string partial = temp_path("xcheck_partial.ckpt");
  std::ofstream(partial, std::ios::binary) << read_file(complete).substr(0, 128 + 32 * 100);
  for (const std::string& file : {complete, partial}) {
    for (const std::string args : {"--n 12 --cross-check 0.5 --cross-check-seed 6",
                                   "--n 12 --cross-check 0.25 "
                                   "--cross-check-seed 5",
                                   "--n 12", "--n 12 --cross-check 0"}) {
      const std::string before = read_file(file);
      const Outcome r = nqcount(args + " --checkpoint " + file);
      EXPECT_EQ(r.status, 2) << args << " " << file;
      EXPECT_EQ(r.err.rfind("nqcount: error: checkpoint", 0), 0u) << r.err;
      EXPECT_NE(r.err.find("cross-check"), std::string::npos) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_EQ(read_file(file), before) << args << " " << file;
    }
  }
  // The same fraction and seed resume it.
  const Outcome r =
      nqcount("--n 12 --json --cross-check 0.5 --cross-check-seed 5 --checkpoint " + partial);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["total"], 14200);
  EXPECT_EQ(j["subproblems_resumed"], 100);
  EXPECT_GT(j["cross_checked"].get<int>(), 0);
  // A journal without a cross-check (the field 0, as journals before it) resumes a run without.
  const std::string plain = temp_path("plain.ckpt");
  ASSERT_EQ(nqcount("--n 11 --checkpoint " + plain).status, 0);
  EXPECT_EQ(nqcount("--n 11 --cross-check 0 --checkpoint " + plain).status, 0);
}

TEST(CheckpointCli, TornTailIsDroppedWithAWarningAndTheCountIsExact) {
  const std::string journal = temp_path("n12.ckpt");
  const Outcome first = nqcount("--n 12 --json --checkpoint " + journal);
  ASSERT_EQ(first.status, 0);
  std::string bytes = read_file(journal);
  // The time mark after the run's one batch and 8 records lost, the last of them torn.
  bytes.resize(bytes.size() - 32 * 8 - 5);
  std::ofstream(journal, std::ios::binary | std::ios::trunc) << bytes;
  const Outcome r = nqcount("--n 12 --json --checkpoint " + journal);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("nqcount: warning: checkpoint"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("torn"), std::string::npos) << r.err;
  const auto a = nlohmann::json::parse(r.out), b = nlohmann::json::parse(first.out);
  EXPECT_EQ(a["total"], b["total"]);
  EXPECT_EQ(a["unique"], b["unique"]);
  EXPECT_EQ(a["subproblems_resumed"].get<std::uint64_t>() + 8,
            b["subproblems"].get<std::uint64_t>());
}

}  // namespace
