// Thread counts as the user gives them: 0 means every hardware thread; and a thread's CPU time.
#pragma once

#include <time.h>

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

// The CPU seconds the calling thread has used. Timings of tasks and samples use it rather than
// the wall clock: on a shared machine a task preempted for a time slice would otherwise look
// ten times its cost.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace nq
