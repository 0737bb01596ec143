// nqcount-mpi's dealer: rank 0's book of a run spread over MPI ranks, without MPI itself (the
// program moves the messages; the simulator, simulate.hpp simulate_dealer, replays the same
// rules). It hands out the plan's subproblems largest estimated cost first, in batches that
// shrink as the work runs out (dealer_batch), keeps the cross-checks waiting for their second
// count on another rank than the first, and sums, journals and reports what comes back.
// Thread-safe: rank 0's counting thread and its message thread call it at once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/types.hpp"
#include "engine/count/journal.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/reducer.hpp"

namespace nq {

// --- The dealing's rules (the Dealer's, replayed by simulate_dealer in simulate.hpp) ----------

// Rank 0 deals the tasks largest estimated cost first (ties in plan order), so that the run does
// not end waiting on a costly task dealt last. The unit of that order is a run of `run`
// consecutive tasks (dealer_run), dealt together and counted in plan order, largest run first:
// neighbours in the row-split plan share a half's bottom rows, which the join reuses.
// perf/results/log.md has the replays that chose these rules.
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

// A rank holds this many batches: it asks for the next as soon as one is done, while the others
// keep its threads busy (task times scatter around their estimates, and the threads that a
// batch's slowest tasks leave idle count the next one).
inline constexpr std::size_t kDealerBatchesHeld = 3;

// The batch rule, in tasks a thread: a rank of `threads` threads, among `all_threads` over every
// rank, gets `threads` times a share of guided self-scheduling (the tasks left over four times
// all the threads, at least 1), capped at 1/kDealerCapShare of the plan over all the threads
// (at least 1). So a batch keeps every thread of its rank busy, and the batches out with the
// ranks, all that a lost rank or a killed job costs again, hold at most about
// kDealerBatchesHeld / kDealerCapShare of the plan. At least 1 while any is left.
inline constexpr std::size_t kDealerCapShare = 256;
std::size_t dealer_batch(std::size_t left, std::size_t plan_size, std::size_t threads,
                         std::size_t all_threads);
// The cap alone (also the most cross-checks a check batch carries).
std::size_t dealer_batch_cap(std::size_t plan_size, std::size_t threads, std::size_t all_threads);

// The run: as many consecutive tasks as leave kDealerRunsPerThread runs a thread (over every
// rank's threads), at most kDealerMaxRun, at least 1: what one thread gets of a full batch (a
// longer run mixes a run's costly and cheap tasks in one batch, its threads waiting on the
// costliest).
inline constexpr std::size_t kDealerRunsPerThread = kDealerCapShare;
inline constexpr std::size_t kDealerMaxRun = 1024;
std::size_t dealer_run(std::size_t tasks, std::size_t all_threads);

// Where a batch of `batch` tasks that starts at position `next` of the dealing order ends: tasks
// of no estimated cost (row-split ranks that stand for no subproblem, all at the end of the
// order) do not count toward `batch`; up to kDealerFreeTasks of them join it, so that they do
// not keep rank 0 busy one a thread at the end of the run.
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
// other threads are done. The row-split plan is cut that fine where its ranks allow
// (plan_rowsplit's min_tasks; one rank a task at most).
inline constexpr std::uint64_t kDealerTasksPerThread = 32;
std::uint64_t dealer_plan_tasks(std::uint64_t all_threads);

// A batch dealt to a rank: subproblems to count, or to count again for the cross-check.
struct DealtBatch {
  std::vector<std::uint64_t> indices;
  bool check = false;
};

class Dealer {
 public:
  // `todo`: the subproblems to deal (a resumed run's); `costs`: every task's estimated cost;
  // `threads`: each rank's threads (a rank's batch is a multiple of them); the cross-check's
  // fraction and seed (cross_check_selected); `batch_limit`: the most tasks a batch (0: the
  // rule alone, dealer_batch). Records go to `journal` (may be null) and progress to `progress`.
  Dealer(const Plan& plan, const std::vector<std::uint64_t>& todo,
         const std::vector<std::uint64_t>& costs, SubproblemJournal* journal, Monitor& progress,
         std::vector<int> threads, double check_fraction, std::uint64_t check_seed,
         std::size_t batch_limit = 0);

  // What `rank` counts next: cross-checks of what other ranks counted first, then new work; its
  // own counts again only once there is no new work left (so that none waits for ever). Empty:
  // nothing left.
  DealtBatch take(int rank);
  // Deals nothing more (a rank stopped: a signal, an error).
  void stop_dealing();
  // Whether a rank that take() just sent away empty-handed may yet get work: cross-checks come
  // from counts still out with the ranks. Such a rank waits for them rather than stop (which
  // would leave the checks to nobody).
  bool may_deal_more();
  // Results of a batch from `rank`: counts (those the cross-check selects wait for their second
  // count), or second counts (`check`), compared with the first.
  void deliver(int rank, const std::vector<FinishedSubproblem>& done, bool check);

  Partial sum();
  // Estimated cost of the subproblems dealt and not yet back, and of those back in this run.
  std::pair<std::uint64_t, std::uint64_t> cost_out_and_in();
  std::vector<std::uint64_t> by_rank();  // subproblems each rank counted first in this run
  std::uint64_t checked();
  std::uint64_t checked_elsewhere();  // of checked(), counted again on another rank
  std::string failure();              // the first cross-check that failed ("" for none)

 private:
  struct First {  // a first count waiting for its check
    Tally tally;
    int rank = 0;
  };
  // Into the journal and the sums.
  void record(const std::vector<FinishedSubproblem>& done);

  const Plan& plan_;
  std::vector<std::uint64_t> todo_;
  const std::vector<std::uint64_t>& costs_;
  SubproblemJournal* journal_;
  Monitor& progress_;
  std::vector<int> threads_;
  std::size_t all_threads_;
  double check_fraction_;
  std::uint64_t check_seed_;
  std::size_t batch_limit_;
  std::mutex mu_;
  std::size_t next_ = 0;
  std::size_t out_ = 0;  // subproblems dealt and not yet back
  bool stopped_ = false;
  std::uint64_t cost_out_ = 0, cost_in_ = 0;
  Partial sum_;
  std::vector<std::uint64_t> by_rank_;
  std::map<std::uint64_t, First> pending_;
  std::list<std::pair<std::uint64_t, int>> checks_;  // (subproblem, the rank that counted it)
  std::uint64_t checked_ = 0, checked_elsewhere_ = 0;
  std::string failure_;
};

}  // namespace nq
