// The test programs of the engine are hosts that want every thread count their tests ask for:
// as nqcount does for its --threads (cli/commands/commands.hpp), each raises oneTBB's cap on its
// threads for its whole life to the most any of its tests asks for, so that a test of 8 threads
// runs 8 on a 2-core machine (the engine keeps within its host's cap and never raises it). No
// higher: oneTBB keeps up to the cap's threads for the arenas that come and go, and with a cap of
// thousands the tests' many short counts had it start hundreds of threads, every one spinning. A
// test that asks for more gets fewer, and its check of the threads that ran says so. The
// library's own test program does not link this: it is a host with TBB's defaults.
#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <cstddef>

#include "base/threads.hpp"

namespace {

constexpr int kMostThreadsATestAsks = 8;

const tbb::global_control raised_thread_cap(
    tbb::global_control::max_allowed_parallelism,
    static_cast<std::size_t>(std::max(kMostThreadsATestAsks, nq::hardware_threads())));

}  // namespace
