#include "base/threads.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>

#include <algorithm>
#include <cstddef>

namespace nq {

int hardware_threads() {
  return tbb::info::default_concurrency();
}

int allowed_threads(int requested) {
  const int threads = resolve_threads(requested);
  const auto allowed =
      tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), allowed));
}

CallArena::CallArena(int requested, int reserved_for_caller)
    : threads_(std::max(1, allowed_threads(requested))),
      arena_(threads_, std::min(reserved_for_caller, threads_)) {}

}  // namespace nq
