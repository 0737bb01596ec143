#include "engine/count/memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "base/threads.hpp"
#include "engine/count/dealer.hpp"
#include "engine/count/journal.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/src/cost.hpp"
#include "engine/count/src/layout.hpp"

namespace nq {
namespace {

// The process before any plan: measured 5.5 MB of resident memory (/usr/bin/time -v, n = 4 and
// n = 8 on 1 and 2 threads); rounded up.
constexpr std::uint64_t kFixedBytes = std::uint64_t{8} << 20;
// One worker: its stack pages and TBB's per-thread state. Measured 23 KB a thread (64 threads
// against 1 at n = 8); rounded up.
constexpr std::uint64_t kPerThreadBytes = std::uint64_t{64} << 10;

using detail::claim_order;
using detail::WorkLayout;

// What the runner keeps per planned subproblem beside the plan (run.cpp run_on_arenas and
// count()), by the types it keeps them in: the estimated cost (cost.hpp), its double for dealing
// and the dealing order (layout.hpp claim_order), and the selection bit (a byte at most).
using CostVector = decltype(estimate_costs(std::declval<const Plan&>()));
using OrderVector = decltype(claim_order(std::declval<const std::vector<double>&>(), false));
constexpr std::uint64_t kPerPlannedBytes =
    sizeof(CostVector::value_type) + sizeof(double) + sizeof(OrderVector::value_type) + 1;
// ... and per counted task: a position of the work layout (layout.hpp WorkLayout: its id and
// the suffix cost). The row-split plan's tasks are unranked by the worker that claims them;
// the other plans' subproblems are copied onto their node's memory too.
constexpr std::uint64_t kPerCountedTaskBytes =
    sizeof(decltype(WorkLayout::ids)::value_type) + sizeof(decltype(WorkLayout::after)::value_type);
constexpr std::uint64_t kPerCountedBytes = sizeof(Subproblem) + kPerCountedTaskBytes;
// A resumed run reads the journal (a record and a finished entry per subproblem done, the
// solutions seen per planned one) and keeps the todo list.
constexpr std::uint64_t kPerJournalBytes =
    2 * sizeof(FinishedSubproblem) + 2 * sizeof(std::uint64_t);

// The threads that may hold a worker's state and scratch: the run's; where counts share them
// (CountConfig::seats: an MPI rank's batches, each asked for by a thread of its own that takes
// part in it), the TBB workers besides those threads.
std::uint64_t threads_of(const CountConfig& config) {
  const auto threads = static_cast<std::uint64_t>(resolve_threads(config.threads));
  return config.seats ? threads + kDealerBatchesHeld - 1 : threads;
}

// The join's buffers per thread at 4x the measured largest half-boards and bottom parts of this
// n, and never above the kernel's own bound (kernels.hpp).
std::uint64_t join_scratch_bound(int n) {
  return join_scratch_bytes_for(n, 4.0);
}

}  // namespace

std::uint64_t MemoryEstimate::total() const {
  return fixed + plan + run + threads;
}

std::uint64_t kernel_scratch_bytes(const Kernel* kernel, int n) {
  return kernel && kernel->plan == PlanKind::kRowSplit ? join_scratch_bound(n) : 0;
}

namespace {

MemoryEstimate estimate_for(int n, bool rowsplit, std::uint64_t planned, std::uint64_t plan_bytes,
                            const CountConfig& config, std::uint64_t counted) {
  MemoryEstimate e;
  std::uint64_t run =
      planned * kPerPlannedBytes + counted * (rowsplit ? kPerCountedTaskBytes : kPerCountedBytes);
  if (config.journal) run += planned * kPerJournalBytes;
  if (config.task_stats) run += planned * sizeof(TaskStat);
  e.fixed = kFixedBytes;
  e.plan = plan_bytes;
  e.run = run;
  // The row-split plan is the join's, and only the join's (run.cpp plan_for): the plan, not
  // the kernel's name, says which kernel runs, whatever "auto" resolves to.
  const std::uint64_t scratch = rowsplit ? join_scratch_bound(n) : 0;
  e.threads = threads_of(config) * (kPerThreadBytes + scratch);
  return e;
}

}  // namespace

MemoryEstimate estimate_memory(const Plan& plan, const CountConfig& config, std::uint64_t counted) {
  // The row-split plan is lazy (plan.hpp): nothing stored, whatever its size.
  const std::uint64_t plan_bytes =
      plan.subproblems.capacity() * sizeof(Subproblem) + plan.weights.capacity();
  return estimate_for(plan.n, plan.rowsplit(), plan.size(), plan_bytes, config, counted);
}

MemoryEstimate estimate_memory(int n, PlanKind kind, std::uint64_t tasks,
                               const CountConfig& config) {
  const bool rowsplit = kind == PlanKind::kRowSplit;
  const std::uint64_t plan_bytes = rowsplit ? 0 : tasks * (sizeof(Subproblem) + 1);
  return estimate_for(n, rowsplit, tasks, plan_bytes, config, tasks);
}

MemoryEstimate estimate_memory_without_plan(int threads) {
  MemoryEstimate e;
  e.fixed = kFixedBytes;
  e.threads = static_cast<std::uint64_t>(std::max(threads, 1)) * kPerThreadBytes;
  return e;
}

std::uint64_t default_memory_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return ~std::uint64_t{0};  // unknown: no limit of our own
  return static_cast<std::uint64_t>(pages) / 10 * 8 * static_cast<std::uint64_t>(page);
}

std::optional<Error> check_memory(std::uint64_t estimate, std::uint64_t limit) {
  const bool given = limit != 0;
  if (!given) limit = default_memory_limit();
  if (estimate <= limit) return std::nullopt;
  // Exact bytes beside the rounded sizes: "8.1 MiB above 8.1 MiB" would not say why.
  return Error{"this count needs about " + format_bytes(estimate) + " (" +
               std::to_string(estimate) + " bytes), above the memory limit of " +
               format_bytes(limit) + " (" + std::to_string(limit) + " bytes)" +
               (given ? " (--memory-limit)" : " (80% of this machine's memory; --memory-limit)")};
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", value, kUnits[unit]);
  return buf;
}

std::optional<std::uint64_t> parse_byte_size(const std::string& text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto digit = [&](std::size_t k) {
    return k < n && std::isdigit(static_cast<unsigned char>(text[k]));
  };
  if (!digit(0)) return std::nullopt;                   // no sign, no space, no empty string
  if (text[0] == '0' && digit(1)) return std::nullopt;  // decimal: no leading zero (010M)
  long double value = 0;
  for (; digit(i); ++i) value = value * 10 + (text[i] - '0');
  bool fraction = false;
  if (i < n && text[i] == '.') {
    fraction = true;
    ++i;
    if (!digit(i)) return std::nullopt;
    for (long double scale = 0.1L; digit(i); ++i, scale /= 10) value += scale * (text[i] - '0');
  }
  std::string unit;
  for (; i < n; ++i)
    unit.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(text[i]))));
  int shift = 0;
  if (!unit.empty() && unit != "B") {
    const std::string prefixes = "KMGT";
    const std::size_t p = prefixes.find(unit[0]);
    const std::string rest = unit.substr(1);
    if (p == std::string::npos || !(rest.empty() || rest == "B" || rest == "IB"))
      return std::nullopt;
    shift = 10 * static_cast<int>(p + 1);
  } else if (fraction) {
    return std::nullopt;  // a fraction of a byte
  }
  const long double bytes = std::ldexp(value, shift);
  if (bytes < 1 || bytes >= 18446744073709551616.0L) return std::nullopt;
  return static_cast<std::uint64_t>(std::min(std::floor(bytes + 0.5L), 18446744073709551615.0L));
}

}  // namespace nq
