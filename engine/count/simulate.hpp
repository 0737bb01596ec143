// The scaling simulator: measured task costs (a --task-stats profile, task_stats.hpp) replayed on
// machines we do not have, under the runner's own policy (layout.hpp: the layout, the claims,
// the steals) or nqcount-mpi's dealing (dealer.hpp), so that a prediction uses the same policy
// by construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/count/task_stats.hpp"

namespace nq {

struct SimulatedRun {
  int workers = 0;
  int arenas = 0;
  double makespan = 0;       // seconds until the last worker finishes
  double work = 0;           // the sum of the task costs (the one-worker time)
  double speedup = 0;        // work / makespan
  double efficiency = 0;     // speedup / workers
  std::uint64_t steals = 0;  // ranges taken from another worker (same node or not)
};

// Replays `tasks` on `workers` simulated threads spread over NUMA nodes of `node_cores` cores
// each (the engine's plan_arenas on such a machine), under the policy above. Each claim costs
// the sum of its tasks' seconds; communication is free.
// `serial_seconds` (a run's setup_seconds) is added to both the work and the makespan: the
// whole run's speedup then obeys Amdahl's law. `plan_order` replays a run that keeps its plan's
// order (the join's row-split plan: contiguous blocks, back steals) instead of largest first.
SimulatedRun simulate_schedule(const std::vector<TaskStat>& tasks, int workers, int node_cores,
                               double serial_seconds = 0, bool plan_order = false);

// The dealing above, replayed: `ranks` processes of `threads` threads each, rank 0 among them,
// take batches from rank 0 in its order and by its rule, count each batch's tasks on their
// threads (each task to the thread free first, not before its batch arrives), and hand a batch's
// results back with their next request when its last task is done. Rank 0's main thread serves
// the requests one at a time, `root_seconds` each (what scripts/mpi-throughput measures: 1 /
// batch results per second); rank 0's own batches skip the queue. Communication is otherwise
// free. The questions it answers: how busy the ranks' threads stay for a plan of these task
// costs, and at how many ranks rank 0 becomes the bottleneck.
struct SimulatedDeal {
  int ranks = 0, threads = 0;
  double makespan = 0;        // seconds until the last rank is done
  double work = 0;            // the sum of the task costs
  double efficiency = 0;      // work / (ranks threads makespan)
  double root_busy = 0;       // the share of the makespan rank 0's main thread spent serving
  double longest_wait = 0;    // the longest a request waited in rank 0's queue
  std::uint64_t batches = 0;  // batches dealt
  // The tail: from the moment the first thread is done for good (its last task finished and no
  // more dealt to it; 0 for a thread that never had one) to the end of the run.
  double first_idle = 0;
  double tail = 0;  // makespan - first_idle
};
SimulatedDeal simulate_dealer(const std::vector<TaskStat>& tasks, int ranks, int threads,
                              double root_seconds);

// What a replay holds beside its `tasks` (already read), in bytes, an upper bound from the types
// it keeps: simulate_schedule per worker its range, its place in the steal tree and its node,
// per task the costs, the orders, the layout and a copy of the task (the nodes cost);
// simulate_dealer per rank its threads' pool and requests, per task the dealing order and a
// thread's finishing time. Neither grows with ranks times threads.
std::uint64_t simulate_schedule_bytes(std::size_t tasks, int workers, int node_cores);
std::uint64_t simulate_dealer_bytes(std::size_t tasks, int ranks);

// The same tasks with their seconds replaced by nodes times the profile's mean seconds per node:
// a cost model immune to timing noise (a virtual machine's stolen time shows up as CPU time),
// at the price of ignoring how the time per node varies between subproblems.
std::vector<TaskStat> costs_from_nodes(std::vector<TaskStat> tasks);

}  // namespace nq
