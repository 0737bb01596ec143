// The --task-stats profile: one record a task of a count (CountConfig::task_stats), what the
// scaling simulator (simulate.hpp) replays; and its CSV file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.hpp"

namespace nq {

// One subproblem as --task-stats writes it.
struct TaskStat {
  std::uint32_t id = 0;  // index in the plan
  std::uint64_t nodes = 0;
  double seconds = 0;
  double estimate = 0;  // estimate_cost: what the policy orders and deals by
  // The run kept its plan's order (the join's row-split plan) rather than largest first: what
  // a replay of it must do too (simulate_schedule's plan_order).
  bool plan_order = false;
  // Counted by an earlier run and found done in the checkpoint this run resumed from: nodes and
  // seconds are 0 because this run did not time it, so a replay must leave it out.
  bool resumed = false;
};

// The --task-stats file: a CSV with the header kTaskStatsHeader and one row per task, plan_order
// and resumed 0 or 1. Files without the resumed column (kTaskStatsHeaderWithoutResumed) have
// no resumed rows; files without plan_order either (kTaskStatsHeaderWithoutOrder) read as
// largest-first runs.
inline constexpr std::string_view kTaskStatsHeader = "id,nodes,seconds,estimate,plan_order,resumed";
inline constexpr std::string_view kTaskStatsHeaderWithoutResumed =
    "id,nodes,seconds,estimate,plan_order";
inline constexpr std::string_view kTaskStatsHeaderWithoutOrder = "id,nodes,seconds,estimate";

// The timed tasks of a profile: `tasks` without the rows a resumed run did not time
// (TaskStat::resumed), which a replay must leave out.
std::vector<TaskStat> timed_tasks(std::vector<TaskStat> tasks);

// The file's text for `tasks`, as read_task_stats reads it back (seconds and estimates to 9
// significant digits).
std::string format_task_stats(std::span<const TaskStat> tasks);

// The most a --task-stats file's seconds may add up to, and its estimates: far above any count
// (a year is 3.2e7 s), and far enough below the largest double (1.8e308) that the simulators'
// sums and their products with worker and rank counts stay finite.
inline constexpr double kMaxTaskStatsTotal = 1e100;

// Reads a --task-stats CSV (header "id,nodes,seconds,estimate,plan_order,resumed", the last two
// columns 0 or 1; older files without them as kTaskStatsHeader says; rows in any order).
// Strict: every field is plain decimal (ids and nodes whole numbers, no sign, no spaces), ids
// are distinct, a row has exactly the header's columns, the seconds and the estimates each add
// up to at most kMaxTaskStatsTotal; a malformed row is refused as "FILE:LINE: ..." (CRLF line
// ends included). A file that cannot be read is refused with the reason (read_text_file).
Expected<std::vector<TaskStat>> read_task_stats(const std::string& path);
// The same on a file's text; `name` is what the messages call it.
Expected<std::vector<TaskStat>> parse_task_stats(std::string_view text, const std::string& name);

}  // namespace nq
