// A count as a campaign of shards (engine/count/campaign.hpp): the shards' balance, their
// journals merged in any order and after a resume, the merge's refusals, the status and the
// audit. Small boards: each case takes well under a second.
#include "engine/count/campaign.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include "engine/count/count.hpp"
#include "engine/count/known.hpp"
#include "tests/cli_runner.hpp"

// A namespace of its own: the folder's tests compile as one source (tests/CMakeLists.txt).
namespace nq::campaign_tests {
namespace {

using test::temp_path;

CountConfig shard_config(int n, std::uint32_t shard, std::uint32_t shards,
                         const std::string& path) {
  CountConfig c;
  c.n = n;
  c.threads = 2;
  c.shard = shard;
  c.shards = shards;
  c.checkpoint = path;
  c.checkpoint_every = 1;
  return c;
}

// Counts every shard of n into its own journal; their paths.
std::vector<std::string> run_campaign(int n, std::uint32_t shards, const std::string& name,
                                      const std::string& kernel = "auto") {
  std::vector<std::string> paths;
  for (std::uint32_t s = 0; s < shards; ++s) {
    paths.push_back(temp_path(name + "-" + std::to_string(s) + ".ckpt"));
    CountConfig c = shard_config(n, s, shards, paths.back());
    c.kernel = kernel;
    const auto r = count(c);
    EXPECT_TRUE(r.ok()) << (r ? "" : r.error().message);
    if (r) {
      EXPECT_FALSE(r->cancelled);
      EXPECT_EQ(r->shard, s);
      EXPECT_EQ(r->subproblems, r->subproblems_total);
    }
  }
  return paths;
}

OrbitCounts whole_count(int n, const std::string& kernel = "auto") {
  CountConfig c;
  c.n = n;
  c.threads = 2;
  c.kernel = kernel;
  const auto r = count(c);
  EXPECT_TRUE(r.ok());
  return r ? r->orbits : OrbitCounts{};
}

std::string bytes_of(const std::string& path) {
  return test::read_file(path);
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The journal at `path` with task `task`'s recorded count changed to `solutions`, its residues
// and checksum made to match (a wrong count written as if it were right). False if the journal
// does not record the task.
bool change_count(const std::string& path, std::uint64_t task, std::uint64_t solutions) {
  std::string bytes = bytes_of(path);
  auto* b = reinterpret_cast<unsigned char*>(bytes.data());
  auto put = [](unsigned char* p, std::uint64_t v, int size) {
    for (int i = 0; i < size; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
  };
  for (std::size_t at = FileJournal::kHeaderBytes; at + 32 <= bytes.size(); at += 32) {
    std::uint64_t index = 0;
    for (int i = 7; i >= 0; --i) index = index << 8 | b[at + i];
    if (index != task) continue;
    put(b + at + 8, solutions, 8);
    put(b + at + 24, count_residues(solutions), 4);
    put(b + at + 28, fnv1a32(b + at, 28), 4);
    write_bytes(path, bytes);
    return true;
  }
  return false;
}

TEST(Campaign, ShardsAreBalancedByCostAndCoverEveryTaskOnce) {
  std::mt19937_64 rng(3);
  std::vector<std::uint64_t> costs(5000);
  for (auto& c : costs) c = 1 + rng() % 1000;  // a spread like a plan's, none dominant
  const std::uint64_t total = std::accumulate(costs.begin(), costs.end(), std::uint64_t{0});
  for (const std::uint32_t k : {1u, 7u, 64u}) {
    const std::vector<std::uint32_t> shard_of = shard_assignment(costs, k);
    EXPECT_EQ(shard_of, shard_assignment(costs, k)) << "deterministic";
    std::vector<std::uint64_t> load(k, 0);
    for (std::size_t i = 0; i < costs.size(); ++i) {
      ASSERT_LT(shard_of[i], k);
      load[shard_of[i]] += costs[i];
    }
    const double mean = static_cast<double>(total) / k;
    for (std::uint64_t l : load) EXPECT_NEAR(static_cast<double>(l), mean, 0.02 * mean) << k;
    std::vector<std::uint64_t> all;
    for (std::uint32_t s = 0; s < k; ++s) {
      const auto tasks = shard_tasks(costs, s, k);
      EXPECT_TRUE(std::is_sorted(tasks.begin(), tasks.end()));
      all.insert(all.end(), tasks.begin(), tasks.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::uint64_t> every(costs.size());
    std::iota(every.begin(), every.end(), std::uint64_t{0});
    EXPECT_EQ(all, every) << k;
  }
}

TEST(Campaign, ShardsMergedInAnyOrderGiveTheWholeCount) {
  // The canonical plan (a backtracking kernel) and the join's row-split plan.
  for (const auto& [n, kernel] :
       {std::pair{12, std::string("auto")}, std::pair{16, std::string("join")}}) {
    std::vector<std::string> paths = run_campaign(n, 5, "whole" + std::to_string(n), kernel);
    const OrbitCounts whole = whole_count(n, kernel);
    std::mt19937 rng(static_cast<unsigned>(n));
    for (int order = 0; order < 3; ++order) {
      std::shuffle(paths.begin(), paths.end(), rng);
      const auto m = merge_journals(paths);
      ASSERT_TRUE(m.ok()) << m.error().message;
      ASSERT_TRUE(m->complete());
      EXPECT_EQ(m->shards, 5u);
      EXPECT_EQ(m->orbits.total, whole.total) << n;
      EXPECT_EQ(m->orbits.unique, whole.unique) << n;
      EXPECT_EQ(m->orbits.u8, whole.u8) << n;
    }
  }
}

TEST(Campaign, AResumedShardMergesToTheSameCount) {
  const int n = 13;
  std::vector<std::string> paths = run_campaign(n, 3, "resumed");
  // Shard 1 as if killed: its journal cut after its first few records, mid-record.
  const std::string cut = bytes_of(paths[1]).substr(0, FileJournal::kHeaderBytes + 3 * 32 + 7);
  write_bytes(paths[1], cut);
  EXPECT_FALSE(merge_journals(paths)->complete());
  const auto again = count(shard_config(n, 1, 3, paths[1]));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_GT(again->subproblems_resumed, 0u);
  const auto m = merge_journals(paths);
  ASSERT_TRUE(m.ok() && m->complete());
  EXPECT_EQ(m->orbits.total, whole_count(n).total);
  // A shard's journal is no other shard's, and no whole count's.
  EXPECT_FALSE(count(shard_config(n, 2, 3, paths[1])).ok());
  CountConfig whole = shard_config(n, 0, 0, paths[1]);
  EXPECT_FALSE(count(whole).ok());
}

TEST(Campaign, MergeNamesMissingShardsConflictingTasksAndForeignJournals) {
  const int n = 12;
  const std::vector<std::string> paths = run_campaign(n, 4, "refusals");
  // Shard 2 missing.
  const std::vector<std::string> three = {paths[0], paths[1], paths[3]};
  const auto missing = merge_journals(three);
  ASSERT_TRUE(missing.ok()) << missing.error().message;
  EXPECT_FALSE(missing->complete());
  ASSERT_EQ(missing->gaps.size(), 1u);
  EXPECT_EQ(missing->gaps[0].shard, 2u);
  EXPECT_EQ(missing->gaps[0].missing, missing->gaps[0].tasks);
  EXPECT_FALSE(missing->gaps[0].journal_given);
  // Shard 0's journal again, one task's count changed: a conflict naming both files.
  const std::string copy = temp_path("refusals-copy.ckpt");
  std::filesystem::copy_file(paths[0], copy);
  const auto records = read_journal(copy);
  ASSERT_TRUE(records.ok() && !records->records.empty());
  const FinishedSubproblem first = records->records.front();
  ASSERT_TRUE(change_count(copy, first.index, first.tally.solutions + 1));
  std::vector<std::string> with_copy = paths;
  with_copy.push_back(copy);
  const auto conflict = merge_journals(with_copy);
  ASSERT_TRUE(conflict.ok()) << conflict.error().message;
  ASSERT_EQ(conflict->conflicts.size(), 1u);
  EXPECT_EQ(conflict->conflicts[0].task, first.index);
  EXPECT_EQ(conflict->conflicts[0].files[0], paths[0]);
  EXPECT_EQ(conflict->conflicts[0].files[1], copy);
  EXPECT_FALSE(conflict->complete());
  // The same journal twice is the same records twice: accepted.
  std::vector<std::string> twice = paths;
  twice.push_back(paths[0]);
  const auto dup = merge_journals(twice);
  ASSERT_TRUE(dup.ok() && dup->complete());
  EXPECT_EQ(dup->duplicates, records->records.size());
  // Another board's journal, and a shard of another campaign (another K), are refused.
  const std::vector<std::string> other = run_campaign(n + 1, 1, "foreign");
  std::vector<std::string> foreign = paths;
  foreign.push_back(other[0]);
  const auto refused = merge_journals(foreign);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("different counts"), std::string::npos);
  const std::vector<std::string> other_k = run_campaign(n, 2, "otherk");
  foreign = paths;
  foreign.push_back(other_k[1]);
  EXPECT_FALSE(merge_journals(foreign).ok());
  EXPECT_FALSE(merge_journals(std::vector<std::string>{temp_path("none.ckpt")}).ok());
}

TEST(Campaign, ACountThatBreaksTheOrbitsIsNoResult) {
  // The join's tasks have weight 1: one solution more makes a total that no set of whole orbits
  // has.
  const std::vector<std::string> paths = run_campaign(16, 2, "orbits", "join");
  const auto records = read_journal(paths[1]);
  ASSERT_TRUE(records.ok() && !records->records.empty());
  const FinishedSubproblem first = records->records.front();
  ASSERT_TRUE(change_count(paths[1], first.index, first.tally.solutions + 1));
  const auto m = merge_journals(paths);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->covered, m->tasks);
  EXPECT_FALSE(m->complete());
  EXPECT_NE(m->inconsistent.find("do not add up"), std::string::npos) << m->inconsistent;
}

TEST(Campaign, StatusCountsShardsAndItsRateIsOfTheLastHour) {
  const int n = 12;
  const std::vector<std::string> paths = run_campaign(n, 4, "status");
  write_bytes(paths[1], bytes_of(paths[1]).substr(0, FileJournal::kHeaderBytes + 2 * 32 + 5));
  const std::vector<std::string> given = {paths[0], paths[1], paths[3]};
  const auto now =
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
  const auto s = campaign_status(given, now + 1000);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->done, 2u);
  EXPECT_EQ(s->partial, 1u);
  EXPECT_EQ(s->not_started, 1u);
  EXPECT_GT(s->cost_done, 0u);
  EXPECT_LT(s->cost_done, s->cost);
  EXPECT_EQ(s->warnings.size(), 1u);  // the torn record
  EXPECT_GT(s->fraction_per_hour, 0);
  EXPECT_GT(s->eta_hours, 0);
  // Two hours later nothing was written in the last hour: no rate, no ETA.
  const auto later = campaign_status(given, now + 2 * 3'600'000);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->fraction_per_hour, 0);
  EXPECT_LT(later->eta_hours, 0);
}

TEST(Campaign, AuditPassesAndNamesATaskWhoseCountWasChanged) {
  const int n = 12;
  const std::vector<std::string> paths = run_campaign(n, 3, "audit");
  AuditConfig config;
  config.fraction = 0.2;
  config.seed = 5;
  config.threads = 2;
  const auto good = audit_journals(paths, config);
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_GT(good->sampled, 0u);
  EXPECT_LT(good->sampled, good->recorded);
  EXPECT_NE(good->second_kernel, good->kernel);
  EXPECT_TRUE(good->mismatches.empty());
  // A sampled task's count changed in its journal.
  std::uint64_t sampled = 0;
  while (!cross_check_selected(config.fraction, config.seed, sampled)) ++sampled;
  std::string holder;
  for (const std::string& p : paths)
    if (change_count(p, sampled, 12345)) holder = p;
  ASSERT_FALSE(holder.empty());
  const auto bad = audit_journals(paths, config);
  ASSERT_TRUE(bad.ok()) << bad.error().message;
  ASSERT_EQ(bad->mismatches.size(), 1u);
  EXPECT_EQ(bad->mismatches[0].task, sampled);
  EXPECT_EQ(bad->mismatches[0].recorded, 12345u);
  EXPECT_EQ(bad->mismatches[0].file, holder);
  EXPECT_FALSE(audit_journals(paths, AuditConfig{0, 1, 1}).ok());
}

}  // namespace
}  // namespace nq::campaign_tests
