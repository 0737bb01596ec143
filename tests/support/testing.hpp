// What the tests reach that the programs never do: every build of the join this CPU can run,
// their limits, and the seams of the programs' test builds. Linked only into tests.
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/isa.hpp"

namespace nq::test_support {

// The join's AVX-512 build, or null where this CPU cannot run it.
const detail::JoinOps* join_avx512();
// Every build of the join this CPU can run: the baseline first, then AVX-512 where it runs.
std::vector<const detail::JoinOps*> join_builds();

// The calling thread's join chunk and bottom-part limit in every build (0: the defaults).
// Small limits make small boards take the paths that only large boards need otherwise.
void set_join_limits(std::size_t chunk, std::size_t parts);

// The test builds of the programs (nqcount-testing, nqcount-mpi-testing) read three variables
// before main, through this call (seams.cpp):
//   NQ_TEST_DISABLE_KERNELS=avx512,avx2   those kernels report "cannot run on this CPU", so that
//                                          a machine with every feature can test that path;
//   NQ_TEST_CROSS_CHECK_KERNEL=NAME        the second kernel of every cross-check (one of
//                                          another plan, to see a failed cross-check end to end);
//   NQ_TEST_JOIN_CHUNK=PLACEMENTS          the main thread's join chunk and bottom-part limit
//                                          (set_join_limits): a one-thread run cuts small boards'
//                                          halves into chunk pairs as n >= 26 cuts them.
void install_environment_seams();

}  // namespace nq::test_support
