// The runner behind count() and count_selected() (run.cpp): a plan's tasks on one TBB arena per
// NUMA node, claimed and stolen as layout.hpp says, with the context a run adds (selection,
// journal, costs, work beside) and its cross-check. Internal to the count library.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "base/types.hpp"
#include "engine/count/count.hpp"
#include "engine/count/reducer.hpp"
#include "engine/count/topology.hpp"
#include "kernels/kernels.hpp"

namespace nq::detail {

// Checkpoint, resume and progress (engine/count/journal.hpp, engine/count/src/cost.hpp): which plan
// indices to count (all when `selection` is null), where to record the finished ones, what they
// cost.
struct RunContext {
  const std::vector<std::uint64_t>* selection = nullptr;  // ascending, each index once
  // The selection is what a resumed run has left: the rest was done by the run it resumes.
  bool resuming = false;
  // The estimated costs: of every task by plan index (`costs`; null where only a selection is
  // known), and with a selection, the selection's, entry by entry (`selection_costs`), so that a
  // small selection of a large plan costs its own size.
  const std::vector<std::uint64_t>* costs = nullptr;
  const std::vector<std::uint64_t>* selection_costs = nullptr;
  SubproblemJournal* journal = nullptr;
  // Work beside the count, done once by worker 0 before its first claim (the others steal its
  // range meanwhile), so that it runs on the run's own threads: the row-split plan's Burnside
  // terms.
  std::function<void()> beside;
  // Shared with counts running beside this one (CountConfig::seats): a worker claims and counts
  // only while it holds one of them.
  ThreadSeats* seats = nullptr;
};

// A run's cross-check (CountConfig::cross_check): which tasks, the second kernel, and the first
// difference found, which stops the run.
class CrossCheck {
 public:
  CrossCheck(double fraction, std::uint64_t seed, const Kernel* second)
      : fraction_(fraction), seed_(seed), second_(fraction > 0 ? second : nullptr) {}

  bool selected(std::uint64_t id) const {
    return second_ && cross_check_selected(fraction_, seed_, id);
  }
  const Kernel& second() const { return *second_; }
  bool on() const { return second_ != nullptr; }

  // Records a difference (the first one wins) and stops the run.
  void fail(std::string message) {
    std::lock_guard lock(mu_);
    if (stop_.load(std::memory_order_relaxed)) return;
    message_ = std::move(message);
    stop_.store(true, std::memory_order_relaxed);
  }
  bool failed() const { return stop_.load(std::memory_order_relaxed); }
  const std::atomic<bool>* stop_flag() const { return &stop_; }
  std::string message() {
    std::lock_guard lock(mu_);
    return message_;
  }

 private:
  double fraction_;
  std::uint64_t seed_;
  const Kernel* second_;  // null: nothing is cross-checked
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::string message_;
};

// hwloc reads the machine (tens of milliseconds, once per process) in the background, while
// the front end plans; no read (an invalid future) where there is nothing to place. The thread
// is detached, and the future is a promise's, which does not wait for it when dropped: a large
// machine (a synthetic one of 65,536 CPUs takes hwloc seconds) must not hold up a cancelled run.
std::future<Expected<Topology>> start_reading_topology(const CountConfig& config);

// Runs the plan on one arena per NUMA node (layout.hpp has the policy); fills the result's
// arena fields and task stats, and returns the sums of every worker's partial.
Partial run_on_arenas(const Plan& plan, const Kernel* kernel, const CountConfig& config,
                      const RunContext& context, std::future<Expected<Topology>>& machine,
                      std::chrono::steady_clock::time_point start, CountResult& result,
                      Monitor* monitor, CrossCheck& check);

// The second kernel of a run's cross-check of `kernel` on n-boards: cross_check_kernel's choice.
// Defined alone in its source (second_kernel.cpp), so that a test build can link a choice of its
// own in its place (tests/support/second_kernel.cpp): the product carries no seam for it.
const Kernel& second_kernel_for(const Kernel& kernel, int n);

}  // namespace nq::detail
