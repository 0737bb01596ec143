// A shard's part of count() (run.cpp): which tasks it resumes and counts, and its result.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/types.hpp"
#include "engine/count/config.hpp"
#include "engine/count/journal.hpp"
#include "engine/count/plan.hpp"

namespace nq::detail {

// What a count of `run` (a shard's identity: run.shards > 0) resumes from `journal` (null: none)
// and has left: its shard's tasks only (shard_tasks of the plan's `costs`), and how many tasks
// the shard has. An Error where the journal is another run's or records another shard's task,
// or where the plan has fewer tasks than shards.
struct ShardResume {
  ResumePoint resume;
  std::uint64_t tasks = 0;
  std::vector<std::uint64_t> costs;  // the plan's, other shards' tasks at 0 (the progress's)
};
Expected<ShardResume> resume_shard(const Plan& plan, std::span<const std::uint64_t> costs,
                                   const RunIdentity& run, SubproblemJournal* journal);

// A shard's result from a count's (finish_count's, which took it for a cancelled whole): its
// tasks, whether it finished them, and its weighted sum alone.
void finish_shard(std::uint32_t shard, std::uint32_t shards, std::uint64_t shard_size,
                  CountResult& result);

}  // namespace nq::detail
