// Kernel selection: a list in priority order; the first one this CPU supports is "auto".
// The choice is made once per run by the engine, never inside a search. Whether this CPU runs a
// build is asked once per process, of the build's instruction-set target (isa_targets.hpp).
#include <array>

#include "kernels/isa.hpp"
#include "kernels/isa_targets.hpp"
#include "kernels/join_limits.hpp"
#include "kernels/kernels.hpp"

namespace nq {

namespace {

bool always() {
  return true;
}
bool has_avx2() {
  static const bool ok = detail::runs_here(*detail::avx2_search().target);
  return ok;
}
bool has_avx512() {
  static const bool ok = detail::runs_here(*detail::avx512_search().target);
  return ok;
}

constexpr std::size_t kKernelCount = 5;

void count_avx512(std::span<const Subproblem> in, std::span<Tally> out) {
  detail::avx512_search().count(in, out);
}
void count_avx2(std::span<const Subproblem> in, std::span<Tally> out) {
  detail::avx2_search().count(in, out);
}
void count_scalar(std::span<const Subproblem> in, std::span<Tally> out) {
  detail::scalar_search().count(in, out);
}
void count_join(std::span<const Subproblem> in, std::span<Tally> out) {
  detail::join_ops().count(in, out);
}
void prepare_join(int n) {
  detail::join_ops().prepare(n);
}
void prepare_join_check(int n) {
  detail::join_ops_scalar().prepare(n);
}
}  // namespace

const detail::JoinOps& detail::join_ops() {
  static const JoinOps& chosen =
      has_avx512() && runs_here(*join_ops_avx512().target) ? join_ops_avx512() : join_ops_scalar();
  return chosen;
}

bool detail::cpu_splits_wide_loads() {
  // AMD family 0x19 is Zen 3 and Zen 4; of the two only Zen 4 has AVX-512.
  static const bool splits = __builtin_cpu_is("amdfam19h") && runs_here(*avx512_search().target);
  return splits;
}

void set_join_watch(const JoinWatch& watch) {
  detail::join_ops().set_watch(watch);
  // and the cross-check's, the baseline build (join-check)
  if (&detail::join_ops() != &detail::join_ops_scalar()) detail::join_ops_scalar().set_watch(watch);
}

JoinSample sample_join(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                       double (*clock)()) {
  return detail::join_ops().sample(s, pieces, seed, clock);
}

namespace {

std::string_view join_isa() {
  return detail::join_ops().isa;
}
std::string_view isa_avx512() {
  return "avx512";
}
std::string_view isa_avx2() {
  return "avx2";
}
std::string_view isa_scalar() {
  return "scalar";
}

// The table, made once: its "needs" texts are the targets' (isa_targets.hpp).
const std::array<Kernel, kKernelCount>& kernel_table() {
  static const std::array<Kernel, kKernelCount> table{
      Kernel{"avx512", "SIMD lanes, AVX-512", detail::avx512_search().target->needs(), &has_avx512,
             &count_avx512, PlanKind::kCanonical, &isa_avx512},
      Kernel{"avx2", "SIMD lanes, AVX2", detail::avx2_search().target->needs(), &has_avx2,
             &count_avx2, PlanKind::kCanonical, &isa_avx2},
      Kernel{"scalar", "bitboard backtracking", "nothing", &always, &count_scalar,
             PlanKind::kCanonical, &isa_scalar},
      // After the backtracking kernels: "auto" takes it by board size (auto_kernel), never as
      // the generic best.
      Kernel{"join",
             "split-board join: both half-boards enumerated, compatible pairs counted, in AVX-512 "
             "(with VBMI and GFNI) where the CPU has it",
             "nothing", &always, &count_join, PlanKind::kRowSplit, &join_isa, &prepare_join},
      Kernel{"reference",
             "the classic one-queen-per-row search with mirror halving, unique by Burnside",
             "nothing", &always, &detail::count_reference, PlanKind::kClassic, &isa_scalar},
  };
  return table;
}
constexpr std::size_t kScalar = 2;

}  // namespace

const Kernel& join_check_kernel() {
  static constexpr Kernel kCheck{"join-check",
                                 "the join's baseline build, cut into other chunks",
                                 "nothing",
                                 &always,
                                 &detail::count_join_check,
                                 PlanKind::kRowSplit,
                                 &isa_scalar,
                                 &prepare_join_check};
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
  for (std::size_t i = 0; i <= kScalar; ++i)
    if (kernel_table()[i].supported()) return kernel_table()[i];
  return kernel_table()[kScalar];
}

const Kernel& auto_kernel(int n) {
  return n >= kJoinFromN ? *find_kernel("join") : best_kernel();
}

}  // namespace nq
