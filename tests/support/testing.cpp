#include "tests/support/testing.hpp"

#include <cstdlib>
#include <string>

#include "engine/count/src/runner.hpp"
#include "kernels/kernels.hpp"
#include "kernels/src/isa_targets.hpp"

namespace nq::test_support {

const JoinBuild& join_scalar() {
  return detail::join_scalar_build();
}

const JoinBuild* join_avx512() {
  const JoinBuild& build = detail::join_avx512_build();
  return nq::detail::runs_here(*build.ops.target) ? &build : nullptr;
}

std::vector<const JoinBuild*> join_builds() {
  std::vector<const JoinBuild*> builds{&join_scalar()};
  if (const JoinBuild* avx512 = join_avx512()) builds.push_back(avx512);
  return builds;
}

void set_join_limits(std::size_t chunk, std::size_t parts) {
  for (const JoinBuild* build : join_builds()) build->set_limits(chunk, parts);
}

void install_environment_seams() {
  if (const char* forced = std::getenv("NQ_TEST_CROSS_CHECK_KERNEL"))
    nq::detail::set_cross_check_override(find_kernel(forced));
  if (const char* chunk = std::getenv("NQ_TEST_JOIN_CHUNK")) {
    const std::size_t placements = std::strtoull(chunk, nullptr, 10);
    set_join_limits(placements, placements);
  }
}

}  // namespace nq::test_support
