// The TBB runner: one task arena per NUMA node, its threads pinned to the node's CPUs, the
// subproblems dealt to the nodes and to their threads, claimed in chunks, idle threads stealing
// inside their node and then across nodes at the end (the policy is in layout.hpp, the NUMA plan
// in topology.hpp). Every worker keeps its own partial sums; they are joined once, at the end.
#include "engine/count/src/runner.hpp"

#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include "base/prefault.hpp"
#include "base/sanitizers.hpp"
#include "base/splitmix.hpp"
#include "base/threads.hpp"
#include "engine/count/count.hpp"
#include "engine/count/memory.hpp"
#include "engine/count/orchestrate.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/src/cost.hpp"
#include "engine/count/src/layout.hpp"
#include "engine/count/src/placement.hpp"
#include "engine/count/src/splits.hpp"
#include "engine/count/topology.hpp"
#include "kernels/kernels.hpp"

namespace nq::detail {
namespace {

// A thread's range of positions [begin, end) in the work layout, packed into one word so that
// one compare-and-swap moves either end. Positions fit 32 bits: a stored plan of 2^32
// subproblems of 148 bytes (635 GB) is far past what the memory check lets a count hold, and the
// lazy row-split plan has at most one task a split (plan.hpp: under 2^29 splits up to n = 32).
constexpr std::uint64_t pack_range(std::size_t begin, std::size_t end) {
  return static_cast<std::uint64_t>(begin) << 32 | static_cast<std::uint64_t>(end);
}
constexpr std::pair<std::size_t, std::size_t> unpack_range(std::uint64_t range) {
  return {static_cast<std::size_t>(range >> 32), static_cast<std::size_t>(range & 0xffffffffu)};
}

// One worker's range, on a cache line of its own: its owner claims at the front of it many
// times per steal, and the thieves only read it while they look for a victim.
struct alignas(64) RangeWord {
  std::atomic<std::uint64_t> range{0};
};

// The work of a run (layout.hpp's WorkLayout): every node's subproblems, laid out as one
// range per thread, each node's part copied into memory bound to the node; and the range word
// of every worker.
//
// The synchronisation is the range words alone. The invariant: the positions not yet claimed
// are exactly the union of the non-empty ranges [begin, end) the words hold, and no two words
// share a position, except while a thief carries a stolen range from the victim's word to its
// own (below). Every change to a non-empty word is a compare-and-swap of the whole word:
//   - the owner claims [b, b + c) by b,e -> b+c,e;
//   - a thief takes the front [b, mid) by b,e -> mid,e, or the back [mid, e) by b,e -> b,mid
//     (cut_for_steal: never a claimed position, since those lie before b), then stores its part
//     into its own word, which is empty: nobody else writes an empty word (a thief's
//     compare-and-swap expects a non-empty value, and fails).
// So each position leaves the ranges once, through one successful compare-and-swap, and is
// counted once. A stale value that matches again (ABA: a range stolen away and back) is
// harmless: what the thief computes depends on the value alone, which is then current. While a
// range is carried, another thief's scan may miss it and end its worker; but a thief empties a
// victim only by taking its last position, so what is missed is one subproblem, which the
// carrier counts. The words carry positions into arrays written before the workers start
// (task_group::run orders that) and never after, so relaxed order suffices; the partial sums
// and the task stats (one element per subproblem, written by its claimant) are read after every
// worker loop has returned (the arenas' task_group::wait).
struct WorkRanges {
  WorkLayout layout;
  std::vector<std::uint64_t> cost;  // per position: its task's estimated cost (the progress)
  // Per node: its positions' subproblems on the node's own memory, or null where nothing is
  // placed: the workers then gather each claim from the plan (no serial copy of the plan).
  std::vector<Subproblem*> local;
  std::unique_ptr<RangeWord[]> words;  // one per worker
  std::vector<int> cpu;                // per worker: the one CPU it binds itself to, or -1
};

// Pins the threads that enter an arena to its node's CPUs, and frees them on leaving: a TBB
// worker may serve several arenas in turn (the hwloc route; tbbbind's NUMA
// constraints would do the same, but only for the real machine's nodes, while this plan may
// come from a synthetic topology under test).
class ArenaPinning : public tbb::task_scheduler_observer {
 public:
  ArenaPinning(tbb::task_arena& arena, Binder* binder, const std::vector<int>& cpus)
      : tbb::task_scheduler_observer(arena), binder_(binder), cpus_(cpus) {
    if (binder_ && !cpus_.empty()) observe(true);
  }
  ~ArenaPinning() override { observe(false); }
  // The calling thread (not a worker) is the host's: it gets back the CPUs it had on leaving.
  void on_scheduler_entry(bool worker) override {
    if (!worker) {
      std::lock_guard lock(caller_mu_);
      caller_cpus_ = allowed_cpus();
    }
    if (!binder_->bind_thread(cpus_)) failed_.store(true, std::memory_order_relaxed);
  }
  void on_scheduler_exit(bool worker) override {
    if (worker) return binder_->unbind_thread();
    std::lock_guard lock(caller_mu_);
    if (!caller_cpus_.empty()) set_thread_affinity(caller_cpus_);
  }
  bool pinned() const { return binder_ && !cpus_.empty() && !failed_.load(); }

 private:
  Binder* binder_;  // null: nothing to pin
  const std::vector<int>& cpus_;
  std::atomic<bool> failed_{false};
  std::mutex caller_mu_;
  std::vector<int> caller_cpus_;  // the calling thread's CPUs before it entered
};

const std::vector<int> kNoCpus;

// Whether `cpus` (ascending) holds every CPU of `allowed` (allowed_cpus()).
bool covers_allowed_cpus(const std::vector<int>& cpus, const std::vector<int>& allowed) {
  return !allowed.empty() &&
         std::includes(cpus.begin(), cpus.end(), allowed.begin(), allowed.end());
}

// What one worker loop accumulates: its own partial sums (no shared atomics per subproblem)
// and the CPUs it found itself on. A cache line of its own: neighbours are other threads.
struct alignas(64) WorkerTally {
  Partial part;
  std::uint64_t helped = 0;         // subproblems taken from another node's positions
  std::uint64_t stolen = 0;         // subproblems of its own node taken from another thread's range
  std::uint64_t cross_checked = 0;  // of its subproblems, counted twice
  std::vector<int> cpus_seen;
  int bound_to = -1;  // the one CPU it was bound to for its loop (worker_cpus), or -1
};

// The counting step for a batch of claimed subproblems: the kernel's batch call, then the weighted
// sums into the worker's partial, the journal and the progress.
class Counter {
 public:
  Counter(const Plan& plan, const Kernel* kernel, const RunContext& context, Monitor* monitor,
          std::vector<TaskStat>* stats, CrossCheck& check, const std::atomic<bool>& abandoned)
      : plan_(plan),
        kernel_(kernel),
        context_(context),
        monitor_(monitor),
        stats_(stats),
        check_(check),
        abandoned_(abandoned) {}

  // The run stops: a cancel, a cross-check that failed, or a worker loop that failed.
  bool stopping() const {
    return (monitor_ && monitor_->cancel.load(std::memory_order_relaxed)) || check_.failed() ||
           abandoned_.load(std::memory_order_relaxed);
  }

  // Readies the calling worker thread before its first claim (the join's scratch for this n,
  // allocated on the node it runs on): a worker's start-up is then not timed as part of the
  // first subproblem it counts (--task-stats), where a replay would charge it to whichever
  // subproblem that was (a worker's start-up can cost several subproblems' time at n = 18).
  void prepare_thread() const {
    if (kernel_->prepare) kernel_->prepare(plan_.n);
    if (check_.on() && check_.second().prepare) check_.second().prepare(plan_.n);
  }
  void run_beside() const {
    if (context_.beside) context_.beside();
  }
  ThreadSeats* seats() const { return context_.seats; }

  // Counts the positions [begin, end) of one node's part of the layout.
  void count(const WorkRanges& ranges, std::size_t begin, std::size_t end,
             WorkerTally& tally) const {
    Partial& part = tally.part;
    if (plan_.rowsplit()) return count_ranks(ranges, begin, end, tally);
    constexpr std::size_t kBatch = kMaxClaim;  // claim_size never exceeds it
    std::array<Tally, kBatch> tallies;
    std::array<FinishedSubproblem, kBatch> finished;
    std::size_t m = end - begin;
    // Unplaced nodes are read from the plan through their ids, a claim at a time: a copy of a
    // few kilobytes per claim in parallel, instead of a serial copy of the whole plan (8973
    // subproblems of 148 bytes at n = 16, milliseconds of fresh pages) before any counting could
    // start.
    std::array<Subproblem, kBatch> gathered;
    const auto node = static_cast<std::size_t>(ranges.layout.node_at(begin));
    const Subproblem* local = ranges.local[node];
    const std::uint32_t* ids = ranges.layout.ids.data() + begin;
    if (!local)
      for (std::size_t i = 0; i < m; ++i) gathered[i] = plan_.subproblems[ids[i]];
    const std::span<const Subproblem> in(
        local ? local + (begin - ranges.layout.node_begin[node]) : gathered.data(), m);
    if (stats_) {  // one at a time, timed: --task-stats
      for (std::size_t i = 0; i < m; ++i) {
        const double t0 = thread_cpu_seconds();
        kernel_->count(in.subspan(i, 1), std::span<Tally>(tallies.data() + i, 1));
        TaskStat& st = (*stats_)[ids[i]];
        st.seconds = thread_cpu_seconds() - t0;
        st.nodes = tallies[i].nodes;
      }
    } else {
      kernel_->count(in, std::span<Tally>(tallies.data(), m));
    }
    // The selected ones again, on the second kernel, in one batch; a difference drops the
    // subproblem and those after it (not counted, not recorded) and stops the run.
    if (check_.on()) {
      std::array<Subproblem, kBatch> again;
      std::array<std::size_t, kBatch> at;
      std::array<Tally, kBatch> second;
      std::size_t k = 0;
      for (std::size_t i = 0; i < m; ++i)
        if (check_.selected(ids[i])) {
          again[k] = in[i];
          at[k++] = i;
        }
      if (k) check_.second().count(std::span(again.data(), k), std::span(second.data(), k));
      for (std::size_t j = 0; j < k; ++j)
        if (second[j].solutions != tallies[at[j]].solutions) {
          check_.fail(mismatch(ids[at[j]], nullptr, tallies[at[j]].solutions, second[j].solutions));
          m = std::min(m, at[j]);
          k = j;
          break;
        }
      tally.cross_checked += k;
    }
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint32_t id = ids[i];
      part.weighted += static_cast<u128>(plan_.weights[id]) * tallies[i].solutions;
      finished[i] = {id, tallies[i]};
    }
    finish(std::span(finished.data(), m), ranges.cost.data() + begin, part);
  }

 private:
  // The row-split plan's tasks: each a block of splits, unranked here (plan.hpp rowsplit_key) and
  // counted in batches; a task's tally holds its weighted solutions (Plan::weight is 1). Where
  // the kernel's subproblems take seconds (Kernel::count_watched), one at a time, watched: the
  // progress moves as the kernel reports its work, and a stop is seen within a subproblem (the
  // task it interrupts is dropped, neither counted nor recorded: a resumed run counts it again).
  void count_ranks(const WorkRanges& ranges, std::size_t begin, std::size_t end,
                   WorkerTally& tally) const {
    constexpr std::size_t kBatch = kMaxClaim;
    std::array<FinishedSubproblem, kBatch> finished;
    std::array<Subproblem, kBatch> batch;
    std::array<std::uint8_t, kBatch> weights;
    std::array<std::uint64_t, kBatch> splits;
    std::array<Tally, kBatch> tallies, second;
    const bool watched = kernel_->count_watched && plan_.n >= kernel_->watched_from_n;
    const std::size_t batch_size = watched ? 1 : kBatch;
    // The claim's progress, one counter: the cost reported to the monitor so far, as the kernel
    // reports its work (never past the claim's estimated cost) and then by finish().
    ClaimProgress progress{monitor_, 0, 0};
    for (std::size_t k = begin; k < end; ++k) progress.budget += ranges.cost[k];
    const Watch watch{[](void* context, std::uint64_t work) {
                        auto& p = *static_cast<ClaimProgress*>(context);
                        p.report(detail::join_pairs_cost(work));
                        return p.counter->stopping();
                      },
                      &progress};
    progress.counter = this;
    auto count = [&](const Kernel& kernel, std::size_t held, std::span<Tally> out) {
      if (!watched) return kernel.count(std::span<const Subproblem>(batch.data(), held), out);
      kernel.count_watched(batch[0], out[0], watch);
    };
    std::size_t m = end - begin;
    const std::uint32_t* ids = ranges.layout.ids.data() + begin;
    for (std::size_t i = 0; i < m; ++i) {
      const double t0 = stats_ ? thread_cpu_seconds() : 0;
      Tally task;
      std::size_t held = 0;
      bool cancelled = false;
      const bool checked = check_.selected(ids[i]);
      auto flush = [&] {
        count(*kernel_, held, tallies);
        if (watched && stopping()) {  // perhaps stopped half way: the task is dropped
          cancelled = true;
          held = 0;
          return;
        }
        if (checked) {  // every split of the task again, on the second kernel
          count(check_.second(), held, second);
          for (std::size_t k = 0; k < held; ++k)
            if (second[k].solutions != tallies[k].solutions) {
              check_.fail(mismatch(ids[i], &splits[k], tallies[k].solutions, second[k].solutions));
              break;
            }
        }
        for (std::size_t k = 0; k < held; ++k) {
          task.solutions += weights[k] * tallies[k].solutions;
          task.nodes += tallies[k].nodes;
        }
        held = 0;
        cancelled = stopping();
      };
      for (std::uint64_t r = plan_.first_split(ids[i]); r < plan_.end_split(ids[i]) && !cancelled;
           ++r) {
        const detail::RowSplitKey key = detail::rowsplit_key(plan_.n, r);
        if (key.weight == 0) continue;
        batch[held] = detail::rowsplit_task_subproblem(plan_, ids[i], key);
        splits[held] = r;
        weights[held++] = static_cast<std::uint8_t>(key.weight);
        if (held == batch_size) flush();
      }
      if (held && !cancelled) flush();
      if (cancelled) {
        m = i;  // this task is dropped, the claim's later ones are not started
        break;
      }
      if (stats_) {
        TaskStat& st = (*stats_)[ids[i]];
        st.seconds = thread_cpu_seconds() - t0;
        st.nodes = task.nodes;
      }
      tally.part.weighted += task.solutions;
      finished[i] = {ids[i], task};
      tally.cross_checked += checked;
    }
    finish(std::span(finished.data(), m), ranges.cost.data() + begin, tally.part,
           progress.reported);
  }

  // A claim's progress as its kernel reports it (count_ranks): what is reported, never past the
  // claim's estimated cost (`budget`).
  struct ClaimProgress {
    Monitor* monitor;
    std::uint64_t budget, reported;
    const Counter* counter = nullptr;
    void report(std::uint64_t cost) {
      const std::uint64_t c = std::min(cost, budget - reported);
      if (monitor && c) monitor->cost_done.fetch_add(c, std::memory_order_relaxed);
      reported += c;
    }
  };

  // The journal, the worker's partial and the progress, for a claim's finished tasks (whose
  // estimated costs are `costs`, position by position), of whose cost the monitor has seen
  // `ahead` already (reported as the kernel went: the rest of theirs comes now).
  void finish(std::span<const FinishedSubproblem> finished, const std::uint64_t* costs,
              Partial& part, std::uint64_t ahead = 0) const {
    std::uint64_t nodes = 0, cost = 0;
    for (std::size_t i = 0; i < finished.size(); ++i) {
      nodes += finished[i].tally.nodes;
      cost += costs[i];
    }
    if (context_.journal) context_.journal->record(finished);
    part.nodes += nodes;
    part.subproblems += finished.size();
    if (monitor_) {
      monitor_->subproblems_done.fetch_add(finished.size(), std::memory_order_relaxed);
      monitor_->nodes_done.fetch_add(nodes, std::memory_order_relaxed);
      monitor_->cost_done.fetch_add(cost > ahead ? cost - ahead : 0, std::memory_order_relaxed);
    }
  }

  // The failure line of a cross-check: the task, and for the row-split plan the split in it (and
  // the piece of the split, where the plan is cut into pieces).
  std::string mismatch(std::uint64_t id, const std::uint64_t* split, std::uint64_t first,
                       std::uint64_t again) const {
    std::string where;
    if (split) {
      where = " (split " + std::to_string(*split) + " of the row-split plan";
      if (plan_.pieces > 1)
        where += ", piece " + std::to_string(plan_.piece(id) + 1) + " of " +
                 std::to_string(plan_.pieces);
      where += ")";
    }
    return "cross-check failed: subproblem " + std::to_string(id) + where + ": " +
           std::string(kernel_->name) + " counted " + std::to_string(first) + ", " +
           std::string(check_.second().name) + " counted " + std::to_string(again);
  }

  const Plan& plan_;
  const Kernel* kernel_;
  const RunContext& context_;
  Monitor* monitor_;
  std::vector<TaskStat>* stats_;
  CrossCheck& check_;
  const std::atomic<bool>& abandoned_;
};

// Waits for the machine's topology, looking at the monitor's cancel flag meanwhile: false when
// the run was cancelled first.
bool wait_for_topology(std::future<Expected<Topology>>& machine, const Monitor* monitor) {
  if (!machine.valid()) return true;
  while (machine.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
    if (monitor && monitor->cancel.load(std::memory_order_relaxed)) return false;
  return true;
}

// A seat held for one step of a worker's loop (RunContext::seats), given back when the step ends.
class SeatHeld {
 public:
  explicit SeatHeld(ThreadSeats* seats) : seats_(seats) {}
  ~SeatHeld() {
    if (seats_) seats_->give_back();
  }
  SeatHeld(const SeatHeld&) = delete;
  SeatHeld& operator=(const SeatHeld&) = delete;

 private:
  ThreadSeats* seats_;
};

// Worker `me`: claims from the front of its own range; when that is empty, steals half of the
// richest range (its node's first, then any node's: layout.hpp), which becomes its own.
// WorkRanges has the invariants that make the compare-and-swaps below enough.
void work(WorkRanges& work_ranges, std::size_t me, const Counter& counter, WorkerTally& tally) {
  const CpuPin pin(work_ranges.cpu[me]);
  if (pin.pinned()) tally.bound_to = work_ranges.cpu[me];
  auto note_cpu = [&] {
    const int cpu = current_cpu();
    if (cpu >= 0 &&
        std::find(tally.cpus_seen.begin(), tally.cpus_seen.end(), cpu) == tally.cpus_seen.end())
      tally.cpus_seen.push_back(cpu);
  };
  note_cpu();  // every worker loop notes where it starts, even if the others left it no work
  counter.prepare_thread();
  if (me == 0) counter.run_beside();
  const WorkLayout& layout = work_ranges.layout;
  RangeWord* words = work_ranges.words.get();
  std::atomic<std::uint64_t>& mine = words[me].range;
  const int home = layout.node_of[me];
  bool own_range = true;  // until the first steal, the range it was dealt
  auto left_of = [&](std::size_t w) {
    const auto [b, e] = unpack_range(words[w].range.load(std::memory_order_relaxed));
    return range_work(layout.after, b, e);
  };
  ThreadSeats* const seats = counter.seats();
  for (;;) {
    if (counter.stopping()) return;
    // Each step (a claim and its count, or a steal) holds a seat where the run shares them.
    if (seats && !seats->take([&] { return counter.stopping(); })) return;
    const SeatHeld seat(seats);
    std::uint64_t seen = mine.load(std::memory_order_relaxed);
    if (const auto [b, e] = unpack_range(seen); b < e) {  // claim from the front
      const int node = layout.node_at(b);
      const std::size_t stop = std::min(b + layout.chunk[static_cast<std::size_t>(node)], e);
      if (!mine.compare_exchange_weak(seen, pack_range(stop, e), std::memory_order_relaxed))
        continue;  // a thief cut the range meanwhile: look again
      note_cpu();
      counter.count(work_ranges, b, stop, tally);
      if (node != home)
        tally.helped += stop - b;
      else if (!own_range)
        tally.stolen += stop - b;
      continue;
    }
    const int victim = range_to_steal(layout, home, left_of);
    if (victim < 0) return;  // every range is empty
    std::atomic<std::uint64_t>& theirs = words[victim].range;
    seen = theirs.load(std::memory_order_relaxed);
    const auto [b, e] = unpack_range(seen);
    if (b >= e) continue;  // emptied since the scan: choose again
    const StealCut cut = cut_for_steal(layout, b, e);
    if (!theirs.compare_exchange_strong(seen, pack_range(cut.victim_begin, cut.victim_end),
                                        std::memory_order_relaxed))
      continue;  // it moved meanwhile: choose again
    mine.store(pack_range(cut.thief_begin, cut.thief_end), std::memory_order_relaxed);
    own_range = false;
  }
}

// Runs loop(w) once for every worker w, worker_begin[a] to worker_begin[a + 1] on arena a, at
// once where threads are free, and returns when every loop has; the first exception a loop
// threw is thrown here. The one way the runner starts its workers: each arena's loops are
// tasks of a task_group spawned in it, and the calling thread waits in each arena in turn,
// counting in it meanwhile, so that the loops always end, however many of TBB's threads are
// free (none: the host caps TBB at one thread, or every thread is a caller waiting, in the host's
// own parallel_for). Under ThreadSanitizer, which cannot see oneTBB's uninstrumented hand-overs,
// the loops run on threads of their own instead (sanitizers.hpp); the loops themselves, which
// hold the claim and steal protocol, are the same code.
void run_worker_loops(std::deque<tbb::task_arena>& arenas,
                      const std::vector<std::size_t>& worker_begin,
                      const std::function<void(std::size_t)>& loop) {
  if (NQ_TSAN) {
    std::vector<std::thread> workers;
    std::mutex failed_mu;
    std::exception_ptr failed;
    for (std::size_t w = 0; w < worker_begin.back(); ++w)
      workers.emplace_back([&, w] {
        try {
          loop(w);
        } catch (...) {
          std::lock_guard lock(failed_mu);
          if (!failed) failed = std::current_exception();
        }
      });
    for (std::thread& t : workers) t.join();
    if (failed) std::rethrow_exception(failed);
    return;
  }
  std::deque<tbb::task_group> groups(arenas.size());
  auto spawn = [&](std::size_t a) {
    for (std::size_t w = worker_begin[a]; w < worker_begin[a + 1]; ++w)
      groups[a].run([&loop, w] { loop(w); });
  };
  std::exception_ptr failed;  // every group is waited for, whatever one of them threw
  auto wait = [&](std::size_t a) {
    try {
      groups[a].wait();
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  };
  for (std::size_t a = 1; a < arenas.size(); ++a) arenas[a].execute([&, a] { spawn(a); });
  arenas[0].execute([&] {
    spawn(0);
    wait(0);
  });
  for (std::size_t a = 1; a < arenas.size(); ++a) arenas[a].execute([&, a] { wait(a); });
  if (failed) std::rethrow_exception(failed);
}

}  // namespace

// hwloc reads the machine (tens of milliseconds, once per process) in the background, while
// the front end plans; no read (an invalid future) where there is nothing to place. The thread
// is detached, and the future is a promise's, which does not wait for it when dropped: a large
// machine (a synthetic one of 65,536 CPUs takes hwloc seconds) must not hold up a cancelled run.
std::future<Expected<Topology>> start_reading_topology(const CountConfig& config) {
  if (!config.numa || single_numa_node_here()) return {};
  auto promise = std::make_shared<std::promise<Expected<Topology>>>();
  std::future<Expected<Topology>> machine = promise->get_future();
  std::thread([promise] { promise->set_value(read_topology()); }).detach();
  return machine;
}

namespace {

// The arenas of a run by the NUMA plan, once the machine is read (false: cancelled meanwhile):
// as many threads as the host lets this count have (base/threads.hpp: within the host's cap on
// TBB's threads, which a count never changes).
bool plan_the_arenas(std::future<Expected<Topology>>& machine, Monitor* monitor,
                     const CountConfig& config, CountResult& result, NumaPlan& numa) {
  Topology topology;
  if (!wait_for_topology(machine, monitor)) return false;
  if (machine.valid()) {
    auto t = machine.get();
    if (t.ok()) topology = *t;  // no topology: one unpinned arena, as with --numa off
  }
  result.threads = allowed_threads(result.threads);
  numa = plan_arenas(topology, result.threads, config.numa);
  result.numa_nodes = static_cast<int>(numa.arenas.size());
  return true;
}

// The run's work, laid out (layout.hpp): the selected tasks (all of them without a selection:
// a resumed run's and an MPI rank's are a part, and every array here is then the selection's
// size, not the plan's), dealt to the nodes largest first (the row-split plan in its own order
// instead, claim_order), each node's list split into one range per thread; one CPU a worker
// where an arena has as many threads as CPUs (topology.hpp, worker_cpus; not with --numa off,
// which leaves every thread to the operating system).
void lay_out(const Plan& plan, const RunContext& context, const NumaPlan& numa,
             const CountConfig& config, const std::vector<int>& allowed,
             std::vector<double>& estimate, WorkRanges& work) {
  const std::vector<std::uint64_t>& costs =
      context.selection ? *context.selection_costs : *context.costs;
  reserve_prefaulted(estimate, costs.size());
  for (std::uint64_t c : costs) estimate.push_back(static_cast<double>(c));
  std::vector<int> threads;
  for (const ArenaPlan& a : numa.arenas) threads.push_back(a.threads);
  work.layout =
      lay_out_work(claim_order(estimate, plan.rowsplit()), estimate, threads, plan.rowsplit());
  const WorkLayout& layout = work.layout;
  reserve_prefaulted(work.cost, layout.ids.size());
  for (std::uint32_t& id : work.layout.ids) {  // the run's own index k to the plan's
    work.cost.push_back(costs[id]);
    id = static_cast<std::uint32_t>(context.selection ? (*context.selection)[id] : id);
  }
  work.words = std::make_unique<RangeWord[]>(layout.workers());
  for (std::size_t w = 0; w < layout.workers(); ++w)
    work.words[w].range.store(pack_range(layout.range_begin[w], layout.range_begin[w + 1]),
                              std::memory_order_relaxed);
  work.cpu.assign(layout.workers(), -1);
  if (!config.numa) return;
  for (std::size_t a = 0; a < numa.arenas.size(); ++a) {
    const std::vector<int> cpus = worker_cpus(numa.arenas[a], allowed);
    for (std::size_t i = 0; i < cpus.size(); ++i) work.cpu[layout.worker_begin[a] + i] = cpus[i];
  }
}

// Each node's subproblems on the node's own memory (hwloc_alloc_membind; ordinary memory where
// binding is impossible: a synthetic machine), for a placed run of a stored plan; freed when it
// goes. The lazy row-split plan and an unplaced run keep none (WorkRanges::local stays null).
class NodeMemory {
 public:
  NodeMemory(const Plan& plan, const NumaPlan& numa, Binder* binder, WorkRanges& work)
      : binder_(binder), work_(work) {
    const WorkLayout& layout = work.layout;
    work.local.assign(numa.arenas.size(), nullptr);
    for (std::size_t a = 0; a < numa.arenas.size() && binder && !plan.rowsplit(); ++a) {
      auto* local = static_cast<Subproblem*>(
          binder->alloc_on_node(size(a) * sizeof(Subproblem), numa.arenas[a].node));
      for (std::size_t k = 0; k < size(a); ++k)
        new (local + k) Subproblem(plan.subproblems[layout.ids[layout.node_begin[a] + k]]);
      work.local[a] = local;
    }
  }
  ~NodeMemory() {
    for (std::size_t a = 0; a < work_.local.size(); ++a)
      if (work_.local[a]) binder_->free_memory(work_.local[a], size(a) * sizeof(Subproblem));
  }
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;

 private:
  std::size_t size(std::size_t a) const {
    return work_.layout.node_begin[a + 1] - work_.layout.node_begin[a];
  }
  Binder* binder_;
  WorkRanges& work_;
};

// --task-stats: one record a task of the plan, by id; those not selected were done by the run
// this one resumes, untimed here (TaskStat::resumed).
void start_task_stats(const Plan& plan, const RunContext& context,
                      const std::vector<double>& estimate, std::vector<TaskStat>& tasks) {
  tasks.resize(plan.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].id = static_cast<std::uint32_t>(i);
    if (context.costs) tasks[i].estimate = static_cast<double>((*context.costs)[i]);
    tasks[i].plan_order = plan.rowsplit();
    tasks[i].resumed = context.resuming;
  }
  for (std::size_t k = 0; k < estimate.size(); ++k) {
    TaskStat& st = tasks[context.selection ? (*context.selection)[k] : k];
    st.estimate = estimate[k];
    st.resumed = false;
  }
}

// What the arenas did, from their workers' tallies; the sum of every worker's partial.
Partial collect(const NumaPlan& numa, const WorkLayout& layout,
                const std::vector<WorkerTally>& tallies, const std::deque<ArenaPinning>& pinning,
                CountResult& result) {
  Partial sum;
  for (std::size_t a = 0; a < numa.arenas.size(); ++a) {
    ArenaResult r;
    r.node = numa.arenas[a].node;
    r.threads = numa.arenas[a].threads;
    r.cpus = numa.arenas[a].cpus;
    r.pinned = pinning[a].pinned();
    for (std::size_t w = layout.worker_begin[a]; w < layout.worker_begin[a + 1]; ++w) {
      const WorkerTally& t = tallies[w];
      sum.join(t.part);
      r.subproblems += t.part.subproblems;
      r.helped += t.helped;
      r.stolen += t.stolen;
      result.cross_checked += t.cross_checked;
      r.ran_on.insert(r.ran_on.end(), t.cpus_seen.begin(), t.cpus_seen.end());
      if (t.bound_to >= 0) r.worker_cpus.push_back(t.bound_to);
    }
    std::sort(r.ran_on.begin(), r.ran_on.end());
    r.ran_on.erase(std::unique(r.ran_on.begin(), r.ran_on.end()), r.ran_on.end());
    result.arenas.push_back(std::move(r));
  }
  return sum;
}

}  // namespace

// Runs the plan on one arena per NUMA node (layout.hpp has the policy); fills the result's
// arena fields and task stats, and returns the sums of every worker's partial.
Partial run_on_arenas(const Plan& plan, const Kernel* kernel, const CountConfig& config,
                      const RunContext& context, std::future<Expected<Topology>>& machine,
                      std::chrono::steady_clock::time_point start, CountResult& result,
                      Monitor* monitor, CrossCheck& check) {
  NumaPlan numa;
  if (!plan_the_arenas(machine, monitor, config, result, numa)) return {};  // cancelled
  const std::vector<int> allowed = allowed_cpus();
  std::vector<double> estimate;
  WorkRanges work_ranges;
  lay_out(plan, context, numa, config, allowed, estimate, work_ranges);
  // Pinning and node-local memory only where there is something to place: one arena over
  // every CPU this process may use needs neither (and then no hwloc topology is loaded).
  const bool placed =
      numa.arenas.size() > 1 ||
      (!numa.arenas[0].cpus.empty() && !covers_allowed_cpus(numa.arenas[0].cpus, allowed));
  std::optional<Binder> binder;
  if (placed) binder.emplace();
  const NodeMemory node_memory(plan, numa, binder ? &*binder : nullptr, work_ranges);
  if (config.task_stats) start_task_stats(plan, context, estimate, result.tasks);
  std::atomic<bool> abandoned{false};  // a worker loop failed: the others stop
  const Counter counter(plan, kernel, context, monitor, config.task_stats ? &result.tasks : nullptr,
                        check, abandoned);
  std::deque<tbb::task_arena> arenas;
  std::deque<ArenaPinning> pinning;
  for (std::size_t a = 0; a < numa.arenas.size(); ++a) {
    // The calling thread takes part (run_worker_loops): the first arena keeps it a slot.
    arenas.emplace_back(numa.arenas[a].threads, a == 0 ? 1 : 0);
    // Unplaced: no observer (one per arena costs a TBB allocation that outlives the run).
    pinning.emplace_back(arenas.back(), binder ? &*binder : nullptr,
                         placed ? numa.arenas[a].cpus : kNoCpus);
  }
  // Everything up to here ran before any counting: the serial part of the run.
  result.setup_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<WorkerTally> tallies(work_ranges.layout.workers());
  run_worker_loops(arenas, work_ranges.layout.worker_begin, [&](std::size_t w) {
    try {
      work(work_ranges, w, counter, tallies[w]);
    } catch (...) {  // out of memory, say: the other loops stop too, and it is thrown on
      abandoned.store(true, std::memory_order_relaxed);
      throw;
    }
  });
  return collect(numa, work_ranges.layout, tallies, pinning, result);
}

}  // namespace nq::detail
