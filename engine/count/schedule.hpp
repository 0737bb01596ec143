// The scheduling policy of a count, written once and used twice: by the runner, which runs it
// on the NUMA arenas, and by the scaling simulator, which replays measured task costs under it
// on machines we do not have (so the prediction uses the same policy by construction).
//
// The policy, for independent subproblems of very unequal cost:
//   1. order: largest estimated cost first (longest-processing-time order), so the last tasks
//      to start are the small ones and the finishing tail is short (the runner keeps the
//      row-split plan in plan order instead: neighbours there share the join kernel's cached
//      bottom rows);
//   2. deal to nodes: each subproblem, in that order, goes to the arena whose estimated load
//      per thread is lowest (greedy LPT over the NUMA nodes, in proportion to their threads);
//      the node's share is then copied into memory bound to that node;
//   3. deal to threads: a node's list is laid out as one contiguous range of positions per
//      thread (split_among_threads): LPT-dealt shares, each largest first, or, in plan order,
//      contiguous blocks of about equal estimated cost;
//   4. run: a thread claims `claim_size` positions at a time from the FRONT of its own range;
//   5. steal: a thread whose range is empty picks the range with the most estimated work left
//      in its own node (range_to_steal), and only when every range of its node is empty, in
//      any node (the nodes help each other at the end); it takes the part of that range holding
//      about half its estimated work (steal_split, cut_for_steal), which becomes its own range,
//      so that it can in turn be stolen from. The thief takes the FRONT half in a largest-first
//      layout: the largest tasks left go to the thread that is free now, not to the busy owner,
//      as in list scheduling (taking the back, the owner's largest tasks were left to the end:
//      at 1024 simulated workers, n = 16 nodes-cost, efficiency 0.518 against 0.574); in plan
//      order it takes the BACK half, so that the owner goes on with its neighbours. No
//      randomness: the simulator replays the runner's steals exactly.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.hpp"
#include "kernels/subproblem.hpp"

namespace nq {

// The estimated cost of a subproblem is cost.hpp's estimate_cost.

// Indices 0..costs.size()-1, largest cost first (ties keep the lower index first).
std::vector<std::uint32_t> largest_first(const std::vector<double>& costs);

// The order a run deals its subproblems in: largest first, or with `plan_order` the plan's own
// (the row-split plan: neighbours share a half's bottom rows, which the join kernel reuses, and
// its tasks are small and many, so the tail that largest-first shortens is short anyway).
std::vector<std::uint32_t> claim_order(const std::vector<double>& costs, bool plan_order);

// Deals `order` (indices into costs) to arenas with `threads[a]` threads: each index goes to the
// arena with the lowest load / threads so far (ties to the lower arena). Each queue keeps the
// order it was dealt in. (By value: one arena takes the list itself.)
std::vector<std::vector<std::uint32_t>> deal_to_arenas(std::vector<std::uint32_t> order,
                                                       const std::vector<double>& costs,
                                                       const std::vector<int>& threads);

// How many subproblems a thread takes at once from its range, for a node's list of `length`
// split among `threads`: small enough that a range splits into dozens of claims (balance, and
// something left to steal), large enough to feed a lane-parallel kernel a batch and to keep the
// compare-and-swaps rare. At most kMaxClaim: the runner counts a claim in buffers of that size.
inline constexpr std::size_t kMaxClaim = 16;
std::size_t claim_size(std::size_t length, int threads);

// A node's list laid out for its threads: thread t owns positions [bounds[t], bounds[t + 1]) of
// `ids` (bounds has threads + 1 entries, bounds[0] = 0, bounds[threads] = ids.size()).
struct ThreadRanges {
  std::vector<std::uint32_t> ids;
  std::vector<std::size_t> bounds;
};

// Splits a node's list (indices into costs) among `threads` threads. By default the list is
// dealt to the threads with deal_to_arenas (one thread each) and laid out share by share, so a
// thread's range keeps the list's order (largest first, for a largest-first list). With
// `keep_order` the list stays as it is (and is moved, not copied) and is cut into contiguous
// blocks of about equal cost.
ThreadRanges split_among_threads(std::vector<std::uint32_t> ids, const std::vector<double>& costs,
                                 int threads, bool keep_order);

// Suffix sums of a list's estimated costs: after[k] is the cost of positions k.. (after has one
// entry more than the list, ending with 0). A cost counts at least 1e-12, as in the dealing.
std::vector<double> suffix_costs(const std::vector<std::uint32_t>& ids,
                                 const std::vector<double>& costs);

// The estimated work of the positions [begin, end), from suffix_costs: 0 for an empty range,
// and more than 0 for any other, however rounding went.
double range_work(const std::vector<double>& after, std::size_t begin, std::size_t end);

// Where a thief cuts the range [begin, end) of two positions or more: at the mid whose two parts
// [begin, mid) and [mid, end) are each nearest half the range's estimated work (ties: the back
// part the smaller), with at least one position on each side: begin < mid < end. (A range of one
// position gives begin.)
std::size_t steal_split(const std::vector<double>& after, std::size_t begin, std::size_t end);

// A steal from the non-empty range [begin, end): the thief's new range and what the victim keeps.
// Positions before `begin` are claimed already and in neither part.
struct StealCut {
  std::size_t thief_begin = 0, thief_end = 0;
  std::size_t victim_begin = 0, victim_end = 0;
};

// Every node's list, laid out for its threads and put end to end in one space of positions:
// what the runner claims from and steals in, and what the simulator replays. Worker w (the
// workers of node 0 first, then node 1's, ...) starts with the range
// [range_begin[w], range_begin[w + 1]); node k's positions are [node_begin[k], node_begin[k+1]).
struct WorkLayout {
  std::vector<std::uint32_t> ids;         // indices into the costs, in claim order
  std::vector<std::size_t> node_begin;    // nodes + 1 entries
  std::vector<std::size_t> worker_begin;  // node k's workers: [worker_begin[k], worker_begin[k+1])
  std::vector<std::size_t> range_begin;   // workers + 1 entries
  std::vector<int> node_of;               // worker w's node
  std::vector<std::size_t> chunk;         // node k's claim_size
  std::vector<double> after;              // suffix_costs(ids, costs)
  // Which half a thief takes: the front (the largest tasks left, in a largest-first layout) or
  // the back (in plan order, so that the owner goes on with its neighbours).
  bool steal_front = true;

  std::size_t workers() const { return node_of.size(); }
  // The node whose list holds `position` (< ids.size()); a range never spans two nodes.
  int node_at(std::size_t position) const;
};

// Deals `order` to nodes of `threads[k]` threads (deal_to_arenas), then each node's list to its
// threads (split_among_threads, with `keep_order`). Thieves take the front half of a range, or,
// with `keep_order`, the back half. With one node and `keep_order`, `order` reaches the layout
// with one copy.
WorkLayout lay_out_work(std::vector<std::uint32_t> order, const std::vector<double>& costs,
                        const std::vector<int>& threads, bool keep_order);

// How a thief cuts the non-empty range [begin, end): at steal_split, taking the front part or
// the back part as the layout says; a range of one position goes to the thief whole.
StealCut cut_for_steal(const WorkLayout& layout, std::size_t begin, std::size_t end);

// The range a worker of node `node` steals from, given `left_of(w)`, the estimated work still in
// worker w's range (range_work; 0: empty): the richest range of the thief's own node, or, when
// every range there is empty, the richest of all (ties to the lower worker); -1 when every range
// is empty. A scan of the node's ranges per steal: cheap at the rate steals happen, and
// deterministic, so the simulator replays the runner's choices (no random victims).
template <class LeftOf>
int range_to_steal(const WorkLayout& layout, int node, LeftOf&& left_of) {
  auto richest = [&](std::size_t from, std::size_t to) {
    int best = -1;
    double most = 0;
    for (std::size_t w = from; w < to; ++w)
      if (const double left = left_of(w); left > most) {
        most = left;
        best = static_cast<int>(w);
      }
    return best;
  };
  const auto k = static_cast<std::size_t>(node);
  const int own = richest(layout.worker_begin[k], layout.worker_begin[k + 1]);
  return own >= 0 ? own : richest(0, layout.workers());
}

// --- Replaying measured costs (the scaling simulator) ---------------------------------------

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

// nqcount-mpi's dealing (cli/mpi_main.cpp). Rank 0 deals the tasks largest estimated cost
// first (ties in plan order), so that the run does not end waiting on a costly task dealt last:
// task costs vary tenfold (n = 22), and a Q(27)-sized run on 1,024 ranks of 64 threads has about
// 32 tasks a thread. A rank holds kDealerBatchesHeld batches: it asks for the next as soon as one
// is done, while the others keep its threads busy, so that the threads that a batch's slowest
// tasks leave idle count the next one. (Replayed by simulate_dealer on n = 22's measured task
// costs, cycled over Q(27)'s 2^21 tasks and scaled to its estimated total, on 1,024 ranks of 64
// threads: the threads were busy 20% of the time with batches of at most 1/(64 ranks) of the
// plan, 39% with batches of a task a thread in plan order, 69% largest first, 92% largest first
// holding two batches.) Three, because task times scatter around their estimates (+-43 to 74%
// in the estimate's samples at n = 26 to 28): Q(28) on 10,000 ranks of 64 threads, its tasks'
// times scattered so in the replay, was busy 0.833 of the time holding two batches and 0.955
// holding three (0.989 and 0.988 at the estimated costs; perf/results/log.md).
//   The unit of that order is a run of `run` consecutive tasks (dealer_run), dealt together
// and counted in plan order, largest run first: neighbours in the row-split plan share a half's
// bottom rows, which the join reuses, and scattered tasks made them again (nqcount-mpi on 2
// ranks of 1 thread spent 32% more CPU than nqcount on 2 threads at n = 19, the join's bottom
// parts 17% of it against 4%; 12% more with runs: perf/results/log.md). Where the plan has few
// tasks a thread the run is one task, the order as above.
template <class Cost>
std::vector<std::size_t> dealer_order(std::size_t tasks, Cost cost, std::size_t run = 1) {
  run = std::max<std::size_t>(run, 1);
  const std::size_t runs = (tasks + run - 1) / run;
  std::vector<double> run_cost(runs, 0.0);
  for (std::size_t i = 0; i < tasks; ++i) run_cost[i / run] += static_cast<double>(cost(i));
  std::vector<std::size_t> by_cost(runs);
  for (std::size_t r = 0; r < runs; ++r) by_cost[r] = r;
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [&](std::size_t a, std::size_t b) { return run_cost[a] > run_cost[b]; });
  std::vector<std::size_t> order;
  order.reserve(tasks);
  for (std::size_t r : by_cost)
    for (std::size_t i = r * run; i < std::min(tasks, (r + 1) * run); ++i) order.push_back(i);
  return order;
}
inline constexpr std::size_t kDealerBatchesHeld = 3;
// The batch rule, in tasks a thread: a rank of `threads` threads, among `all_threads` over every
// rank, gets `threads` times a share of guided self-scheduling (the tasks left over four times
// all the threads, at least 1), capped at 1/kDealerCapShare of the plan over all the threads
// (at least 1).
// So a batch keeps every thread of its rank busy (a 64-thread rank is dealt 64 tasks or more
// while there are), and the batches out with the ranks, all that a lost rank or a killed job
// costs again, hold at most about kDealerBatchesHeld / kDealerCapShare of the plan (1.2%), or
// that many tasks a thread. At least 1 while any is left. (With 1/64, two batches held and the
// largest first, a job killed a third of the way through n = 20 on 3 ranks had 14.5% of its
// finished work to redo.)
inline constexpr std::size_t kDealerCapShare = 256;
std::size_t dealer_batch(std::size_t left, std::size_t plan_size, std::size_t threads,
                         std::size_t all_threads);
// The run: as many consecutive tasks as leave kDealerRunsPerThread runs a thread (over every
// rank's threads), at most kDealerMaxRun, at least 1. That is what one thread gets of a full
// batch (kDealerCapShare, above): a longer run's tasks go to several of a rank's threads anyway,
// and a batch of a few tasks a thread then mixes the run's costly and cheap tasks, its threads
// waiting on the costliest (replayed at n = 26 and 28 on 100 ranks of 64 threads, runs of 8 and
// 9 left the threads busy 0.88 and 0.92 of the time, runs of one 1.00).
inline constexpr std::size_t kDealerRunsPerThread = kDealerCapShare;
inline constexpr std::size_t kDealerMaxRun = 1024;
std::size_t dealer_run(std::size_t tasks, std::size_t all_threads);
// Where a batch of `batch` tasks that starts at position `next` of the dealing order ends: tasks
// of no estimated cost (row-split ranks that stand for no subproblem: half of them up to n = 24,
// all at the end of the order) do not count toward `batch`; up to kDealerFreeTasks of them join
// it. Dealt one a thread instead, n = 22's 175,846 such tasks (0.11 s of work) kept rank 0 busy
// at the end of a 1,024-rank replay.
inline constexpr std::size_t kDealerFreeTasks = std::size_t{1} << 16;
template <class Cost>
std::size_t dealer_batch_end(std::size_t next, std::size_t size, std::size_t batch, Cost cost) {
  std::size_t end = next, costed = 0, free = 0;
  while (end < size && (cost(end) > 0 ? costed < batch : free < kDealerFreeTasks)) {
    ++(cost(end) > 0 ? costed : free);
    ++end;
  }
  return end;
}
// The granularity that follows the cluster: the fewest tasks a plan dealt to `all_threads`
// threads (over every rank) should have, kDealerTasksPerThread a thread. The dealer's batches
// and the tail both need many tasks a thread: with a few, the last batches are dealt when the
// other threads are done, and the run ends waiting on them (Q(27)'s 2^21 tasks on 4,096 ranks of
// 64 threads, 8 a thread: busy 54% of the time in the replay). The row-split plan is cut that
// fine where its ranks allow (plan_rowsplit's min_tasks; one rank a task at most).
inline constexpr std::uint64_t kDealerTasksPerThread = 32;
std::uint64_t dealer_plan_tasks(std::uint64_t all_threads);
// The cap alone (also the most cross-checks a check batch carries).
std::size_t dealer_batch_cap(std::size_t plan_size, std::size_t threads, std::size_t all_threads);

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
