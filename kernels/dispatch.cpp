// Kernel selection: a list in priority order; the first one this CPU supports is "auto".
// The choice is made once per run by the engine, never inside a search. CPU features are
// detected once per process (__builtin_cpu_supports reads CPUID and the OS's XSAVE state).
#include <array>
#include <atomic>
#include <cstdlib>

#include "kernels/kernels.hpp"

namespace nq {
namespace {

// A test seam: NQ_TEST_DISABLE_KERNELS=avx512,avx2 makes those kernels report "unsupported",
// so a machine that has every feature can still test the "this CPU cannot run it" path.
bool disabled_for_testing(std::string_view name) {
  const char* value = std::getenv("NQ_TEST_DISABLE_KERNELS");
  std::string_view list = value ? value : "";
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

bool always() {
  return true;
}
bool has_avx2() {
  static const bool ok = avx2_supported() && !disabled_for_testing("avx2");
  return ok;
}
bool has_avx512() {
  static const bool ok = avx512_supported() && !disabled_for_testing("avx512");
  return ok;
}
bool has_join_avx512() {
  static const bool ok = has_avx512() && join_avx512_supported();
  return ok;
}

constexpr std::size_t kKernelCount = 5;
std::array<std::atomic<std::uint64_t>, kKernelCount> g_batches{};

// The join kernel's own ISA choice, made once: its bit-slice loops in AVX-512 where the CPU
// has it, the baseline build otherwise; what it chose is what it reports.
struct JoinBuild {
  BatchFn count;
  void (*prepare)(int n);
  std::string_view isa;
};
const JoinBuild& join_build() {
  static const JoinBuild chosen =
      has_join_avx512() ? JoinBuild{&count_join_avx512, &prepare_join_avx512, "avx512"}
                        : JoinBuild{&count_join_scalar, &prepare_join_scalar, "scalar"};
  return chosen;
}
void count_join(std::span<const Subproblem> in, std::span<Tally> out) {
  join_build().count(in, out);
}
void prepare_join(int n) {
  join_build().prepare(n);
}
}  // namespace

bool cpu_splits_wide_loads() {
  // AMD family 0x19 is Zen 3 and Zen 4; of the two only Zen 4 has AVX-512.
  return __builtin_cpu_is("amdfam19h") && avx512_supported();
}

void set_join_watch(const JoinWatch& watch) {
  if (has_join_avx512()) set_join_watch_avx512(watch);
  set_join_watch_scalar(watch);  // and the cross-check's, the baseline build (join-check)
}

JoinSample sample_join(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                       double (*clock)()) {
  return has_join_avx512() ? sample_join_avx512(s, pieces, seed, clock)
                           : sample_join_scalar(s, pieces, seed, clock);
}

void set_join_limits(std::size_t chunk, std::size_t parts) {
  set_join_limits_scalar(chunk, parts);
  if (has_join_avx512()) set_join_limits_avx512(chunk, parts);
}

namespace {

std::string_view join_isa() {
  return join_build().isa;
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

// Counts the batches of kernel I (one relaxed add per batch, never per node), then runs it.
template <std::size_t I, BatchFn F>
void counted(std::span<const Subproblem> in, std::span<Tally> out) {
  g_batches[I].fetch_add(1, std::memory_order_relaxed);
  F(in, out);
}

constexpr std::array<Kernel, kKernelCount> kKernels{
    Kernel{"avx512", "SIMD lanes, AVX-512", "AVX-512 F, VL, BW, DQ and VPOPCNTDQ", &has_avx512,
           &counted<0, &count_avx512>, PlanKind::kCanonical, &isa_avx512},
    Kernel{"avx2", "SIMD lanes, AVX2", "AVX2, BMI2 and POPCNT", &has_avx2, &counted<1, &count_avx2>,
           PlanKind::kCanonical, &isa_avx2},
    Kernel{"scalar", "bitboard backtracking", "nothing", &always, &counted<2, &count_scalar>,
           PlanKind::kCanonical, &isa_scalar},
    // After the backtracking kernels: "auto" takes it by board size (auto_kernel), never as
    // the generic best.
    Kernel{"join",
           "split-board join: both half-boards enumerated, compatible pairs counted, in AVX-512 "
           "(with VBMI and GFNI) where the CPU has it",
           "nothing", &always, &counted<3, &count_join>, PlanKind::kRowSplit, &join_isa, false,
           &prepare_join},
    Kernel{
        "reference", "the classic one-queen-per-row search with mirror halving, unique by Burnside",
        "nothing", &always, &counted<4, &count_reference>, PlanKind::kClassic, &isa_scalar, false},
};
constexpr std::size_t kScalar = 2;

}  // namespace

const Kernel& join_check_kernel() {
  static constexpr Kernel kCheck{
      "join-check",        "the join's baseline build, cut into other chunks",
      "nothing",           &always,
      &count_join_check,   PlanKind::kRowSplit,
      &isa_scalar,         false,
      &prepare_join_scalar};
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
  return kKernels;
}

const Kernel* find_kernel(std::string_view name) {
  if (name == "auto") return &best_kernel();
  for (const Kernel& k : kKernels)
    if (k.name == name) return &k;
  return nullptr;
}

const Kernel& best_kernel() {
  for (std::size_t i = 0; i <= kScalar; ++i)
    if (kKernels[i].supported()) return kKernels[i];
  return kKernels[kScalar];
}

const Kernel& auto_kernel(int n) {
  return n >= kJoinFromN ? *find_kernel("join") : best_kernel();
}

std::uint64_t kernel_batches(std::string_view name) {
  for (std::size_t i = 0; i < kKernelCount; ++i)
    if (kKernels[i].name == name) return g_batches[i].load(std::memory_order_relaxed);
  return 0;
}

}  // namespace nq
