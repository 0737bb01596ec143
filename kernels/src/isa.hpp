// What each instruction set's build of the kernels provides: one table per build, filled in that
// build's own source file and chosen once by the dispatcher (dispatch.cpp). Nothing outside
// kernels/ (and the tests) reads these tables; the engine sees the Kernel records of kernels.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/kernels.hpp"
#include "kernels/src/isa_targets.hpp"
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

// A build of the split-board join (kernels/src/join/; its table made by kernels/src/join/ops.hpp).
struct JoinOps {
  std::string_view isa;  // "scalar" (the baseline build), "avx2" or "avx512" (with VBMI and GFNI)
  const IsaTarget* target;
  BatchFn count;
  // Makes the calling thread ready to count n-boards (its scratch allocated and faulted in).
  void (*prepare)(int n);
  // The calling thread's watch (kernels.hpp, Watch).
  void (*set_watch)(const Watch& watch);
  JoinSample (*sample)(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                       double (*clock)());
};
const JoinOps& join_ops_scalar();  // join_scalar.cpp
const JoinOps& join_ops_avx2();    // join_avx2.cpp
const JoinOps& join_ops_avx512();  // join_avx512.cpp
// The build the join kernel runs on this CPU: the first of AVX-512 and AVX2 whose target this
// CPU runs, the baseline otherwise. Chosen once per process.
const JoinOps& join_ops();

// The join's cross-check (join_check_kernel): the baseline build with its own scratch, cut into
// chunks and bottom parts a quarter of the count's (join_scalar.cpp); that scratch made ready
// for n-boards, and its watch, for the calling thread.
void count_join_check(std::span<const Subproblem> in, std::span<Tally> out);
void prepare_join_check(int n);
void set_join_check_watch(const Watch& watch);
// The calling thread's watch in the build the dispatcher runs and in join-check's (a default
// Watch: none); the kernels' watched counts set it for one subproblem.
void set_join_watch(const Watch& watch);

// The reference kernel as a batch kernel: count_classic for each subproblem of the classic plan
// (no fixed queens, nothing blocked; n is the width of `full`) (reference.cpp).
void count_reference(std::span<const Subproblem> in, std::span<Tally> out);

}  // namespace nq::detail
