// What the tests reach that the programs never do: every build of the join this CPU can run,
// with the entries only tests use, their limits, and the seams of the programs' test builds.
// Linked only into tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/src/isa.hpp"
#include "kernels/subproblem.hpp"

namespace nq::test_support {

// One build of the join as the tests reach it: the product's table of its operations, and the
// entries only tests use, compiled from the build's own code (join_hooks.hpp).
struct JoinBuild {
  const detail::JoinOps& ops;
  // The calling thread's chunk (placements of a settled half paired at a time) and bottom-part
  // limit (0: the defaults, kJoinChunk and kJoinMaxParts). Small limits make small boards take
  // the paths that only large boards need otherwise.
  void (*set_limits)(std::size_t chunk, std::size_t parts);
  // The pair counter on its own: pairs (x in a, y in b) with x & y == 0, for patterns of
  // `bits` < 64 bits. narrow_visits: whether it reads half-entries for visits of half a block,
  // as where cpu_splits_wide_loads() (the AVX-512 build only; the others ignore it).
  std::uint64_t (*count_disjoint_pairs)(std::span<const std::uint64_t> a,
                                        std::span<const std::uint64_t> b, int bits,
                                        bool narrow_visits);
  // The cut diagonals the pair counter's sieve chooses on sampled pairs for large sides: c of
  // the bits of `shared` (a is the side whose members the sample rows are).
  std::uint64_t (*sieve_cuts)(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                              std::uint64_t shared, int c);
};

// The join's baseline build, which every CPU runs.
const JoinBuild& join_scalar();
// The join's AVX2 and AVX-512 builds, or null where this CPU cannot run them.
const JoinBuild* join_avx2();
const JoinBuild* join_avx512();
// Every build of the join this CPU can run: the baseline first, then AVX2 and AVX-512 where they
// run.
std::vector<const JoinBuild*> join_builds();
// The same without the baseline: the builds that tests compare with it.
std::vector<const JoinBuild*> join_vector_builds();

// The calling thread's join chunk and bottom-part limit in every build (0: the defaults).
void set_join_limits(std::size_t chunk, std::size_t parts);

// Runs of consecutive representatives of the row-split plan of n, the join's tests' samples:
// `windows` runs of up to `run` subproblems each (those of non-zero weight), run w starting at
// split (2w + 1) / (2 windows) of the way through the plan, in plan order, as a count meets them
// (so that the join reuses bottom parts between them).
void rowsplit_runs(int n, int windows, int run, std::vector<Subproblem>& subproblems,
                   std::vector<std::uint8_t>& weights);

// The second kernel of every cross-check from now on (null: the engine's choice again). Defined
// in support/second_kernel.cpp, which the test programs that choose one compile in: there it takes
// the place of the engine's choice, as NQ_TEST_CROSS_CHECK_KERNEL=NAME does in the programs' test
// builds.
void force_second_kernel(const Kernel* kernel);
// force_second_kernel for a scope, and the engine's choice again after it.
class ForcedSecondKernel {
 public:
  explicit ForcedSecondKernel(const Kernel* kernel) { force_second_kernel(kernel); }
  ~ForcedSecondKernel() { force_second_kernel(nullptr); }
  ForcedSecondKernel(const ForcedSecondKernel&) = delete;
  ForcedSecondKernel& operator=(const ForcedSecondKernel&) = delete;
};

// The test builds of the programs (nqcount-testing, nqcount-mpi-testing) read two variables
// before main, through this call (seams.cpp):
//   NQ_TEST_CROSS_CHECK_KERNEL=NAME        the second kernel of every cross-check (one of
//                                          another plan, to see a failed cross-check end to end);
//   NQ_TEST_JOIN_CHUNK=PLACEMENTS          the main thread's join chunk and bottom-part limit
//                                          (set_join_limits): a one-thread run cuts small boards'
//                                          halves into chunk pairs as n >= 26 cuts them.
void install_environment_seams();

namespace detail {
// Each build's JoinBuild (join_scalar_hooks.cpp, join_avx2_hooks.cpp, join_avx512_hooks.cpp).
const JoinBuild& join_scalar_build();
const JoinBuild& join_avx2_build();
const JoinBuild& join_avx512_build();
}  // namespace detail

}  // namespace nq::test_support
