// nqcount --shard, merge, status and audit from the command line: a campaign's shards merged in
// random order against the whole count, the documented exit statuses and messages of a missing
// shard, a task counted twice differently and a foreign journal, a shard stopped and resumed,
// and the audit. Runs the real binary (NQCOUNT_BIN).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/count/count.hpp"
#include "engine/count/journal.hpp"
#include "engine/count/known.hpp"
#include "tests/cli_runner.hpp"

// A namespace of its own: the folder's tests compile as one source (tests/CMakeLists.txt).
namespace campaign_cli {
namespace {

using namespace nq::test;  // nqcount, shell, Outcome, read_file, temp_path, ...

// Runs every shard of a K-shard campaign of n; the journals' paths.
std::vector<std::string> run_shards(int n, int shards, const std::string& name,
                                    const std::string& extra = "") {
  std::vector<std::string> paths;
  for (int s = 0; s < shards; ++s) {
    paths.push_back(temp_path(name + "-" + std::to_string(s) + ".ckpt"));
    const Outcome r =
        nqcount("--n " + std::to_string(n) + " --threads 2 --shard " + std::to_string(s) + "/" +
                std::to_string(shards) + " --checkpoint " + paths.back() + " --json " + extra);
    EXPECT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_EQ(j.value("shard", ""), std::to_string(s) + "/" + std::to_string(shards)) << r.out;
    EXPECT_FALSE(j.contains("unique")) << "a shard has no unique count of its own";
  }
  return paths;
}

std::string joined(const std::vector<std::string>& paths) {
  std::string all;
  for (const std::string& p : paths) all += " " + p;
  return all;
}

// The merges of `paths` (merge --json --verify) in two random orders, seeded by n, into
// `merged`: each exits 0 and says it verified.
void merge_in_random_orders(int n, std::vector<std::string> paths,
                            std::vector<nlohmann::json>& merged) {
  std::mt19937 rng(static_cast<unsigned>(n));
  for (int order = 0; order < 2; ++order) {
    std::shuffle(paths.begin(), paths.end(), rng);
    const Outcome m = nqcount("merge --json --verify" + joined(paths));
    ASSERT_EQ(m.status, 0) << m.err;
    merged.push_back(nlohmann::json::parse(m.out));
    EXPECT_EQ(merged.back()["verified"], true) << n;
  }
}

// The merge of `paths` in random orders, each against nqcount --n N.
void expect_merges_to_the_count(int n, const std::vector<std::string>& paths) {
  const Outcome whole = nqcount("--n " + std::to_string(n) + " --threads 2 --json");
  ASSERT_EQ(whole.status, 0) << whole.err;
  const auto want = nlohmann::json::parse(whole.out);
  std::vector<nlohmann::json> merged;
  ASSERT_NO_FATAL_FAILURE(merge_in_random_orders(n, paths, merged));
  for (const auto& got : merged) {
    EXPECT_EQ(got["total"], want["total"]) << n;
    EXPECT_EQ(got["unique"], want["unique"]) << n;
    EXPECT_EQ(got["orbits"], want["orbits"]) << n;
  }
}

// The journal at `path` with task `task`'s count changed (residues and checksum to match).
void change_count(const std::string& path, std::uint64_t task, std::uint64_t solutions) {
  std::string bytes = read_file(path);
  auto* b = reinterpret_cast<unsigned char*>(bytes.data());
  auto put = [](unsigned char* p, std::uint64_t v, int size) {
    for (int i = 0; i < size; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
  };
  for (std::size_t at = 128; at + 32 <= bytes.size(); at += 32) {
    std::uint64_t index = 0;
    for (int i = 7; i >= 0; --i) index = index << 8 | b[at + i];
    if (index != task) continue;
    put(b + at + 8, solutions, 8);
    put(b + at + 24, nq::count_residues(solutions), 4);
    put(b + at + 28, nq::fnv1a32(b + at, 28), 4);
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The first task a journal records (the index of its first record).
std::uint64_t first_task(const std::string& path) {
  const std::string bytes = read_file(path);
  std::uint64_t index = 0;
  for (int i = 7; i >= 0; --i) index = index << 8 | static_cast<unsigned char>(bytes[128 + i]);
  return index;
}

TEST(CampaignCli, ShardsMergedInRandomOrderEqualTheCount) {
  expect_merges_to_the_count(16, run_shards(16, 4, "n16"));
  expect_merges_to_the_count(11, run_shards(11, 3, "n11", "--kernel scalar"));
}

TEST(CampaignCli, MissingConflictingAndForeignJournalsExitAsDocumented) {
  const std::vector<std::string> paths = run_shards(10, 3, "refuse");
  // A missing shard: exit 1, the shard named.
  const Outcome missing = nqcount("merge " + paths[0] + " " + paths[2]);
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(missing.out.empty());
  EXPECT_NE(missing.err.find("nqcount: error: incomplete:"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("shard 1/3:"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("no journal of it given"), std::string::npos) << missing.err;
  // A task recorded twice with different counts: exit 1, the task and both files named.
  const std::string copy = temp_path("refuse-copy.ckpt");
  std::filesystem::copy_file(paths[1], copy);
  const std::uint64_t task = first_task(copy);
  change_count(copy, task, 999);
  const Outcome conflict = nqcount("merge" + joined(paths) + " " + copy);
  EXPECT_EQ(conflict.status, 1);
  EXPECT_NE(conflict.err.find("nqcount: error: task " + std::to_string(task) +
                              " is recorded with two counts"),
            std::string::npos)
      << conflict.err;
  EXPECT_NE(conflict.err.find(paths[1]), std::string::npos);
  EXPECT_NE(conflict.err.find(copy), std::string::npos);
  // The same records twice: accepted.
  EXPECT_EQ(nqcount("merge" + joined(paths) + " " + paths[1]).status, 0);
  // A journal of another board: bad input, one line, exit 2.
  const std::vector<std::string> other = run_shards(9, 1, "foreign");
  expect_usage_error("merge" + joined(paths) + " " + other[0]);
  EXPECT_NE(nqcount("merge" + joined(paths) + " " + other[0]).err.find("different counts"),
            std::string::npos);
  // Shards of another cut of the same board's plan (--tasks): another count, exit 2.
  const std::string cut = temp_path("cut-0.ckpt"), finer = temp_path("finer-1.ckpt");
  ASSERT_EQ(nqcount("--n 16 --threads 2 --shard 0/2 --checkpoint " + cut).status, 0);
  ASSERT_EQ(nqcount("--n 16 --threads 2 --tasks 3000000 --shard 1/2 --checkpoint " + finer).status,
            0);
  expect_usage_error("merge " + cut + " " + finer);
  expect_usage_error("merge " + temp_path("nothing.ckpt"));
}

TEST(CampaignCli, BadShardOptionsAreRefused) {
  const std::string j = temp_path("bad.ckpt");
  for (const std::string shard : {"3/3", "1", "a/b", "01/3", "1/0", "-1/3", "1/1000001"})
    expect_usage_error("--n 10 --shard " + shard + " --checkpoint " + j);
  expect_usage_error("--n 10 --shard 0/2");  // no journal
  expect_usage_error("--n 10 --shard 0/2 --checkpoint " + j + " --verify");
  expect_usage_error("--n 10 --shard 0/2 --checkpoint " + j + " --algo dp");
  expect_usage_error("--n 6 --shard 0/100000 --checkpoint " + j);  // more shards than tasks
  expect_usage_error("--n 3 --shard 0/2 --checkpoint " + j);
  expect_usage_error("merge");
  expect_usage_error("status");
  expect_usage_error("audit --fraction 0 " + j);
  EXPECT_FALSE(std::filesystem::exists(j));
}

TEST(CampaignCli, StatusReadsAPartialCampaign) {
  const std::vector<std::string> paths = run_shards(10, 4, "status");
  const Outcome s = nqcount("status --json " + paths[0] + " " + paths[3]);
  ASSERT_EQ(s.status, 0) << s.err;
  const auto j = nlohmann::json::parse(s.out);
  EXPECT_EQ(j["shards"], 4);
  EXPECT_EQ(j["shards_done"], 2);
  EXPECT_EQ(j["shards_not_started"], 2);
  EXPECT_GT(j["cost_fraction_done"].get<double>(), 0.2);
  EXPECT_LT(j["cost_fraction_done"].get<double>(), 0.8);
  EXPECT_GT(j["cost_fraction_per_hour"].get<double>(), 0);
  const Outcome text = nqcount("status" + joined(paths));
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("4 done, 0 partial, 0 not started"), std::string::npos) << text.out;
}

TEST(CampaignCli, AuditPassesThenNamesAChangedTask) {
  const std::vector<std::string> paths = run_shards(11, 2, "audit");
  const Outcome good = nqcount("audit --fraction 1 --seed 3 --threads 2 --json" + joined(paths));
  ASSERT_EQ(good.status, 0) << good.err;
  const auto j = nlohmann::json::parse(good.out);
  EXPECT_EQ(j["sampled"], j["recorded"]);
  EXPECT_NE(j["kernel"], j["second_kernel"]);
  const std::uint64_t task = first_task(paths[1]);
  change_count(paths[1], task, 4242);
  const Outcome bad = nqcount("audit --fraction 1 --threads 2" + joined(paths));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("audit: task " + std::to_string(task) + " is recorded with 4242"),
            std::string::npos)
      << bad.err;
}

// The merge of `paths` in two random orders, against the known table (a whole count of a larger
// board would cost as much as the campaign): the total and unique, and orbits that add up to
// both.
void expect_merges_to_the_table(int n, const std::vector<std::string>& paths) {
  const auto known = nq::known_value(n);
  ASSERT_TRUE(known.has_value()) << n;
  std::vector<nlohmann::json> merged;
  ASSERT_NO_FATAL_FAILURE(merge_in_random_orders(n, paths, merged));
  for (const auto& got : merged) {
    EXPECT_EQ(got["total"].get<std::uint64_t>(), known->total) << n;
    EXPECT_EQ(got["unique"].get<std::uint64_t>(), known->unique) << n;
    std::uint64_t orbits = 0, solutions = 0;
    for (const auto& [size, count] : got["orbits"].items()) {
      orbits += count.get<std::uint64_t>();
      solutions += std::stoull(size) * count.get<std::uint64_t>();
    }
    EXPECT_EQ(orbits, known->unique) << n;
    EXPECT_EQ(solutions, known->total) << n;
  }
}

// Runs `cmd` (a shell command line) throttled (throttle_until) until the journal at `path`
// holds more than `bytes` (a minute at most), then sends it `sig` and reaps it; its wait status.
int signal_after_growth(const std::string& cmd, const std::string& path, std::uintmax_t bytes,
                        int sig) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd + " >/dev/null 2>&1").c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  EXPECT_TRUE(throttle_until(
      pid,
      [&] {
        std::error_code ec;
        return std::filesystem::exists(path, ec) && std::filesystem::file_size(path, ec) > bytes;
      },
      std::chrono::seconds(60)))
      << "the journal did not grow past " << bytes << " bytes in a minute";
  kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// A larger board's shard stopped by SIGTERM and by SIGKILL part-way (each once it has recorded
// work), resumed, and the campaign's merge and audit; n = 17 and 18, merged against the table.
// The interrupted shard is half of n = 18 on one thread, throttled (signal_after_growth): it is
// still counting at the second checkpoint on any CPU, at a tenth of its CPU time. The
// audits recount a fifth of a per cent of the tasks (their kernel backtracks).
TEST(SlowCampaignCli, ShardsOfLargerBoardsResumeMergeAndAudit) {
  expect_merges_to_the_table(17, run_shards(17, 3, "big"));
  const int n = 18;
  const std::vector<std::string> paths = run_shards(n, 2, "n18");
  // Shard 1 again from nothing, on one thread.
  std::filesystem::remove(paths[1]);
  const std::string cmd = std::string(NQCOUNT_BIN) + " --n 18 --threads 1 --shard 1/2 " +
                          "--checkpoint-every 1 --checkpoint " + paths[1];
  for (const int sig : {SIGTERM, SIGKILL}) {
    std::error_code ec;
    const std::uintmax_t before =
        std::filesystem::exists(paths[1], ec) ? std::filesystem::file_size(paths[1], ec) : 0;
    const int status =
        signal_after_growth(cmd, paths[1], std::max<std::uintmax_t>(before, 128), sig);
    if (sig == SIGTERM) {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 143) << status;
    } else {
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    }
  }
  const Outcome resumed = shell(cmd + " --json");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_GT(nlohmann::json::parse(resumed.out)["subproblems_resumed"].get<int>(), 0);
  expect_merges_to_the_table(n, paths);
  const Outcome audit = nqcount("audit --fraction 0.002 --seed 7 --threads 2" + joined(paths));
  EXPECT_EQ(audit.status, 0) << audit.err;
  // One recorded task's count changed, one that the same audit samples.
  std::uint64_t task = 0;
  while (!nq::cross_check_selected(0.002, 7, task)) ++task;
  for (const std::string& p : paths) change_count(p, task, 1);
  const Outcome bad = nqcount("audit --fraction 0.002 --seed 7 --threads 2" + joined(paths));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("audit: task " + std::to_string(task)), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace campaign_cli
