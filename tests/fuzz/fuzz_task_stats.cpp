// simulate's --task-stats CSV: parse_task_stats returns distinct ids with non-negative finite
// costs, sorted by id, or an Error.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/count/simulate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto tasks = nq::parse_task_stats(text, "fuzz");
  if (!tasks.ok()) return 0;
  if (tasks->empty()) __builtin_trap();
  for (std::size_t k = 0; k < tasks->size(); ++k) {
    const nq::TaskStat& t = (*tasks)[k];
    if (!(std::isfinite(t.seconds) && t.seconds >= 0 && std::isfinite(t.estimate) &&
          t.estimate >= 0))
      __builtin_trap();
    if (k > 0 && (*tasks)[k - 1].id >= t.id) __builtin_trap();
  }
  // The simulator takes what the reader accepts.
  if (tasks->size() <= 256) nq::simulate_schedule(*tasks, 3, 2);
  return 0;
}
