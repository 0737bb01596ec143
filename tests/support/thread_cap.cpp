// The test programs of the engine are hosts that want every thread count they ask for: as
// nqcount does (cli/commands/commands.hpp), each raises oneTBB's cap on its threads to
// kMaxThreads for its whole life, so that a test of 8 threads runs 8 on a 2-core machine (the
// engine keeps within its host's cap and never raises it). The library's own test program does
// not link this: it is a host with TBB's defaults.
#include <oneapi/tbb/global_control.h>

#include <cstddef>

#include "base/threads.hpp"

namespace {

const tbb::global_control raised_thread_cap(tbb::global_control::max_allowed_parallelism,
                                            static_cast<std::size_t>(nq::kMaxThreads));

}  // namespace
