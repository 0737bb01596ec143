// The memory a count needs, estimated up front from its plan, so that a run too large for the
// machine is refused with a clear error before it starts instead of being killed half way by
// the kernel's OOM killer.
//
// The estimate is an upper bound built from what the runner really holds
// (engine/count/src/run.cpp):
//   fixed     the process itself: code, libraries, TBB's and hwloc's state (5.5 MB measured);
//   plan      the subproblems (their vector's capacity) and the weights: the plan is written in
//             place, so planning holds nothing beside it;
//   run       per planned subproblem the cost vector and the dealing order, per counted one its
//             position in the work layout and its copy on its node's memory (and the journal's
//             todo list, the task stats where asked), sized by the types the runner keeps them in;
//   threads   each worker's stack and TBB state, plus the kernel's own per-thread scratch: the
//             join's buffers (kernels.hpp, join_scratch_limit), nothing for the
//             backtracking kernels, whose state lives on the stack.
// peak = fixed + plan + run + threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/types.hpp"
#include "engine/count/config.hpp"
#include "engine/count/plan.hpp"
#include "kernels/kernels.hpp"

namespace nq {

// What a count of `plan` with `config` (its threads, journal, task stats) needs at its
// peak, in bytes. `counted`: how many of the plan's subproblems this run counts (all of them for
// count(), the selection for count_selected()).
struct MemoryEstimate {
  std::uint64_t fixed = 0;
  std::uint64_t plan = 0;     // the plan as it stands
  std::uint64_t run = 0;      // what the runner adds beside it
  std::uint64_t threads = 0;  // every worker's stack, state and kernel scratch
  std::uint64_t total() const;
};
MemoryEstimate estimate_memory(const Plan& plan, const CountConfig& config, std::uint64_t counted);
// The same for a whole count of a plan of `kind` with `tasks` tasks that is not made yet: its
// size is known before its heavy parts (PlanControl::admit), so a run too large is refused
// before them. Never above what the plan, once made, is estimated to need.
MemoryEstimate estimate_memory(int n, PlanKind kind, std::uint64_t tasks,
                               const CountConfig& config);
// The same for a board too small for a plan (n < 4: enumerated on the calling thread).
MemoryEstimate estimate_memory_without_plan(int threads);

// The kernel's own scratch per thread for an n-board: for the join, its buffers at 4x the
// largest half-boards measured for this n, never above join_scratch_limit(); 0 for
// the backtracking kernels and the reference kernel.
std::uint64_t kernel_scratch_bytes(const Kernel* kernel, int n);

// The default limit: 80% of the physical memory (sysconf), leaving room for the system.
std::uint64_t default_memory_limit();

// An Error when `estimate` is above `limit` (0: default_memory_limit()), saying both.
std::optional<Error> check_memory(std::uint64_t estimate, std::uint64_t limit);

// Bytes as a person reads them: "512 B", "9.1 MiB", "8.0 GiB" (powers of 1024).
std::string format_bytes(std::uint64_t bytes);

// A size as a person types it: plain bytes ("1000000"), or a number (decimals allowed) with a
// unit K, M, G or T (powers of 1024), optionally followed by "B" or "iB", in either case:
// "512M", "8G", "8GB", "1.5G", "64KiB". Nothing for anything else, zero, or a size above 2^64.
std::optional<std::uint64_t> parse_byte_size(const std::string& text);

}  // namespace nq
