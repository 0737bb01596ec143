// count(), count_selected() and make_plan(): the checks of a config, its plan (made and
// bounded here: PlanControl), the resume from a journal and the Burnside terms, around the runner
// (runner.hpp), which counts the plan's tasks on the NUMA arenas.
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <span>
#include <string>

#include "base/sanitizers.hpp"
#include "base/splitmix.hpp"
#include "base/threads.hpp"
#include "engine/count/count.hpp"
#include "engine/count/journal.hpp"
#include "engine/count/memory.hpp"
#include "engine/count/orchestrate.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/src/cost.hpp"
#include "engine/count/src/placement.hpp"
#include "engine/count/src/runner.hpp"
#include "engine/count/src/shard.hpp"
#include "engine/count/src/splits.hpp"
#include "engine/count/topology.hpp"
#include "kernels/kernels.hpp"

namespace nq {
namespace {

using detail::CrossCheck;
using detail::run_on_arenas;
using detail::RunContext;
using detail::start_reading_topology;

// The kernel a config names. "auto" is by board size (auto_kernel), except that a split depth
// asks for the canonical plan's subproblems, which only a backtracking kernel makes sense of.
const Kernel* resolve_kernel(const CountConfig& config) {
  if (config.kernel != "auto") return find_kernel(config.kernel);
  if (config.split_rows >= 0) return &best_kernel();
  return &auto_kernel(config.n);
}

// What "auto" did differently because of a split depth, for the caller to say: "" if nothing.
std::string split_depth_note(const CountConfig& config, const Kernel& chosen) {
  if (config.kernel != "auto" || config.split_rows < 0) return "";
  const Kernel& by_size = auto_kernel(config.n);
  if (by_size.plan == chosen.plan) return "";
  return "a split depth applies to the backtracking kernels only: --kernel auto counts with " +
         std::string(chosen.name) + " instead of " + std::string(by_size.name);
}

// The checks count() makes, and the kernel they leave.
Expected<const Kernel*> checked_kernel(const CountConfig& config) {
  const int n = config.n;
  if (n < 1 || n > kMaxN)
    return Error{"n must be between 1 and " + std::to_string(kMaxN) + ", got " + std::to_string(n)};
  if (config.threads < 0 || config.threads > kMaxThreads)
    return Error{"threads must be between 1 and " + std::to_string(kMaxThreads) +
                 " (or 0: every hardware thread), got " + std::to_string(config.threads)};
  if (config.cross_check != -1 && !(config.cross_check >= 0 && config.cross_check <= 1))
    return Error{"the cross-check fraction must be between 0 and 1, got " +
                 std::to_string(config.cross_check)};
  if (config.shards && (n < 4 || config.shard >= config.shards))
    return Error{"shard " + std::to_string(config.shard) + "/" + std::to_string(config.shards) +
                 ": a shard is one of 0 to " + std::to_string(config.shards - 1) +
                 " of a board of 4 rows or more"};
  if (config.order_fewest || config.lookahead) {
    // Only the scalar search tracks every open row; "auto" means it here.
    if (config.kernel != "auto" && config.kernel != "scalar")
      return Error{
          "--order fewest and --lookahead run on the scalar kernel only (--kernel scalar "
          "or auto), not on '" +
          config.kernel + "'"};
    return &ordered_kernel(config.order_fewest ? RowOrder::fewest : RowOrder::rows,
                           config.lookahead);
  }
  const Kernel* kernel = resolve_kernel(config);
  if (!kernel) {
    std::string names = "auto";
    for (const Kernel& k : all_kernels()) names += ", " + std::string(k.name);
    return Error{"unknown kernel '" + config.kernel + "' (expected one of: " + names + ")"};
  }
  if (!kernel->supported())
    return Error{"kernel '" + config.kernel + "' cannot run on this CPU (it needs " +
                 std::string(kernel->needs) + ")"};
  if (kernel->plan == PlanKind::kRowSplit && config.split_rows >= 0)
    return Error{
        "the join kernel has its own plan (one subproblem per row split); a split depth "
        "applies to the backtracking kernels only"};
  return kernel;
}

// What a count resumes and has left (a shard's tasks only), its journal begun with the run's
// identity: its plan, cross-check, shard and kernel.
Expected<detail::ShardResume> resume_count(const Plan& plan, std::span<const std::uint64_t> costs,
                                           const CountConfig& config, const Kernel& kernel,
                                           std::uint32_t tag) {
  RunIdentity run = run_identity(plan, tag);
  run.kernel = kernel.name;
  run.shard = config.shard;
  run.shards = config.shards;
  if (config.shards) return detail::resume_shard(plan, costs, run, config.journal);
  detail::ShardResume out;
  out.tasks = plan.size();
  if (!config.journal) {
    out.resume = resume_point(plan, {});
    return out;
  }
  auto done = config.journal->begin(run);
  if (!done) return done.error();
  out.resume = resume_point(plan, *done);
  return out;
}

// The run's cross-check: its second kernel.
const Kernel& second_kernel(const CountConfig& config, const Kernel& kernel) {
  return detail::second_kernel_for(kernel, config.n);
}

// The plan is made in parallel (engine/count/src/plan.cpp), inside an arena capped like the run (so
// a one-thread run is serial throughout); with `costs`, the estimated cost of every subproblem too
// (cost.hpp), in the same arena: a second arena would wait again for its worker threads to
// arrive (milliseconds each time). With `defer_fixed_counts`, a row-split plan comes
// without its Burnside terms (the caller computes them beside the count).
// `kernel` is what checked_kernel() returned: its plan kind says which plan. `control` bounds
// and stops the planning and the estimates (a stopped plan comes without costs).
Plan plan_for(const CountConfig& config, const Kernel* kernel, int threads,
              std::vector<std::uint64_t>* costs = nullptr, bool defer_fixed_counts = false,
              const PlanControl& control = {}) {
  const int split = config.split_rows >= 0 ? config.split_rows : default_split_rows(config.n);
  CallArena arena(NQ_TSAN ? 1 : threads);  // under TSan: no TBB hand-overs
  Plan plan;
  arena.execute([&] {
    switch (kernel->plan) {
      case PlanKind::kClassic:
        plan = plan_classic(config.n, split, control);
        break;
      case PlanKind::kRowSplit:
        plan = plan_rowsplit(config.n, !defer_fixed_counts, control, config.min_tasks);
        break;
      case PlanKind::kCanonical:
        plan = plan_canonical(config.n, split, control);
        break;
    }
    if (costs && !plan.stopped) {
      *costs = estimate_costs(plan, control.cancel);
      plan.stopped = control.cancelled();
    }
  });
  return plan;
}

}  // namespace

double cross_check_fraction(const CountConfig& config) {
  return config.cross_check < 0 ? default_cross_check(config.n) : config.cross_check;
}

double default_cross_check(int n) {
  return n > 27 ? 0.001 : 0.0;
}

bool cross_check_selected(double fraction, std::uint64_t seed, std::uint64_t id) {
  if (!(fraction > 0)) return false;
  if (fraction >= 1) return true;
  const std::uint64_t z = splitmix64(seed ^ id);
  return static_cast<double>(z) < fraction * 18446744073709551616.0;  // 2^64
}

std::uint32_t cross_check_tag(double fraction, std::uint64_t seed) {
  if (!(fraction > 0)) return 0;
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(fraction);
  unsigned char bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(bits >> (8 * i));
    bytes[8 + i] = static_cast<unsigned char>(seed >> (8 * i));
  }
  const std::uint32_t h = fnv1a32(bytes, sizeof bytes);
  return h ? h : 1;
}

const Kernel& cross_check_kernel(const Kernel& kernel, int n) {
  const Kernel& scalar = *find_kernel("scalar");
  // The join on the largest boards: its own baseline build, cut elsewhere (kernels.hpp).
  if (kernel.plan == PlanKind::kRowSplit && n >= kJoinCheckedBySelfFromN)
    return join_check_kernel();
  // The join and the classic search: the best backtracking kernel, on the same subproblems (a
  // row-split subproblem and a classic one are boards with rows to fill, like any other).
  if (kernel.plan != PlanKind::kCanonical) return best_kernel();
  // The scalar kernel: its top-to-bottom variant, a separate implementation of the search.
  if (kernel.count == scalar.count) return ordered_kernel(RowOrder::rows, false);
  return scalar;  // the lane-parallel kernels and the scalar search's variants
}

OrbitCounts classify_by_enumeration(int n) {
  OrbitCounts o;
  u128 by_size[9] = {};
  detail::Placement p(n);
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

namespace {

// count() with config.journal as given (count() opens config.checkpoint into it).
Expected<CountResult> count_with_journal(const CountConfig& config, Monitor* monitor) {
  const int n = config.n;
  const auto checked = checked_kernel(config);
  if (!checked) return checked.error();
  const Kernel* kernel = *checked;

  const auto start = std::chrono::steady_clock::now();
  CountResult result;
  result.n = n;
  result.threads = resolve_threads(config.threads);
  result.kernel = kernel->name;
  result.isa = kernel->isa();
  result.note = split_depth_note(config, *kernel);

  const double fraction = cross_check_fraction(config);
  const std::uint32_t tag = cross_check_tag(fraction, config.cross_check_seed);
  if (n < 4) {  // too small for a frame; a solution may be fixed by a reflection (n = 1)
    result.memory_estimate = estimate_memory_without_plan(result.threads).total();
    if (auto refused = check_memory(result.memory_estimate, config.memory_limit)) return *refused;
    if (config.journal) {  // nothing to journal, but a journal of another run is still refused
      auto done = config.journal->begin(RunIdentity{n, 0, 0, 0, "enumeration", tag});
      if (!done) return done.error();
    }
    result.orbits = classify_by_enumeration(n);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  // Refused before any heavy work (and before a journal is opened) if it would not fit: as soon
  // as the plan's size is known (PlanControl::admit), before its Burnside terms and cost
  // estimates, which take minutes on a large board.
  std::optional<Error> too_large;
  PlanControl control;
  control.cancel = monitor ? &monitor->cancel : nullptr;
  control.admit = [&](PlanKind kind, std::uint64_t tasks) {
    too_large = check_memory(estimate_memory(n, kind, tasks, config).total(), config.memory_limit);
    return !too_large;
  };
  std::future<Expected<Topology>> machine = start_reading_topology(config);
  // The estimated costs order and deal the work (layout.hpp) and weight the progress. The
  // row-split plan's Burnside terms (a whole-board search of a few percent of the count) are
  // computed beside the count rather than before it.
  std::vector<std::uint64_t> costs;
  Plan plan =
      plan_for(config, kernel, result.threads, &costs, /*defer_fixed_counts=*/true, control);
  if (too_large) return *too_large;
  result.classes = plan.classes;
  result.split_rows = plan.split_rows;
  result.subproblems_total = plan.size();
  if (plan.stopped) {              // cancelled while planning: nothing counted, nothing journaled
    result.subproblems_total = 0;  // no plan
    result.cancelled = true;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  result.memory_estimate = estimate_memory(plan, config, plan.size()).total();
  if (auto refused = check_memory(result.memory_estimate, config.memory_limit)) return *refused;

  // Resume: skip what the journal holds and add it back (engine/count/journal.hpp).
  auto begun = resume_count(plan, costs, config, *kernel, tag);
  if (!begun) return begun.error();
  ResumePoint* resumed = &begun.value().resume;
  CrossCheck check(fraction, config.cross_check_seed, &second_kernel(config, *kernel));
  if (check.on()) result.cross_check_kernel = check.second().name;
  RunContext context;
  context.journal = config.journal;
  std::vector<std::uint64_t> todo_costs;
  if (config.journal || config.shards) {
    context.selection = &resumed->todo;
    context.resuming = true;
    todo_costs.reserve(resumed->todo.size());
    for (std::uint64_t i : resumed->todo) todo_costs.push_back(costs[i]);
    context.selection_costs = &todo_costs;
  }
  context.costs = &costs;
  if (monitor) start_monitor(*monitor, plan, config.shards ? begun->costs : costs, *resumed);

  // The row-split plan's Burnside terms, on a worker of the run (RunContext::beside); a cancelled
  // count stops them too.
  detail::SymmetricCounts symmetric;
  if (plan.rowsplit() && !config.shards)  // a shard's merge finds them (campaign.hpp)
    context.beside = [&] {
      symmetric =
          detail::whole_board_symmetric(n, monitor ? &monitor->cancel : nullptr, check.stop_flag());
    };
  const Partial part =
      run_on_arenas(plan, kernel, config, context, machine, start, result, monitor, check);
  result.cross_check_failure = check.message();
  if (plan.rowsplit()) {
    plan.sym4 = symmetric.sym4;
    plan.sym2 = symmetric.sym2;
  }
  if (auto finished = finish_count(plan, part, *resumed, result,
                                   !plan.rowsplit() || config.shards || symmetric.complete);
      !finished)
    return finished.error();
  if (config.shards) detail::finish_shard(config.shard, config.shards, begun->tasks, result);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

Expected<Plan> make_plan(const CountConfig& config, const PlanControl& control) {
  return errors_as_values([&]() -> Expected<Plan> {
    const auto checked = checked_kernel(config);
    if (!checked) return checked.error();
    if (config.n < 4) return Error{"a plan needs n >= 4, got " + std::to_string(config.n)};
    return plan_for(config, *checked, resolve_threads(config.threads), nullptr, false, control);
  });
}

namespace {

Expected<CountResult> count_checkpointed(const CountConfig& config, Monitor* monitor) {
  if (config.journal || config.checkpoint.empty()) return count_with_journal(config, monitor);
  if (config.checkpoint == "-")
    return Error{
        "checkpoint '-': a checkpoint is a file that a later run reads back, not "
        "standard output; give a file name"};
  if (config.checkpoint_every < 1)
    return Error{"the checkpoint interval must be at least 1 second, got " +
                 std::to_string(config.checkpoint_every)};
  FileJournal journal(config.checkpoint, std::chrono::seconds(config.checkpoint_every));
  CountConfig with = config;
  with.journal = &journal;
  Expected<CountResult> result = count_with_journal(with, monitor);
  Expected<void> closed = journal.close();
  if (result && !closed) {  // the counts stand; what could not be saved is said beside them
    CountResult kept = *result;
    kept.checkpoint_failure = closed.error().message;
    return kept;
  }
  return result;
}

}  // namespace

Expected<CountResult> count(const CountConfig& config, Monitor* monitor) {
  return errors_as_values([&] { return count_checkpointed(config, monitor); });
}

namespace {

Expected<CountResult> count_selection(const CountConfig& config, const Plan& plan,
                                      std::span<const std::uint64_t> indices, Monitor* monitor) {
  auto checked = checked_kernel(config);
  if (!checked) return checked.error();
  if (config.recheck) checked = &second_kernel(config, **checked);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> selection(indices.begin(), indices.end());
  std::sort(selection.begin(), selection.end());
  selection.erase(std::unique(selection.begin(), selection.end()), selection.end());
  for (std::uint64_t i : selection)
    if (i >= plan.size())
      return Error{"subproblem " + std::to_string(i) + " is not in the plan (" +
                   std::to_string(plan.size()) + " subproblems)"};
  CountResult result;
  result.n = plan.n;
  result.threads = resolve_threads(config.threads);
  result.kernel = (*checked)->name;
  result.isa = (*checked)->isa();
  result.classes = plan.classes;
  result.split_rows = plan.split_rows;
  result.subproblems_total = selection.size();
  result.memory_estimate = estimate_memory(plan, config, selection.size()).total();
  if (auto refused = check_memory(result.memory_estimate, config.memory_limit)) return *refused;
  RunContext context;
  context.selection = &selection;
  context.journal = config.journal;
  context.seats = config.seats;
  // Costs of the selected subproblems only: an MPI rank counts many small selections.
  std::vector<std::uint64_t> costs;
  costs.reserve(selection.size());
  for (std::uint64_t i : selection) costs.push_back(detail::estimate_plan_cost(plan, i));
  context.selection_costs = &costs;
  std::future<Expected<Topology>> machine = start_reading_topology(config);
  // The plan's own fraction and seed, so that every rank checks the same subproblems.
  CrossCheck check(config.recheck ? 0.0 : cross_check_fraction(config), config.cross_check_seed,
                   &second_kernel(config, **checked));
  if (check.on()) result.cross_check_kernel = check.second().name;
  const Partial part =
      run_on_arenas(plan, *checked, config, context, machine, start, result, monitor, check);
  result.cross_check_failure = check.message();
  result.orbits.total = part.weighted;
  result.nodes = part.nodes;
  result.subproblems = part.subproblems;
  result.cancelled = part.subproblems < selection.size();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

Expected<CountResult> count_selected(const CountConfig& config, const Plan& plan,
                                     std::span<const std::uint64_t> indices, Monitor* monitor) {
  return errors_as_values([&] { return count_selection(config, plan, indices, monitor); });
}

}  // namespace nq
