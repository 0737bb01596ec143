// A count spread over ranks: processes that share no memory (an MPI job's, nqcount-mpi), joined
// by a ClusterLink that the program implements.
//
//   ClusterConfig config;              // the count, as count() takes it, for this rank
//   config.count.n = 21;
//   Expected<ClusterResult> r = count_on_cluster(link, config, signal, progress);
//
// Every rank makes the same plan (plans are deterministic for n, the split depth, the route and
// the cut) and first checks with rank 0 that it did. Rank 0 deals the plan's tasks through a
// Dealer (dealer.hpp: largest estimated cost first, in batches that shrink as the work runs out)
// to the ranks that ask, and counts too; each rank counts its batches with the TBB engine
// (count_selected) and sends back one (index, solutions, nodes) record a task with its next
// request. Rank 0 sums the records in 128 bits, keeps the checkpoint journal (the format of
// count()'s: either resumes the other's) and reports. A cross-check (CountConfig::cross_check)
// deals each selected task again, as a check, to another rank than the one that counted it
// first; a checked task is journaled and summed only once both counts agree.
//
// Thread safety: one call a process; the link is used from the calling thread only (MPI's
// THREAD_FUNNELED), while the rank's counting threads run beside it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/types.hpp"
#include "engine/count/config.hpp"
#include "engine/count/plan.hpp"

namespace nq {

// How the ranks' messages travel: point to point on two channels (a rank's requests to rank 0,
// and rank 0's answers), and collectives, which every rank calls in the same order.
enum class ClusterChannel { kRequest, kWork };

class ClusterLink {
 public:
  virtual ~ClusterLink() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  virtual void send(int to, ClusterChannel channel, const std::vector<std::uint64_t>& words) = 0;
  // Waits for the next message from `from` on `channel`.
  virtual std::vector<std::uint64_t> receive(int from, ClusterChannel channel) = 0;
  // The next message on `channel` from any rank where one has come (its sender in `from`);
  // never waits.
  virtual std::optional<std::vector<std::uint64_t>> poll(ClusterChannel channel, int& from) = 0;
  // Rank 0's `words`, on every rank.
  virtual std::vector<std::uint64_t> broadcast(const std::vector<std::uint64_t>& words) = 0;
  // The largest and the sum of every rank's `value`, on every rank.
  virtual std::uint64_t all_max(std::uint64_t value) = 0;
  virtual std::uint64_t all_sum(std::uint64_t value) = 0;
  // Every rank's `words`, in rank order, at rank 0 (empty on the others).
  virtual std::vector<std::vector<std::uint64_t>> gather(
      const std::vector<std::uint64_t>& words) = 0;
};

// A text as words for a link, and back.
std::vector<std::uint64_t> text_words(const std::string& text);
std::string words_text(std::span<const std::uint64_t> words);

// Each rank's error (empty: none), said once for the job: at rank 0, the first rank's that has
// one ("rank K: ...", rank 0's own without the prefix); empty on the other ranks and where none
// has one. Every rank calls it.
std::string first_error(ClusterLink& link, const std::string& mine);

// One of what shapes a rank's count: its name, the value compared, and how it reads where ranks
// differ ("--n 17", "NQ_KERNEL=reference").
struct RunField {
  std::string name, value, shown;
};
// How this rank's `fields` differ from rank 0's, in one line ("started with --n 17, rank 0 with
// --n 16: ..."); empty where they agree, and on rank 0. Every rank calls it.
std::string differs_from_root(ClusterLink& link, const std::vector<RunField>& mine);

// How a rank counts a batch of the plan's tasks: count_selected (count.hpp), or what a caller
// puts in its place (a measurement of the dealing alone counts nothing).
using BatchCount =
    std::function<Expected<CountResult>(const CountConfig& config, const Plan& plan,
                                        std::span<const std::uint64_t> tasks, Monitor* monitor)>;

struct ClusterConfig {
  // This rank's count: threads are its own; min_tasks is the cut asked for (0: the cluster's,
  // cluster_plan_tasks of every rank's threads); checkpoint and checkpoint_every are rank 0's.
  // A resumed journal keeps the cut it was made with (asking for another is an Error).
  CountConfig count;
  // The signal that stopped this rank (0: none), said to rank 0, whose run ends with it.
  std::function<int()> stopped_by;
  // Called on rank 0, at once, when ranks stop answering after a stop (lost or killed: a job
  // that lost a rank ends a second later), with how many: what to say before anything else.
  std::function<void(int lost)> on_lost_ranks;
  BatchCount count_batch;       // empty: count_selected
  std::size_t batch_limit = 0;  // the most tasks a batch (0: the dealer's rule alone)
  // Whether rank 0 counts batches too, beside dealing them (false: it deals only, as a rank 0 on
  // a node of its own might, or a measurement of the dealing alone).
  bool root_counts = true;
};

struct ClusterResult {
  enum class Ending {
    kCounted,           // every task counted: `count` is complete
    kInterrupted,       // a signal (this rank's, or a worker's: `signal`); `count` is partial
    kRankFailed,        // a rank's count failed (`error`, naming the rank)
    kCrossCheckFailed,  // two counts of a task disagreed (`error`)
    kRanksLost,         // ranks stopped answering after a stop (`lost_ranks`): the job must end
    kBroken,            // a rank answered outside the protocol (`error`): the job must end
  };
  Ending ending = Ending::kCounted;
  int signal = 0;
  std::string error;
  int lost_ranks = 0;
  // Rank 0's: the counts (partial unless kCounted), how the ranks shared them, the cross-checks
  // counted on another rank than the first count, and of the work finished in this run, the
  // share at most to be redone (the estimated cost of the batches that did not come back).
  CountResult count;
  std::vector<std::uint64_t> subproblems_by_rank;
  std::uint64_t checked_elsewhere = 0;
  double redo_share = 0;
  // Rank 0's journal: its path (empty: none), the warnings on opening it (a torn record
  // dropped), and why it could not be saved at the end ("" where it was).
  std::string journal;
  std::vector<std::string> journal_warnings;
  std::string journal_failure;
  // The plan's cut, for the job's report (resume with the same).
  std::uint64_t tasks = 0;
};

// Runs this rank's part of the count (every rank calls it, with the same `config` but for
// threads and the journal). An Error (the same on every rank, said at rank 0 as first_error
// says it) where the count cannot start: a bad config on some rank, plans that differ, the
// memory limit, a journal of another run. `signal` cancels (a Ctrl-C); rank 0's `progress` shows
// every rank's work. n >= 4.
Expected<ClusterResult> count_on_cluster(ClusterLink& link, const ClusterConfig& config,
                                         Monitor& signal, Monitor& progress);

}  // namespace nq
