// The TBB runner: one task arena per NUMA node, its threads pinned to the node's CPUs, the
// subproblems dealt to the nodes and to their threads, claimed in chunks, idle threads stealing
// inside their node and then across nodes at the end (the policy is in schedule.hpp, the NUMA plan
// in topology.hpp). Every worker keeps its own partial sums; they are joined once, at the end.
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/task_scheduler_observer.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <thread>

#include "cost.hpp"
#include "engine.hpp"
#include "frontend.hpp"
#include "kernels.hpp"
#include "memory.hpp"
#include "placement.hpp"
#include "schedule.hpp"
#include "topology.hpp"

namespace nq {
namespace {

// A thread's range of positions [begin, end) in the work layout, packed into one word so that
// one compare-and-swap moves either end. Positions fit 32 bits: a plan of 2^32 subproblems of
// 148 bytes (635 GB) is far past what the memory check lets a count hold.
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

// The work of a run (schedule.hpp's WorkLayout): every node's subproblems, laid out as one
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
// and the task stats (one element per subproblem, written by its claimant) are read after the
// arenas' task_group::wait.
struct WorkRanges {
  WorkLayout layout;
  // Per node: its positions' subproblems on the node's own memory, or null where nothing is
  // placed: the workers then gather each claim from the plan (no serial copy of the plan).
  std::vector<Subproblem*> local;
  std::unique_ptr<RangeWord[]> words;  // one per worker
};

// Checkpoint, resume and progress (engine/journal.hpp, engine/cost.hpp): which plan indices
// to count (all when `selection` is null), where to record the finished ones, what they cost.
struct RunHooks {
  const std::vector<std::uint64_t>* selection = nullptr;
  const std::vector<std::uint64_t>* costs = nullptr;
  SubproblemJournal* journal = nullptr;
};

// Pins the threads that enter an arena to its node's CPUs, and frees them on leaving: a TBB
// worker may serve several arenas in turn (the hwloc route of SPEC 3.3; tbbbind's NUMA
// constraints would do the same, but only for the real machine's nodes, while this plan may
// come from a synthetic topology under test).
class ArenaPinning : public tbb::task_scheduler_observer {
 public:
  ArenaPinning(tbb::task_arena& arena, Binder* binder, const std::vector<int>& cpus)
      : tbb::task_scheduler_observer(arena), binder_(binder), cpus_(cpus) {
    if (binder_ && !cpus_.empty()) observe(true);
  }
  ~ArenaPinning() override { observe(false); }
  void on_scheduler_entry(bool) override {
    if (!binder_->bind_thread(cpus_)) failed_.store(true, std::memory_order_relaxed);
  }
  void on_scheduler_exit(bool) override { binder_->unbind_thread(); }
  bool pinned() const { return binder_ && !cpus_.empty() && !failed_.load(); }

 private:
  Binder* binder_;  // null: nothing to pin
  const std::vector<int>& cpus_;
  std::atomic<bool> failed_{false};
};

const std::vector<int> kNoCpus;

// Whether `cpus` holds every CPU the process's affinity mask allows.
bool covers_allowed_cpus(const std::vector<int>& cpus) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return false;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed) && std::find(cpus.begin(), cpus.end(), cpu) == cpus.end())
      return false;
  return true;
}

// What one worker loop accumulates: its own partial sums (no shared atomics per subproblem)
// and the CPUs it found itself on. A cache line of its own: neighbours are other threads.
struct alignas(64) WorkerTally {
  Partial part;
  std::uint64_t helped = 0;  // subproblems taken from another node's positions
  std::uint64_t stolen = 0;  // subproblems of its own node taken from another thread's range
  std::vector<int> cpus_seen;
};

// The CPU time of the calling thread. Task costs are measured with it rather than the wall
// clock: on a shared machine a task that is preempted for a time slice would otherwise look
// ten times its cost, and the simulator would blame the split for the scheduler's noise.
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The counting step for a batch of claimed subproblems: the kernel's batch call (or the classic
// kernel), then the weighted sums into the worker's partial, the journal and the progress.
class Counter {
 public:
  Counter(const Plan& plan, const Kernel* kernel, const RunHooks& hooks, Monitor* monitor,
          std::vector<TaskStat>* stats)
      : plan_(plan), kernel_(kernel), hooks_(hooks), monitor_(monitor), stats_(stats) {}

  // Readies the calling worker thread before its first claim (the join's scratch for this n,
  // allocated on the node it runs on): a worker's start-up is then not timed as part of the
  // first subproblem it counts (--task-stats), where a replay would charge it to whichever
  // subproblem that was (up to 1.3 ms at n = 18 on this VM, against 0.2 ms per subproblem).
  void prepare_thread() const {
    if (kernel_ && kernel_->prepare && plan_.rowsplit) kernel_->prepare(plan_.n);
  }

  // Counts the positions [begin, end) of one node's part of the layout.
  void count(const WorkRanges& ranges, std::size_t begin, std::size_t end, Partial& part) const {
    constexpr std::size_t kBatch = 16;  // claim_size never exceeds it
    std::array<Tally, kBatch> tallies;
    std::array<FinishedSubproblem, kBatch> finished;
    const std::size_t m = end - begin;
    // Unplaced nodes are read from the plan through their ids, a claim at a time: a copy of a
    // few kilobytes per claim in parallel, instead of a serial copy of the whole plan (8973
    // subproblems of 148 bytes at n = 16, whose fresh pages cost 3 to 4 ms on this VM) before
    // any counting could start.
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
        const double t0 = thread_seconds();
        count_span(in.subspan(i, 1), std::span<Tally>(tallies.data() + i, 1));
        TaskStat& st = (*stats_)[ids[i]];
        st.seconds = thread_seconds() - t0;
        st.nodes = tallies[i].nodes;
      }
    } else {
      count_span(in, std::span<Tally>(tallies.data(), m));
    }
    std::uint64_t nodes = 0, cost = 0;
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint32_t id = ids[i];
      part.weighted += static_cast<u128>(plan_.weights[id]) * tallies[i].solutions;
      nodes += tallies[i].nodes;
      cost += (*hooks_.costs)[id];
      finished[i] = {id, tallies[i]};
    }
    if (hooks_.journal) hooks_.journal->record(std::span(finished.data(), m));
    part.nodes += nodes;
    part.subproblems += m;
    if (monitor_) {
      monitor_->subproblems_done.fetch_add(m, std::memory_order_relaxed);
      monitor_->nodes_done.fetch_add(nodes, std::memory_order_relaxed);
      monitor_->cost_done.fetch_add(cost, std::memory_order_relaxed);
    }
  }

 private:
  void count_span(std::span<const Subproblem> in, std::span<Tally> out) const {
    if (kernel_) {
      kernel_->count(in, out);
    } else {
      for (std::size_t i = 0; i < in.size(); ++i)
        out[i] = count_classic(plan_.n, in[i].cols, in[i].ld, in[i].rd, in[i].rows);
    }
  }

  const Plan& plan_;
  const Kernel* kernel_;  // nullptr: the classic kernel
  const RunHooks& hooks_;
  Monitor* monitor_;
  std::vector<TaskStat>* stats_;
};

// The kernel a config names. "auto" is by board size (auto_kernel), except that a split depth
// asks for the canonical plan's subproblems, which only a backtracking kernel makes sense of.
const Kernel* resolve_kernel(const CountConfig& config) {
  if (config.kernel != "auto") return find_kernel(config.kernel);
  if (config.split_rows >= 0) return &best_kernel();
  const Kernel& k = auto_kernel(config.n);
  // The join's plan holds one subproblem per row-split orbit; past kMaxJoinPlan (n = 27
  // and 28 up) it would not be small, so auto keeps to backtracking there.
  return k.name == "join" && rowsplit_subproblems(config.n) > kMaxJoinPlan ? &best_kernel() : &k;
}

// The checks count() makes; the kernel, or nullptr for the classic route.
Expected<const Kernel*> checked_kernel(const CountConfig& config) {
  const int n = config.n;
  if (n < 1 || n > kMaxCountN)
    return Error{"n must be between 1 and " + std::to_string(kMaxCountN) + ", got " +
                 std::to_string(n)};
  if (config.threads < 0)
    return Error{"threads must be at least 1, got " + std::to_string(config.threads)};
  if (config.kernel == "reference") return static_cast<const Kernel*>(nullptr);
  const Kernel* kernel = resolve_kernel(config);
  if (!kernel) {
    std::string names = "auto, reference";
    for (const Kernel& k : all_kernels()) names += ", " + std::string(k.name);
    return Error{"unknown kernel '" + config.kernel + "' (expected one of: " + names + ")"};
  }
  if (!kernel->supported())
    return Error{"kernel '" + config.kernel + "' cannot run on this CPU (it needs " +
                 std::string(kernel->needs) + ")"};
  if (kernel->name == "join" && rowsplit_subproblems(n) > kMaxJoinPlan)
    return Error{"the join kernel's plan for n = " + std::to_string(n) + " would hold " +
                 std::to_string(rowsplit_subproblems(n)) + " subproblems (at most " +
                 std::to_string(kMaxJoinPlan) + "); use a backtracking kernel (--kernel auto)"};
  if (kernel->name == "join" && config.split_rows >= 0)
    return Error{
        "the join kernel has its own plan (one subproblem per row split); a split depth "
        "applies to the backtracking kernels only"};
  return kernel;
}

// hwloc reads the machine (tens of milliseconds, once per process) in the background, while
// the front end plans; no read (an invalid future) where there is nothing to place.
std::future<Expected<Topology>> start_reading_topology(const CountConfig& config) {
  if (!config.numa || single_numa_node_here()) return {};
  return std::async(std::launch::async, read_topology);
}

// The plan is made in parallel (engine/frontend.cpp), inside an arena capped like the run (so a
// one-thread run is serial throughout); with `costs`, the estimated cost of every subproblem too
// (cost.hpp), in the same arena: a second arena would wait again for its worker threads to
// arrive (1 to 3 ms each time on this VM). With `defer_fixed_counts`, a row-split plan comes
// without its Burnside terms (the caller computes them beside the count).
// `kernel` is what checked_kernel() returned (nullptr: the classic route).
Plan plan_for(const CountConfig& config, const Kernel* kernel, int threads,
              std::vector<std::uint64_t>* costs = nullptr, bool defer_fixed_counts = false) {
  const int split = config.split_rows >= 0 ? config.split_rows : default_split_rows(config.n);
  tbb::global_control cap(tbb::global_control::max_allowed_parallelism,
                          static_cast<std::size_t>(threads));
  tbb::task_arena arena(threads);
  Plan plan;
  arena.execute([&] {
    if (!kernel)
      plan = plan_classic(config.n, split);
    else if (kernel->name == "join")
      plan = plan_rowsplit(config.n, !defer_fixed_counts);
    else
      plan = plan_canonical(config.n, split);
    if (costs) *costs = estimate_costs(plan);
  });
  return plan;
}

// Worker `me`: claims from the front of its own range; when that is empty, steals half of the
// richest range (its node's first, then any node's: schedule.hpp), which becomes its own.
// WorkRanges has the invariants that make the compare-and-swaps below enough.
void work(WorkRanges& work_ranges, std::size_t me, const Counter& counter, Monitor* monitor,
          WorkerTally& tally) {
  auto note_cpu = [&] {
    const int cpu = current_cpu();
    if (cpu >= 0 &&
        std::find(tally.cpus_seen.begin(), tally.cpus_seen.end(), cpu) == tally.cpus_seen.end())
      tally.cpus_seen.push_back(cpu);
  };
  note_cpu();  // every worker loop notes where it starts, even if the others left it no work
  counter.prepare_thread();
  const WorkLayout& layout = work_ranges.layout;
  RangeWord* words = work_ranges.words.get();
  std::atomic<std::uint64_t>& mine = words[me].range;
  const int home = layout.node_of[me];
  bool own_range = true;  // until the first steal, the range it was dealt
  auto left_of = [&](std::size_t w) {
    const auto [b, e] = unpack_range(words[w].range.load(std::memory_order_relaxed));
    return range_work(layout.after, b, e);
  };
  for (;;) {
    if (monitor && monitor->cancel.load(std::memory_order_relaxed)) return;
    std::uint64_t seen = mine.load(std::memory_order_relaxed);
    if (const auto [b, e] = unpack_range(seen); b < e) {  // claim from the front
      const int node = layout.node_at(b);
      const std::size_t stop = std::min(b + layout.chunk[static_cast<std::size_t>(node)], e);
      if (!mine.compare_exchange_weak(seen, pack_range(stop, e), std::memory_order_relaxed))
        continue;  // a thief cut the range meanwhile: look again
      note_cpu();
      counter.count(work_ranges, b, stop, tally.part);
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

// Runs the plan on one arena per NUMA node (schedule.hpp has the policy); fills the result's
// arena fields and task stats, and returns the sums of every worker's partial.
Partial run_on_arenas(const Plan& plan, const Kernel* kernel, const CountConfig& config,
                      const RunHooks& hooks, std::future<Expected<Topology>>& machine,
                      std::chrono::steady_clock::time_point start, CountResult& result,
                      Monitor* monitor) {
  Topology topology;
  if (machine.valid()) {
    auto t = machine.get();
    if (t.ok()) topology = *t;  // no topology: one unpinned arena, as with --numa off
  }
  const NumaPlan numa = plan_arenas(topology, result.threads, config.numa);
  result.numa_nodes = static_cast<int>(numa.arenas.size());

  // The arenas reserve no slot for the calling thread, which only waits: the T workers are
  // exactly the plan's threads, and global_control lets TBB create them (it counts the caller).
  // (Tried on this VM and dropped: the caller as one of the T in a slot reserved for it, where
  // TBB then often left the other slot empty for the whole of a 0.04 s count; and making the
  // row-split plan on a thread of its own while TBB starts, which slowed TBB's start-up by more
  // than the 0.8 ms it hid.)
  tbb::global_control cap(tbb::global_control::max_allowed_parallelism,
                          static_cast<std::size_t>(numa.threads) + 1);

  // Order and deal by estimated cost; only the selected subproblems (resume, MPI) are dealt.
  const std::size_t total = plan.subproblems.size();
  std::vector<double> estimate(total);
  for (std::size_t i = 0; i < total; ++i) estimate[i] = static_cast<double>((*hooks.costs)[i]);
  // The row-split plan is dealt in its own order instead (claim_order).
  std::vector<std::uint32_t> order = claim_order(estimate, plan.rowsplit);
  if (hooks.selection) {
    std::vector<bool> selected(total, false);
    for (std::uint64_t i : *hooks.selection) selected[i] = true;
    std::erase_if(order, [&](std::uint32_t i) { return !selected[i]; });
  }
  std::vector<int> threads;
  for (const ArenaPlan& a : numa.arenas) threads.push_back(a.threads);
  // Dealt to the nodes, each node's list split into one range per thread (schedule.hpp).
  WorkRanges work_ranges;
  work_ranges.layout = lay_out_work(order, estimate, threads, plan.rowsplit);
  const WorkLayout& layout = work_ranges.layout;
  work_ranges.words = std::make_unique<RangeWord[]>(layout.workers());
  for (std::size_t w = 0; w < layout.workers(); ++w)
    work_ranges.words[w].range.store(pack_range(layout.range_begin[w], layout.range_begin[w + 1]),
                                     std::memory_order_relaxed);

  // Pinning and node-local memory only where there is something to place: one arena over
  // every CPU this process may use needs neither (and then no hwloc topology is loaded).
  const bool placed = numa.arenas.size() > 1 ||
                      (!numa.arenas[0].cpus.empty() && !covers_allowed_cpus(numa.arenas[0].cpus));
  std::optional<Binder> binder;
  if (placed) binder.emplace();
  const std::size_t nodes = numa.arenas.size();
  work_ranges.local.assign(nodes, nullptr);
  auto node_size = [&](std::size_t a) { return layout.node_begin[a + 1] - layout.node_begin[a]; };
  for (std::size_t a = 0; a < nodes && binder; ++a) {
    // The node's subproblems on the node's own memory (hwloc_alloc_membind); where binding is
    // impossible (a synthetic machine, no such node) it is ordinary memory. Unplaced: none.
    Subproblem* local = static_cast<Subproblem*>(
        binder->alloc_on_node(node_size(a) * sizeof(Subproblem), numa.arenas[a].node));
    for (std::size_t k = 0; k < node_size(a); ++k)
      new (local + k) Subproblem(plan.subproblems[layout.ids[layout.node_begin[a] + k]]);
    work_ranges.local[a] = local;
  }
  if (config.task_stats) {
    result.tasks.resize(total);
    for (std::size_t i = 0; i < total; ++i) {
      result.tasks[i].id = static_cast<std::uint32_t>(i);
      result.tasks[i].estimate = estimate[i];
      result.tasks[i].plan_order = plan.rowsplit;
    }
  }
  const Counter counter(plan, kernel, hooks, monitor, config.task_stats ? &result.tasks : nullptr);

  std::deque<tbb::task_arena> arenas;
  std::deque<ArenaPinning> pinning;
  std::deque<tbb::task_group> groups;
  std::vector<WorkerTally> tallies(layout.workers());
  for (std::size_t a = 0; a < nodes; ++a) {
    arenas.emplace_back(threads[a], 0);
    // Unplaced: no observer (one per arena costs a TBB allocation that outlives the run).
    pinning.emplace_back(arenas.back(), binder ? &*binder : nullptr,
                         placed ? numa.arenas[a].cpus : kNoCpus);
    groups.emplace_back();
  }
  // Everything up to here ran before any counting: the serial part of the run.
  result.setup_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::size_t a = 0; a < nodes; ++a)
    arenas[a].execute([&, a] {
      for (std::size_t w = layout.worker_begin[a]; w < layout.worker_begin[a + 1]; ++w)
        groups[a].run([&, w] { work(work_ranges, w, counter, monitor, tallies[w]); });
    });
  for (std::size_t a = 0; a < nodes; ++a) arenas[a].execute([&, a] { groups[a].wait(); });

  Partial sum;
  for (std::size_t a = 0; a < nodes; ++a) {
    ArenaResult r;
    r.node = numa.arenas[a].node;
    r.threads = threads[a];
    r.cpus = numa.arenas[a].cpus;
    r.pinned = pinning[a].pinned();
    for (std::size_t w = layout.worker_begin[a]; w < layout.worker_begin[a + 1]; ++w) {
      const WorkerTally& t = tallies[w];
      sum.join(t.part);
      r.subproblems += t.part.subproblems;
      r.helped += t.helped;
      r.stolen += t.stolen;
      r.ran_on.insert(r.ran_on.end(), t.cpus_seen.begin(), t.cpus_seen.end());
    }
    std::sort(r.ran_on.begin(), r.ran_on.end());
    r.ran_on.erase(std::unique(r.ran_on.begin(), r.ran_on.end()), r.ran_on.end());
    result.arenas.push_back(std::move(r));
    if (binder) binder->free_memory(work_ranges.local[a], node_size(a) * sizeof(Subproblem));
  }
  return sum;
}

}  // namespace

int hardware_threads() {
  return tbb::info::default_concurrency();
}

OrbitCounts classify_by_enumeration(int n) {
  OrbitCounts o;
  u128 by_size[9] = {};
  Placement p(n);
  auto rec = [&](auto&& self, int row) -> void {
    if (row == n) {
      int stab = 0;
      for (Sym g : kAllSyms) stab += p.image(g) == p;
      by_size[kD4Order / stab] += 1;
      return;
    }
    for (int c = 0; c < n; ++c)
      if (p.can_place(row, c)) {
        p.place(row, c);
        self(self, row + 1);
        p.remove(row);
      }
  };
  rec(rec, 0);
  o.u1 = by_size[1];
  o.u2 = by_size[2] / 2;
  o.u4 = by_size[4] / 4;
  o.u8 = by_size[8] / 8;
  o.total = by_size[1] + by_size[2] + by_size[4] + by_size[8];
  o.unique = o.u1 + o.u2 + o.u4 + o.u8;
  return o;
}

Expected<CountResult> count(const CountConfig& config, Monitor* monitor) {
  const int n = config.n;
  const auto checked = checked_kernel(config);
  if (!checked) return checked.error();
  const Kernel* kernel = *checked;
  const bool classic = kernel == nullptr;

  const auto start = std::chrono::steady_clock::now();
  CountResult result;
  result.n = n;
  result.threads = config.threads > 0 ? config.threads : hardware_threads();
  result.kernel = classic ? "reference" : std::string(kernel->name);

  if (n < 4) {  // too small for a frame; a solution may be fixed by a reflection (n = 1)
    result.memory_estimate = estimate_memory_without_plan(result.threads).total();
    if (auto refused = check_memory(result.memory_estimate, config.memory_limit)) return *refused;
    if (config.journal) {  // nothing to journal, but a journal of another run is still refused
      auto done = config.journal->begin(RunIdentity{n, 0, 0, 0, "enumeration"});
      if (!done) return done.error();
    }
    result.orbits = classify_by_enumeration(n);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  std::future<Expected<Topology>> machine = start_reading_topology(config);
  // The estimated costs order and deal the work (schedule.hpp) and weight the progress. The
  // row-split plan's Burnside terms (a whole-board search of a few percent of the count) are
  // computed beside the count rather than before it.
  std::vector<std::uint64_t> costs;
  Plan plan = plan_for(config, kernel, result.threads, &costs, /*defer_fixed_counts=*/true);
  result.classes = plan.classes;
  result.split_rows = plan.split_rows;
  result.subproblems_total = plan.subproblems.size();
  // Refused before any counting (and before a journal is opened) if it would not fit.
  result.memory_estimate = estimate_memory(plan, config, plan.subproblems.size()).total();
  if (auto refused = check_memory(result.memory_estimate, config.memory_limit)) return *refused;

  // Resume: skip what the journal holds and add it back (engine/journal.hpp).
  ResumePoint resumed;
  RunHooks hooks;
  hooks.journal = config.journal;
  if (config.journal) {
    auto done = config.journal->begin(run_identity(plan));
    if (!done) return done.error();
    resumed = resume_point(plan, *done);
    hooks.selection = &resumed.todo;
  }
  hooks.costs = &costs;
  if (monitor) {
    std::uint64_t total_cost = 0, resumed_cost = 0;
    for (std::uint64_t c : costs) total_cost += c;
    if (hooks.selection) {
      resumed_cost = total_cost;
      for (std::uint64_t i : resumed.todo) resumed_cost -= costs[i];
    }
    monitor->cost_total.store(total_cost);
    monitor->cost_resumed.store(resumed_cost);
    monitor->cost_done.store(resumed_cost);
    monitor->subproblems_done.store(resumed.done.subproblems);
    monitor->subproblems_total.store(plan.subproblems.size());
  }

  // Started only now that every check has passed, on a detached thread: neither an early
  // return nor a cancelled count waits for it (a std::async future would, in its destructor).
  std::future<SymmetricCounts> symmetric;
  if (plan.rowsplit) {
    auto promise = std::make_shared<std::promise<SymmetricCounts>>();
    symmetric = promise->get_future();
    std::thread([promise, n] { promise->set_value(whole_board_symmetric(n)); }).detach();
  }
  Partial part = run_on_arenas(plan, kernel, config, hooks, machine, start, result, monitor);
  part.join(resumed.done);
  result.nodes = part.nodes;
  result.subproblems = part.subproblems;
  result.subproblems_resumed = resumed.done.subproblems;
  result.cancelled = part.subproblems < plan.subproblems.size();
  if (symmetric.valid() && !result.cancelled) {
    const SymmetricCounts sym = symmetric.get();
    plan.sym4 = sym.sym4;
    plan.sym2 = sym.sym2;
  }
  auto orbits = finish_orbits(part.weighted, plan.sym4, plan.sym2);
  if (!orbits.ok()) {
    if (!result.cancelled) return orbits.error();
    orbits = OrbitCounts{part.weighted};  // partial counts: orbits are not meaningful yet
  }
  result.orbits = *orbits;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

Expected<Plan> make_plan(const CountConfig& config) {
  const auto checked = checked_kernel(config);
  if (!checked) return checked.error();
  if (config.n < 4) return Error{"a plan needs n >= 4, got " + std::to_string(config.n)};
  return plan_for(config, *checked, config.threads > 0 ? config.threads : hardware_threads());
}

Expected<CountResult> count_selected(const CountConfig& config, const Plan& plan,
                                     std::span<const std::uint64_t> indices, Monitor* monitor) {
  const auto checked = checked_kernel(config);
  if (!checked) return checked.error();
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::uint64_t> selection(indices.begin(), indices.end());
  for (std::uint64_t i : selection)
    if (i >= plan.subproblems.size())
      return Error{"subproblem " + std::to_string(i) + " is not in the plan (" +
                   std::to_string(plan.subproblems.size()) + " subproblems)"};
  CountResult result;
  result.n = plan.n;
  result.threads = config.threads > 0 ? config.threads : hardware_threads();
  result.kernel = *checked ? std::string((*checked)->name) : "reference";
  result.classes = plan.classes;
  result.split_rows = plan.split_rows;
  result.subproblems_total = selection.size();
  result.memory_estimate = estimate_memory(plan, config, selection.size()).total();
  if (auto refused = check_memory(result.memory_estimate, config.memory_limit)) return *refused;
  RunHooks hooks;
  hooks.selection = &selection;
  hooks.journal = config.journal;
  // Costs of the selected subproblems only: an MPI rank counts many small selections.
  std::vector<std::uint64_t> costs(plan.subproblems.size(), 0);
  for (std::uint64_t i : selection) costs[i] = estimate_plan_cost(plan, i);
  hooks.costs = &costs;
  std::future<Expected<Topology>> machine = start_reading_topology(config);
  const Partial part =
      run_on_arenas(plan, *checked, config, hooks, machine, start, result, monitor);
  result.orbits.total = part.weighted;
  result.nodes = part.nodes;
  result.subproblems = part.subproblems;
  result.cancelled = part.subproblems < selection.size();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace nq
