// The scheduling policy of a count, written once and used twice: by the runner, which runs it
// on the NUMA arenas, and by the scaling simulator, which replays measured task costs under it
// on machines we do not have (so the prediction uses the same policy by construction).
//
// The policy, for independent subproblems of very unequal cost:
//   1. order: largest estimated cost first (longest-processing-time order), so the last tasks
//      to start are the small ones and the finishing tail is short;
//   2. deal: each subproblem, in that order, goes to the arena whose estimated load per thread
//      is lowest (greedy LPT over the NUMA nodes, in proportion to their threads); the node's
//      share is then copied into memory bound to that node;
//   3. inside an arena: the arena's threads take chunks of `claim_size` subproblems from the
//      front of their node's queue, one atomic increment per chunk;
//   4. help: a thread whose node's queue is empty takes chunks from the queue with the most
//      estimated work left, so no node idles while another still has work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "subproblem.hpp"
#include "types.hpp"

namespace nq {

// The estimated cost of a subproblem is cost.hpp's estimate_cost.

// Indices 0..costs.size()-1, largest cost first (ties keep the lower index first).
std::vector<std::uint32_t> largest_first(const std::vector<double>& costs);

// Deals `order` (indices into costs) to arenas with `threads[a]` threads: each index goes to the
// arena with the lowest load / threads so far (ties to the lower arena). Each queue keeps the
// order it was dealt in.
std::vector<std::vector<std::uint32_t>> deal_to_arenas(const std::vector<std::uint32_t>& order,
                                                       const std::vector<double>& costs,
                                                       const std::vector<int>& threads);

// How many subproblems a thread takes at once from a queue of `length` shared by `threads`:
// small enough that a queue splits into dozens of claims per thread (balance), large enough to
// feed a lane-parallel kernel a batch and to keep the atomic increments rare.
std::size_t claim_size(std::size_t length, int threads);

// The queue a thread with nothing left at home helps: the one with the most estimated work
// left, or -1 if every queue is empty. `left[q]` is queue q's estimated work not yet claimed.
int queue_to_help(const std::vector<double>& left);

// --- Replaying measured costs (the scaling simulator) ---------------------------------------

// One subproblem as --task-stats writes it.
struct TaskStat {
  std::uint32_t id = 0;  // index in the plan
  std::uint64_t nodes = 0;
  double seconds = 0;
  double estimate = 0;  // estimate_cost: what the policy orders and deals by
};

struct SimulatedRun {
  int workers = 0;
  int arenas = 0;
  double makespan = 0;    // seconds until the last worker finishes
  double work = 0;        // the sum of the task costs (the one-worker time)
  double speedup = 0;     // work / makespan
  double efficiency = 0;  // speedup / workers
};

// Replays `tasks` on `workers` simulated threads spread over NUMA nodes of `node_cores` cores
// each (the engine's plan_arenas on such a machine), under the policy above. Each claim costs
// the sum of its tasks' seconds; communication is free.
// `serial_seconds` (a run's setup_seconds) is added to both the work and the makespan: the
// whole run's speedup then obeys Amdahl's law.
SimulatedRun simulate_schedule(const std::vector<TaskStat>& tasks, int workers, int node_cores,
                               double serial_seconds = 0);

// The same tasks with their seconds replaced by nodes times the profile's mean seconds per node:
// a cost model immune to timing noise (a virtual machine's stolen time shows up as CPU time),
// at the price of ignoring how the time per node varies between subproblems.
std::vector<TaskStat> costs_from_nodes(std::vector<TaskStat> tasks);

// Reads a --task-stats CSV (header "id,nodes,seconds,estimate"; rows in any order).
Expected<std::vector<TaskStat>> read_task_stats(const std::string& path);

}  // namespace nq
