// nqcount-mpi's dealer: rank 0's book of a run spread over MPI ranks, without MPI itself (the
// program moves the messages; the simulator, schedule.hpp simulate_dealer, replays the same
// rules). It hands out the plan's subproblems largest estimated cost first, in batches that
// shrink as the work runs out (dealer_batch), keeps the cross-checks waiting for their second
// count on another rank than the first, and sums, journals and reports what comes back.
// Thread-safe: rank 0's counting thread and its message thread call it at once.
#pragma once

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
