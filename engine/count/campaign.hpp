// A count as a campaign of independent shards: job-array tasks of a batch scheduler, each
// counting a part of the plan into its own journal, put together afterwards.
//
//   CountConfig config;                 // each array task: its shard, its journal
//   config.n = 21;
//   config.shard = 3, config.shards = 1000;
//   config.checkpoint = "q21-3.ckpt";
//   count(config);                      // resumable like any count (journal.hpp)
//   ...
//   Expected<MergeResult> m = merge_journals(paths);     // coverage, agreement, the counts
//   Expected<CampaignStatus> s = campaign_status(paths, now_ms);
//   Expected<AuditResult> a = audit_journals(paths, {0.01, seed});
//
// A shard is a set of the plan's tasks chosen by their estimated costs (estimate_costs; the same
// on every machine), so that the shards of a campaign take about as long each; a shard's journal
// names its n, its plan (route, split depth, classes), its cut (tasks) and its shard, so that
// journals of two campaigns, or of two shards, cannot be taken for one another. Merging reads the
// journals without locking or changing them. Nothing here prints or exits.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "base/types.hpp"
#include "engine/count/journal.hpp"
#include "engine/count/reducer.hpp"

namespace nq {

// The shard of every task (a value in [0, shards)), from the tasks' estimated costs: largest
// first, each to the shard with the least estimated cost so far (the lowest-numbered on a tie).
// Each shard's cost is within the largest task's cost of the mean, so within a few percent where
// a shard holds many tasks. Deterministic: the same costs give the same shards. shards >= 1.
std::vector<std::uint32_t> shard_assignment(std::span<const std::uint64_t> costs,
                                            std::uint32_t shards);
// The tasks of shard `shard` of `shards`, ascending.
std::vector<std::uint64_t> shard_tasks(std::span<const std::uint64_t> costs, std::uint32_t shard,
                                       std::uint32_t shards);

// Where merging a campaign's journals falls short.
struct MergeConflict {  // one task recorded with two counts: no count can be given
  std::uint64_t task = 0;
  std::uint64_t solutions[2] = {0, 0};
  std::string files[2];
};
struct ShardGap {           // tasks no journal records, by the shard that should have counted them
  std::uint32_t shard = 0;  // of MergeResult::shards (0 of 0: a campaign without shards)
  std::uint64_t tasks = 0;  // in the shard
  std::uint64_t missing = 0;          // of them, recorded nowhere
  bool journal_given = false;         // a journal of this shard was among the files
  std::vector<std::uint64_t> sample;  // the first missing tasks, at most kGapSample
};
inline constexpr std::size_t kGapSample = 8;

struct MergeResult {
  RunIdentity run;               // the campaign's plan (shard fields 0)
  std::uint32_t shards = 0;      // K of the shard journals (0: none was a shard's)
  std::uint64_t tasks = 0;       // in the plan
  std::uint64_t covered = 0;     // tasks recorded at least once
  std::uint64_t duplicates = 0;  // records of a task already recorded, with the same count
  std::vector<MergeConflict> conflicts;
  std::vector<ShardGap> gaps;  // by shard, only shards with missing tasks
  // Every task recorded once, but the counts do not add up to whole orbits (a count recorded
  // wrong with a valid checksum): why. Empty where they do.
  std::string inconsistent;
  bool complete() const { return covered == tasks && conflicts.empty() && inconsistent.empty(); }
  // Only when complete: the counts, as a whole count gives them.
  OrbitCounts orbits;
  u128 nodes = 0;
  std::vector<std::string> warnings;  // torn final records ignored
};

// Reads the journals (shards' and whole counts', nqcount-mpi's included) of one count, in any
// order, and checks that they cover every task of its plan, each with one count. An Error where
// a file is no journal or is corrupt, where the journals are of different boards, plans, cuts or
// shard counts, or where this nqcount plans that count otherwise; conflicts and gaps are data.
Expected<MergeResult> merge_journals(std::span<const std::string> paths);

// Where a campaign stands, from its journals (read-only, while shards are still writing).
struct ShardState {
  std::uint32_t shard = 0;
  std::uint64_t tasks = 0, done = 0;
  std::uint64_t cost = 0, cost_done = 0;  // estimated
  std::string path;                       // the shard's journal ("" where none was given)
  std::uint64_t last_ms = 0;              // its last time mark (Unix ms; 0: none)
};
struct CampaignStatus {
  RunIdentity run;
  std::uint32_t shards = 0;  // 0: journals of whole counts only (one "shard": the plan)
  std::vector<ShardState> by_shard;
  std::uint64_t done = 0, partial = 0, not_started = 0;  // shards
  std::uint64_t tasks = 0, tasks_done = 0;
  std::uint64_t cost = 0, cost_done = 0;
  // The estimated cost done per hour over the hour before `now` (or since the campaign's first
  // journal was created, where that is later), as a fraction of the whole: 0 where nothing was
  // written in that hour; and the hours left at that rate (negative: unknown).
  double fraction_per_hour = 0;
  double eta_hours = -1;
  std::vector<std::string> warnings;
};
Expected<CampaignStatus> campaign_status(std::span<const std::string> paths, std::uint64_t now_ms);

// A third party's check of a campaign: a seeded sample of its recorded tasks counted again with
// the kernel a cross-check would use for the kernel that made the journals (cross_check_kernel,
// count.hpp), task by task.
struct AuditConfig {
  double fraction = 0.01;  // of the recorded tasks, chosen as cross_check_selected chooses
  std::uint64_t seed = 1;
  int threads = 0;  // 0: every hardware thread
};
struct AuditMismatch {
  std::uint64_t task = 0;
  std::uint64_t recorded = 0, recounted = 0;
  std::string file;
};
struct AuditResult {
  RunIdentity run;
  std::uint64_t recorded = 0;  // distinct tasks the journals record
  std::uint64_t sampled = 0;   // of them, counted again
  std::string kernel;          // that made the journals (as recorded, or the route's own)
  std::string second_kernel;   // that counted the sample again
  std::vector<AuditMismatch> mismatches;
  bool cancelled = false;  // stopped by the monitor: the comparison covers part of the sample
  double seconds = 0;
};
// An Error as for merge_journals, or where the count cannot run.
Expected<AuditResult> audit_journals(std::span<const std::string> paths, const AuditConfig& config,
                                     Monitor* monitor = nullptr);

}  // namespace nq
