// What each instruction set's build of the kernels provides: one table per build, filled in that
// build's own source file and chosen once by the dispatcher (dispatch.cpp). Nothing outside
// kernels/ (and the tests) reads these tables; the engine sees the Kernel records of kernels.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/isa_targets.hpp"
#include "kernels/kernels.hpp"
#include "kernels/subproblem.hpp"

namespace nq::detail {

// A backtracking search build: the scalar search (search.hpp) or the lane-parallel one
// (lanes.hpp) compiled for one instruction set.
struct SearchOps {
  std::string_view isa;     // "scalar", "avx2", "avx512"
  const IsaTarget* target;  // what it is compiled for; a CPU runs it where runs_here(*target)
  BatchFn count;
};
const SearchOps& scalar_search();  // scalar.cpp
const SearchOps& avx2_search();    // avx2.cpp
const SearchOps& avx512_search();  // avx512.cpp

// A build of the split-board join (kernels/join/).
struct JoinOps {
  std::string_view isa;  // "scalar" (the baseline build) or "avx512" (with VBMI and GFNI)
  const IsaTarget* target;
  BatchFn count;
  // Makes the calling thread ready to count n-boards (its scratch allocated and faulted in).
  void (*prepare)(int n);
  // The calling thread's watch (kernels.hpp, JoinWatch).
  void (*set_watch)(const JoinWatch& watch);
  JoinSample (*sample)(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                       double (*clock)());
  // The calling thread's chunk (placements of a settled half paired at a time) and bottom-part
  // limit (0: the defaults, kJoinChunk and kJoinMaxParts). Small limits make small boards
  // take the paths that only large boards need otherwise (tests).
  void (*set_limits)(std::size_t chunk, std::size_t parts);
  // The pair counter on its own: pairs (x in a, y in b) with x & y == 0, for patterns of
  // `bits` < 64 bits. narrow_visits: whether it reads half-entries for visits of half a block,
  // as where cpu_splits_wide_loads() (the AVX-512 build only; the baseline ignores it).
  std::uint64_t (*count_disjoint_pairs)(std::span<const std::uint64_t> a,
                                        std::span<const std::uint64_t> b, int bits,
                                        bool narrow_visits);
  // The cut diagonals the pair counter's sieve chooses on sampled pairs for large sides: c of
  // the bits of `shared` (a is the side whose members the sample rows are).
  std::uint64_t (*sieve_cuts)(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                              std::uint64_t shared, int c);
};
const JoinOps& join_ops_scalar();  // join_scalar.cpp
const JoinOps& join_ops_avx512();  // join_avx512.cpp
// The build the join kernel runs on this CPU: AVX-512 where it is supported (and not disabled
// for a test), the baseline otherwise. Chosen once per process.
const JoinOps& join_ops();

// The join's cross-check (join_check_kernel): the baseline build with its own scratch, cut into
// chunks and bottom parts a quarter of the count's (join_scalar.cpp).
void count_join_check(std::span<const Subproblem> in, std::span<Tally> out);

// The reference kernel as a batch kernel: count_classic for each subproblem of the classic plan
// (no fixed queens, nothing blocked; n is the width of `full`) (reference.cpp).
void count_reference(std::span<const Subproblem> in, std::span<Tally> out);

// The dispatcher's test seam: a filter consulted once, the first time a kernel's support is
// asked, that may declare a kernel this CPU supports unsupported (so that a machine with every
// feature can test the "this CPU cannot run it" path). Set only by the tests' support library,
// before main.
using KernelFilter = bool (*)(std::string_view name);
void set_kernel_filter(KernelFilter usable);

}  // namespace nq::detail
