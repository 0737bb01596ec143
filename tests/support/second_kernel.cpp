// The second kernel of every cross-check, as a test chooses it: compiled into the test programs
// that choose one (tests/CMakeLists.txt), where it takes the place of the engine's own
// (engine/count/src/second_kernel.cpp, which the linker then leaves out of the library).
#include <cstdlib>

#include "engine/count/count.hpp"
#include "engine/count/src/runner.hpp"
#include "tests/support/testing.hpp"

namespace nq {
namespace {

const Kernel* g_forced = nullptr;

}  // namespace

void test_support::force_second_kernel(const Kernel* kernel) {
  g_forced = kernel;
}

const Kernel& detail::second_kernel_for(const Kernel& kernel, int n) {
  if (g_forced) return *g_forced;
  static const Kernel* const from_environment = [] {
    const char* name = std::getenv("NQ_TEST_CROSS_CHECK_KERNEL");
    return name ? find_kernel(name) : nullptr;
  }();
  return from_environment ? *from_environment : cross_check_kernel(kernel, n);
}

}  // namespace nq
