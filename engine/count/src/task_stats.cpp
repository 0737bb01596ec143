#include "engine/count/task_stats.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>

#include "base/read_file.hpp"

namespace nq {

std::string format_task_stats(std::span<const TaskStat> tasks) {
  std::ostringstream csv;
  csv << kTaskStatsHeader << "\n" << std::setprecision(9);
  for (const TaskStat& t : tasks)
    csv << t.id << "," << t.nodes << "," << t.seconds << "," << t.estimate << ","
        << (t.plan_order ? 1 : 0) << "," << (t.resumed ? 1 : 0) << "\n";
  return csv.str();
}

std::vector<TaskStat> timed_tasks(std::vector<TaskStat> tasks) {
  std::erase_if(tasks, [](const TaskStat& t) { return t.resumed; });
  return tasks;
}

namespace {

template <typename T>
bool parse_whole(std::string_view f, T& value) {
  std::uint64_t v = 0;
  if (!parse_decimal(f, v, std::numeric_limits<T>::max())) return false;
  value = static_cast<T>(v);
  return true;
}

// A non-negative finite decimal as the count writes it: 0.25, 3, 1.5e-05 (no sign in front,
// no spaces, no inf or nan).
bool parse_real(std::string_view f, double& value) {
  if (f.empty() || f[0] < '0' || f[0] > '9') return false;
  if (f.size() > 1 && f[0] == '0' && f[1] >= '0' && f[1] <= '9') return false;  // 01.5
  const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
  return ec == std::errc{} && end == f.data() + f.size() && std::isfinite(value) && value >= 0;
}

}  // namespace

Expected<std::vector<TaskStat>> read_task_stats(const std::string& path) {
  const Expected<std::string> text = read_text_file(path, "task stats");
  if (!text.ok()) return text.error();
  return parse_task_stats(*text, path);
}

static_assert(kMaxTaskStatsTotal == 1e100, "parse_task_stats' message quotes it");

Expected<std::vector<TaskStat>> parse_task_stats(std::string_view text, const std::string& name) {
  std::vector<TaskStat> tasks;
  std::vector<long long> line_of;  // each task's line, for the messages
  std::size_t columns = 0;         // 4, 5 or 6, as the header says
  double total_seconds = 0, total_estimate = 0;
  std::size_t at = 0;
  for (long long row = 1; at < text.size(); ++row) {
    const std::size_t eol = text.find('\n', at);
    const std::string_view line =
        text.substr(at, eol == std::string_view::npos ? std::string_view::npos : eol - at);
    at = eol == std::string_view::npos ? text.size() : eol + 1;
    const std::string where = name + ":" + std::to_string(row) + ": ";
    if (line.find('\r') != std::string_view::npos)
      return Error{where + "carriage return (CRLF line ends?): rows end with a newline only"};
    if (row == 1) {
      columns = line == kTaskStatsHeader                 ? 6
                : line == kTaskStatsHeaderWithoutResumed ? 5
                : line == kTaskStatsHeaderWithoutOrder   ? 4
                                                         : 0;
      if (columns == 0)
        return Error{"'" + name + "' is not a --task-stats file (expected the header '" +
                     std::string(kTaskStatsHeader) + "')"};
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string_view> fields;
    for (std::size_t from = 0;;) {
      const std::size_t comma = line.find(',', from);
      fields.push_back(line.substr(
          from, comma == std::string_view::npos ? std::string_view::npos : comma - from));
      if (comma == std::string_view::npos) break;
      from = comma + 1;
    }
    TaskStat t;
    auto flag = [&](std::size_t k) { return k >= columns || fields[k] == "0" || fields[k] == "1"; };
    const bool ok = fields.size() == columns && parse_whole(fields[0], t.id) &&
                    parse_whole(fields[1], t.nodes) && parse_real(fields[2], t.seconds) &&
                    parse_real(fields[3], t.estimate) && flag(4) && flag(5);
    if (!ok) {
      const std::string_view header = columns == 6   ? kTaskStatsHeader
                                      : columns == 5 ? kTaskStatsHeaderWithoutResumed
                                                     : kTaskStatsHeaderWithoutOrder;
      return Error{where + "expected '" + std::string(header) +
                   "': whole numbers id and nodes, non-negative decimals seconds and estimate" +
                   (columns == 6   ? ", plan_order and resumed 0 or 1"
                    : columns == 5 ? ", plan_order 0 or 1"
                                   : "") +
                   ", no spaces, signs or extra fields"};
    }
    t.plan_order = columns >= 5 && fields[4] == "1";
    t.resumed = columns >= 6 && fields[5] == "1";
    // Each column's total stays far below the largest double, so that no sum or product the
    // simulators form overflows into inf or nan.
    total_seconds += t.seconds;
    total_estimate += t.estimate;
    if (!(total_seconds <= kMaxTaskStatsTotal) || !(total_estimate <= kMaxTaskStatsTotal))
      return Error{where + "the " +
                   (total_seconds <= kMaxTaskStatsTotal ? "estimates" : "seconds") +
                   " of the rows up to this one add up to more than 1e100, the most a profile "
                   "may hold (this row: " +
                   std::string(fields[total_seconds <= kMaxTaskStatsTotal ? 3 : 2]) + ")"};
    tasks.push_back(t);
    line_of.push_back(row);
  }
  if (text.empty())
    return Error{"'" + name + "' is not a --task-stats file (expected the header '" +
                 std::string(kTaskStatsHeader) + "')"};
  if (tasks.empty()) return Error{"'" + name + "' has no task rows"};
  std::vector<std::size_t> order(tasks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return tasks[a].id < tasks[b].id; });
  for (std::size_t k = 1; k < order.size(); ++k)
    if (tasks[order[k]].id == tasks[order[k - 1]].id)
      return Error{"'" + name + "': task id " + std::to_string(tasks[order[k]].id) +
                   " appears twice (rows " + std::to_string(line_of[order[k - 1]]) + " and " +
                   std::to_string(line_of[order[k]]) + ")"};
  std::vector<TaskStat> sorted;
  sorted.reserve(tasks.size());
  for (std::size_t k : order) sorted.push_back(tasks[k]);
  return sorted;
}

}  // namespace nq
