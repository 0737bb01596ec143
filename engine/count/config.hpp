// A count's config and its result: what a caller of count() (count.hpp) fills in and reads
// back, and what the run's own bookkeeping (memory.hpp, orchestrate.hpp) works on.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <semaphore>
#include <string>
#include <vector>

#include "base/types.hpp"
#include "engine/count/journal.hpp"
#include "engine/count/reducer.hpp"
#include "engine/count/task_stats.hpp"

namespace nq {

struct Kernel;

// Seats for counting threads, shared by counts that run at the same time in one process
// (CountConfig::seats: nqcount-mpi's batches held by a rank). A worker holds a seat while it claims
// and counts, so that the counts together keep `seats` threads counting rather than that many
// each (more threads than cores, time-sliced, cost CPU time in cache misses); the seats that
// the end of one count leaves free go to the other's threads.
class ThreadSeats {
 public:
  explicit ThreadSeats(int seats) : free_(seats) {}
  ThreadSeats(const ThreadSeats&) = delete;
  ThreadSeats& operator=(const ThreadSeats&) = delete;

  // Waits for a seat, looking at `stop` every few milliseconds meanwhile: false (no seat taken)
  // once it returns true.
  template <class Stop>
  bool take(Stop&& stop) {
    while (!free_.try_acquire_for(std::chrono::milliseconds(20)))
      if (stop()) return false;
    const int now = taken_.fetch_add(1, std::memory_order_relaxed) + 1;
    int most = most_.load(std::memory_order_relaxed);
    while (now > most && !most_.compare_exchange_weak(most, now, std::memory_order_relaxed)) {
    }
    return true;
  }
  void give_back() {
    taken_.fetch_sub(1, std::memory_order_relaxed);
    free_.release();
  }
  // The most seats taken at once so far.
  int most_taken() const { return most_.load(std::memory_order_relaxed); }

 private:
  std::counting_semaphore<> free_;
  std::atomic<int> taken_{0}, most_{0};
};

// The seed of --cross-check-seed when none is given.
inline constexpr std::uint64_t kDefaultCrossCheckSeed = 1;

struct CountConfig {
  int n = 0;
  int threads = 0;  // 0: every hardware thread; up to kMaxThreads, more than the hardware allowed
  std::string kernel = "auto";  // a kernel name from the table (all_kernels()), or "auto"
  int split_rows = -1;          // -1: default_split_rows(n)
  // The literature's backtracking variants (kernels/src/ordered.cpp), scalar kernel only: the open
  // row searched next (top to bottom, or the one with the fewest free squares) and look-ahead.
  bool order_fewest = false;
  bool lookahead = false;
  // Optional (engine/count/journal.hpp): count() skips the subproblems it has finished and adds
  // their counts back; every subproblem finished by this run is recorded in it.
  SubproblemJournal* journal = nullptr;
  // Or a checkpoint file that count() opens itself when `journal` is null (a FileJournal,
  // flushed every `checkpoint_every` seconds and closed before count() returns): a run stopped
  // by Monitor::cancel resumes from it. A file that cannot be created or written, or that holds
  // another run, is an Error naming it.
  std::string checkpoint;
  int checkpoint_every = 30;
  bool numa = true;         // one arena per NUMA node, pinned (false: one unpinned arena)
  bool task_stats = false;  // time every subproblem (CountResult::tasks)
  // Bytes the run may use (engine/count/memory.hpp): a count whose estimated peak is above it is
  // refused before it starts. 0: default_memory_limit(), 80% of the physical memory.
  std::uint64_t memory_limit = 0;
  // The fraction of subproblems counted a second time, by an independent kernel
  // (cross_check_kernel below), in [0, 1]: a difference stops the run
  // (CountResult::cross_check_failure). -1: default_cross_check(n). Which subproblems is decided
  // by the seed and the subproblem's index alone (cross_check_selected), so a resumed run, another
  // thread count or another MPI rank checks the same ones.
  double cross_check = -1;
  std::uint64_t cross_check_seed = kDefaultCrossCheckSeed;
  // count_selected only: count the selection with the second kernel instead (and check nothing):
  // nqcount-mpi's cross-check, on another rank than the one that counted it first.
  bool recheck = false;
  // The row-split plan's tasks: at least this many where its ranks allow (plan_rowsplit's
  // min_tasks; 0: the plan's own cut). nqcount-mpi sets cluster_plan_tasks of all its threads.
  std::uint64_t min_tasks = 0;
  // Count only shard `shard` of `shards` of the plan (campaign.hpp: shard_tasks), a part of a
  // campaign that `merge_journals` puts together; its journal records the shard. shards 0: the
  // whole plan. count() only.
  std::uint32_t shard = 0, shards = 0;
  // count_selected only: the seats this count's threads share with other counts running at the
  // same time (ThreadSeats); null: its threads count freely.
  ThreadSeats* seats = nullptr;
};

// What one arena did.
struct ArenaResult {
  int node = -1;  // NUMA node (os index), -1 for the unpinned arena of numa = false
  int threads = 0;
  std::vector<int> cpus;          // the CPUs it was pinned to (empty: unpinned)
  bool pinned = false;            // every thread that entered it was bound to `cpus`
  std::vector<int> ran_on;        // the CPUs its threads were seen running on, ascending
  std::uint64_t subproblems = 0;  // counted by its threads
  std::uint64_t helped = 0;       // of those, taken from another node's share
  std::uint64_t stolen = 0;       // of those, taken from another thread of the same node
  // The CPU each worker bound itself to for its loop, where the arena has one thread a CPU
  // (topology.hpp, worker_cpus); empty where its threads moved freely.
  std::vector<int> worker_cpus;
};

struct CountResult {
  int n = 0;
  int threads = 0;
  OrbitCounts orbits;
  u128 nodes = 0;
  std::uint64_t subproblems = 0;        // subproblems counted
  std::uint64_t subproblems_total = 0;  // subproblems planned (0: cancelled while planning)
  std::uint64_t classes = 0;            // canonical classes (0 for the classic route)
  int split_rows = 0;
  double seconds = 0;
  std::string kernel;
  std::string isa;   // the instruction set the kernel ran in (Kernel::isa)
  std::string note;  // what "auto" chose differently from what it names, for the caller to say
  bool cancelled = false;  // Monitor::cancel stopped it: counts are partial
  // A shard's count (CountConfig::shards > 0): subproblems_total is the shard's tasks, and
  // orbits.total their weighted sum alone (the rest of the orbits is 0: merge_journals has them).
  std::uint32_t shard = 0, shards = 0;
  std::uint64_t subproblems_resumed = 0;  // of `subproblems`, found done in the journal
  double setup_seconds = 0;               // planning, estimating and dealing: before any counting
  int numa_nodes = 1;                     // NUMA nodes the run used (one arena each)
  std::vector<ArenaResult> arenas;
  std::vector<TaskStat> tasks;  // with CountConfig::task_stats: one per subproblem, by id
  // The estimated peak memory in bytes (engine/count/memory.hpp), checked against the limit up
  // front.
  std::uint64_t memory_estimate = 0;
  std::uint64_t cross_checked = 0;  // subproblems this run counted twice (CountConfig::cross_check)
  std::string cross_check_kernel;   // the second kernel ("" when nothing is cross-checked)
  // Not empty: a cross-checked subproblem was counted differently by the two kernels, and the
  // run stopped there (`cancelled` is set; the counts are partial). One line, e.g.
  // "cross-check failed: subproblem 17: avx2 counted 10, scalar counted 11".
  std::string cross_check_failure;
  // Not empty: the count is complete, but its checkpoint (CountConfig::checkpoint) could not be
  // saved (a full disk, say): what went wrong, for the caller to say beside the counts.
  std::string checkpoint_failure;
};

}  // namespace nq
