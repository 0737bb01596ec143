// Kernel selection: a list in priority order; the first one this CPU supports is "auto".
// The choice is made once per run by the engine, never inside a search. Whether this CPU runs a
// build is asked once per process, of the build's instruction-set target (isa_targets.hpp).
#include <algorithm>
#include <array>

#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "kernels/src/isa_targets.hpp"
#include "kernels/src/join_limits.hpp"

namespace nq {

namespace {

bool always() {
  return true;
}
std::string_view baseline_isa() {
  return detail::kBaselineTarget.name;
}

// A backtracking search's record, made from its build's table (isa.hpp): named after its
// instruction set, counting with the build's own batch function, and supported where this CPU
// runs the build's target (asked once).
template <const detail::SearchOps& (*Ops)()>
bool search_runs_here() {
  static const bool runs = detail::runs_here(*Ops().target);
  return runs;
}
template <const detail::SearchOps& (*Ops)()>
std::string_view search_isa() {
  return Ops().isa;
}
template <const detail::SearchOps& (*Ops)()>
Kernel search_kernel(std::string_view description) {
  const detail::SearchOps& ops = Ops();
  return Kernel{.name = ops.isa,
                .description = description,
                .needs = ops.target->needs(),
                .supported = &search_runs_here<Ops>,
                .count = ops.count,
                .plan = PlanKind::kCanonical,
                .isa = &search_isa<Ops>};
}

// The join's record runs the build chosen for this CPU (detail::join_ops).
void chosen_join_count(std::span<const Subproblem> in, std::span<Tally> out) {
  detail::join_ops().count(in, out);
}
void chosen_join_prepare(int n) {
  detail::join_ops().prepare(n);
}
std::string_view chosen_join_isa() {
  return detail::join_ops().isa;
}
// One subproblem, watched: the build's thread watch set for the count alone.
void chosen_join_count_watched(const Subproblem& s, Tally& out, const Watch& watch) {
  detail::join_ops().set_watch(watch);
  detail::join_ops().count(std::span(&s, 1), std::span(&out, 1));
  detail::join_ops().set_watch({});
}
void join_check_count_watched(const Subproblem& s, Tally& out, const Watch& watch) {
  detail::set_join_check_watch(watch);
  detail::count_join_check(std::span(&s, 1), std::span(&out, 1));
  detail::set_join_check_watch({});
}
// From this n a row-split subproblem takes the join seconds (minutes from 26, hours at 28): it is
// counted one at a time, watched.
constexpr int kJoinWatchedFromN = 22;

// The table, made once (its "needs" texts are the targets'): the backtracking kernels first, in
// priority order, then the join and the reference kernel.
std::span<const Kernel> kernel_table() {
  static const std::array table{
      search_kernel<&detail::avx512_search>("SIMD lanes, AVX-512"),
      search_kernel<&detail::avx2_search>("SIMD lanes, AVX2"),
      search_kernel<&detail::scalar_search>("bitboard backtracking"),
      // "auto" takes it by board size (auto_kernel), never as the generic best.
      Kernel{"join",
             "split-board join: both half-boards enumerated, compatible pairs counted, in AVX-512 "
             "(with VBMI and GFNI) or AVX2 (with BMI2) where the CPU has it",
             "nothing", &always, &chosen_join_count, PlanKind::kRowSplit, &chosen_join_isa,
             &chosen_join_prepare, &chosen_join_count_watched, kJoinWatchedFromN},
      Kernel{"reference",
             "the classic one-queen-per-row search with mirror halving, unique by Burnside",
             "nothing", &always, &detail::count_reference, PlanKind::kClassic, &baseline_isa},
  };
  return table;
}

}  // namespace

const detail::JoinOps& detail::join_ops() {
  static const JoinOps& chosen = runs_here(*join_ops_avx512().target) ? join_ops_avx512()
                                 : runs_here(*join_ops_avx2().target) ? join_ops_avx2()
                                                                      : join_ops_scalar();
  return chosen;
}

bool detail::cpu_splits_wide_loads() {
  // AMD family 0x19 is Zen 3 and Zen 4; of the two only Zen 4 has AVX-512.
  static const bool splits = __builtin_cpu_is("amdfam19h") && runs_here(*avx512_search().target);
  return splits;
}

void detail::set_join_watch(const Watch& watch) {
  join_ops().set_watch(watch);
  set_join_check_watch(watch);  // the cross-check's, on the baseline build (join-check)
}

JoinSample sample_join(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                       double (*clock)()) {
  return detail::join_ops().sample(s, pieces, seed, clock);
}

const Kernel& join_check_kernel() {
  static constexpr Kernel kCheck{"join-check",
                                 "the join's baseline build, cut into other chunks",
                                 "nothing",
                                 &always,
                                 &detail::count_join_check,
                                 PlanKind::kRowSplit,
                                 &baseline_isa,
                                 &detail::prepare_join_check,
                                 &join_check_count_watched,
                                 kJoinWatchedFromN};
  return kCheck;
}

std::string_view plan_kind_name(PlanKind kind) {
  switch (kind) {
    case PlanKind::kCanonical:
      return "canonical";
    case PlanKind::kClassic:
      return "classic";
    case PlanKind::kRowSplit:
      return "rowsplit";
  }
  return "?";
}

std::span<const Kernel> all_kernels() {
  return kernel_table();
}

const Kernel* find_kernel(std::string_view name) {
  if (name == "auto") return &best_kernel();
  for (const Kernel& k : kernel_table())
    if (k.name == name) return &k;
  return nullptr;
}

const Kernel& best_kernel() {
  for (const Kernel& k : kernel_table())
    if (k.plan == PlanKind::kCanonical && k.supported()) return k;
  return *find_kernel(detail::scalar_search().isa);  // not reached: the scalar search runs anywhere
}

const Kernel& auto_kernel(int n) {
  return n >= kJoinFromN ? *find_kernel("join") : best_kernel();
}

std::uint64_t join_scratch_bytes_for(int n, double margin) {
  const detail::JoinScratchSizes sizes = detail::join_scratch_sizes(n, margin);
  return std::min<std::uint64_t>(detail::kJoinScratchBytes,
                                 detail::join_scratch_bytes(sizes.leaves, sizes.parts));
}

std::uint64_t join_scratch_limit() {
  return detail::kJoinScratchBytes;
}

Mask join_west_half(const Subproblem& s) {
  return detail::join_west_columns(s);
}

}  // namespace nq
