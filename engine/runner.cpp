// The TBB runner: a parallel reduction over the plan's subproblems, inside an arena capped at
// the requested number of threads.
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <chrono>

#include "cost.hpp"
#include "engine.hpp"
#include "frontend.hpp"
#include "kernels.hpp"
#include "placement.hpp"

namespace nq {
namespace {

// A range of subproblem indices. The grain bounds how many subproblems one leaf task counts:
// subproblem costs vary by two orders of magnitude, so leaves are kept small (a few per
// thread per percent of the work) and stealing evens out the rest.
class SubproblemRange {
 public:
  SubproblemRange(std::size_t b, std::size_t e, std::size_t grain) : b_(b), e_(e), grain_(grain) {}
  SubproblemRange(SubproblemRange& r, tbb::split)
      : b_(r.b_ + (r.e_ - r.b_) / 2), e_(r.e_), grain_(r.grain_) {
    r.e_ = b_;
  }
  bool empty() const { return b_ >= e_; }
  bool is_divisible() const { return e_ - b_ > grain_; }
  std::size_t begin() const { return b_; }
  std::size_t end() const { return e_; }

 private:
  std::size_t b_, e_, grain_;
};

// Checkpoint, resume and progress (engine/journal.hpp, engine/cost.hpp): which plan indices
// to count (all when `selection` is null), where to record the finished ones, what they cost.
struct RunHooks {
  const std::vector<std::uint64_t>* selection = nullptr;
  const std::vector<std::uint64_t>* costs = nullptr;
  SubproblemJournal* journal = nullptr;
};

class CountBody {
 public:
  CountBody(const Plan& plan, const Kernel* kernel, const RunHooks& hooks, Monitor* monitor)
      : plan_(plan), kernel_(kernel), hooks_(hooks), monitor_(monitor) {}
  CountBody(CountBody& o, tbb::split)
      : plan_(o.plan_), kernel_(o.kernel_), hooks_(o.hooks_), monitor_(o.monitor_) {}

  void operator()(const SubproblemRange& r) {
    constexpr std::size_t kBatch = 64;
    std::array<Tally, kBatch> tallies;
    std::array<Subproblem, kBatch> gathered;  // a selection's subproblems, made contiguous
    std::array<FinishedSubproblem, kBatch> finished;
    for (std::size_t b = r.begin(); b < r.end(); b += kBatch) {
      if (monitor_ && monitor_->cancel.load(std::memory_order_relaxed)) return;
      const std::size_t m = std::min(kBatch, r.end() - b);
      auto index = [&](std::size_t i) {
        return hooks_.selection ? (*hooks_.selection)[b + i] : b + i;
      };
      const Subproblem* first = plan_.subproblems.data() + b;
      if (hooks_.selection) {
        for (std::size_t i = 0; i < m; ++i) gathered[i] = plan_.subproblems[index(i)];
        first = gathered.data();
      }
      const std::span<const Subproblem> in(first, m);
      if (kernel_) {
        kernel_->count(in, std::span<Tally>(tallies.data(), m));
      } else {
        for (std::size_t i = 0; i < m; ++i)
          tallies[i] = count_classic(plan_.n, in[i].cols, in[i].ld, in[i].rd, in[i].rows);
      }
      std::uint64_t nodes = 0, cost = 0;
      for (std::size_t i = 0; i < m; ++i) {
        part_.weighted += static_cast<u128>(plan_.weights[index(i)]) * tallies[i].solutions;
        nodes += tallies[i].nodes;
        if (hooks_.costs) cost += (*hooks_.costs)[index(i)];
        finished[i] = {index(i), tallies[i]};
      }
      if (hooks_.journal) hooks_.journal->record(std::span(finished.data(), m));
      part_.nodes += nodes;
      part_.subproblems += m;
      if (monitor_) {
        monitor_->subproblems_done.fetch_add(m, std::memory_order_relaxed);
        monitor_->nodes_done.fetch_add(nodes, std::memory_order_relaxed);
        monitor_->cost_done.fetch_add(cost, std::memory_order_relaxed);
      }
    }
  }
  void join(const CountBody& o) { part_.join(o.part_); }
  const Partial& partial() const { return part_; }

 private:
  const Plan& plan_;
  const Kernel* kernel_;  // nullptr: the classic kernel
  RunHooks hooks_;
  Monitor* monitor_;
  Partial part_;
};

// Counts `count` subproblems of the plan (the first ones, or hooks.selection) in one arena.
Partial run_plan(const Plan& plan, const Kernel* kernel, int threads, std::size_t count,
                 const RunHooks& hooks, Monitor* monitor) {
  const std::size_t per_thread = count / (static_cast<std::size_t>(threads) * 256);
  const std::size_t grain = std::clamp<std::size_t>(per_thread, 1, 32);

  tbb::global_control cap(tbb::global_control::max_allowed_parallelism,
                          static_cast<std::size_t>(threads));
  tbb::task_arena arena(threads);
  CountBody body(plan, kernel, hooks, monitor);
  arena.execute([&] {
    tbb::parallel_reduce(SubproblemRange(0, count, grain), body, tbb::simple_partitioner());
  });
  return body.partial();
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
  const Kernel* kernel = find_kernel(config.kernel);
  if (!kernel) {
    std::string names = "auto, reference";
    for (const Kernel& k : all_kernels()) names += ", " + std::string(k.name);
    return Error{"unknown kernel '" + config.kernel + "' (expected one of: " + names + ")"};
  }
  if (!kernel->supported())
    return Error{"kernel '" + config.kernel + "' cannot run on this CPU (it needs " +
                 std::string(kernel->needs) + ")"};
  return kernel;
}

// The plan is made in parallel (engine/frontend.cpp), inside an arena capped like the run.
Plan plan_for(const CountConfig& config, int threads) {
  const int split = config.split_rows >= 0 ? config.split_rows : default_split_rows(config.n);
  tbb::global_control cap(tbb::global_control::max_allowed_parallelism,
                          static_cast<std::size_t>(threads));
  tbb::task_arena arena(threads);
  Plan plan;
  arena.execute([&] {
    plan = config.kernel == "reference" ? plan_classic(config.n, split)
                                        : plan_canonical(config.n, split);
  });
  return plan;
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

  if (n < 4) {             // too small for a frame; a solution may be fixed by a reflection (n = 1)
    if (config.journal) {  // nothing to journal, but a journal of another run is still refused
      auto done = config.journal->begin(RunIdentity{n, 0, 0, 0, "enumeration"});
      if (!done) return done.error();
    }
    result.orbits = classify_by_enumeration(n);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  const Plan plan = plan_for(config, result.threads);
  result.classes = plan.classes;
  result.split_rows = plan.split_rows;
  result.subproblems_total = plan.subproblems.size();

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
  std::vector<std::uint64_t> costs;
  if (monitor) {
    costs = estimate_costs(plan);
    hooks.costs = &costs;
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

  const std::size_t to_count = hooks.selection ? resumed.todo.size() : plan.subproblems.size();
  Partial part = run_plan(plan, kernel, result.threads, to_count, hooks, monitor);
  part.join(resumed.done);
  result.nodes = part.nodes;
  result.subproblems = part.subproblems;
  result.subproblems_resumed = resumed.done.subproblems;
  result.cancelled = part.subproblems < plan.subproblems.size();
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
  return plan_for(config, config.threads > 0 ? config.threads : hardware_threads());
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
  RunHooks hooks;
  hooks.selection = &selection;
  hooks.journal = config.journal;
  const Partial part = run_plan(plan, *checked, result.threads, selection.size(), hooks, monitor);
  result.orbits.total = part.weighted;
  result.nodes = part.nodes;
  result.subproblems = part.subproblems;
  result.cancelled = part.subproblems < selection.size();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace nq
