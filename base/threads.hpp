// Thread counts as the user gives them: 0 means every hardware thread; the threads a call of
// the engine runs on (CallArena); and a thread's CPU time.
#pragma once

#include <oneapi/tbb/task_arena.h>
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

// The most threads a call of the engine may run for `requested` (resolve_threads): as many, within
// what the host allows TBB now (tbb::global_control's max_allowed_parallelism, read and never
// set). TBB's default cap is the hardware's threads; a program that wants more raises it for
// itself (nqcount and nqcount-mpi do, cli/commands/commands.hpp).
int allowed_threads(int requested);

// The threads of one call of the engine (a count, a plan, a solve): a task_arena of
// allowed_threads(requested) slots, one of them kept for the calling thread, which enters it
// (execute) and takes part, so that the call's work always ends, whatever else holds TBB's
// threads (a count inside the host's own parallel_for) and whatever the host caps TBB at. The
// arena bounds the call's concurrency; nothing of the host's TBB changes.
class CallArena {
 public:
  explicit CallArena(int requested, int reserved_for_caller = 1);
  CallArena(const CallArena&) = delete;
  CallArena& operator=(const CallArena&) = delete;
  int threads() const { return threads_; }
  tbb::task_arena& arena() { return arena_; }
  template <class F>
  decltype(auto) execute(F&& f) {
    return arena_.execute(std::forward<F>(f));
  }

 private:
  int threads_;
  tbb::task_arena arena_;
};

// The CPU seconds the calling thread has used. Timings of tasks and samples use it rather than
// the wall clock: on a shared machine a task preempted for a time slice would otherwise look
// ten times its cost.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace nq
