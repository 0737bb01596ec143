// Thread counts as the user gives them: 0 means every hardware thread.
#pragma once

namespace nq {

// The most threads a count or a solve accepts: far above any machine we know, and low enough
// that creating them cannot exhaust the process's resources.
inline constexpr int kMaxThreads = 4096;

// Threads the hardware offers (what --threads 0 means), as TBB sees them (a cpuset counts).
int hardware_threads();

// `requested`, or hardware_threads() when it is 0 or less.
inline int resolve_threads(int requested) {
  return requested > 0 ? requested : hardware_threads();
}

}  // namespace nq
