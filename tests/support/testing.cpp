#include "tests/support/testing.hpp"

#include <cstdlib>
#include <string>

#include "engine/count/plan.hpp"
#include "engine/count/src/runner.hpp"
#include "kernels/kernels.hpp"
#include "kernels/src/isa_targets.hpp"

namespace nq::test_support {

const JoinBuild& join_scalar() {
  return detail::join_scalar_build();
}

namespace {
const JoinBuild* if_it_runs(const JoinBuild& build) {
  return nq::detail::runs_here(*build.ops.target) ? &build : nullptr;
}
}  // namespace

const JoinBuild* join_avx2() {
  return if_it_runs(detail::join_avx2_build());
}

const JoinBuild* join_avx512() {
  return if_it_runs(detail::join_avx512_build());
}

std::vector<const JoinBuild*> join_vector_builds() {
  std::vector<const JoinBuild*> builds;
  for (const JoinBuild* build : {join_avx2(), join_avx512()})
    if (build != nullptr) builds.push_back(build);
  return builds;
}

std::vector<const JoinBuild*> join_builds() {
  std::vector<const JoinBuild*> builds{&join_scalar()};
  for (const JoinBuild* build : join_vector_builds()) builds.push_back(build);
  return builds;
}

void set_join_limits(std::size_t chunk, std::size_t parts) {
  for (const JoinBuild* build : join_builds()) build->set_limits(chunk, parts);
}

void install_environment_seams() {
  if (const char* chunk = std::getenv("NQ_TEST_JOIN_CHUNK")) {
    const std::size_t placements = std::strtoull(chunk, nullptr, 10);
    set_join_limits(placements, placements);
  }
}

void rowsplit_runs(int n, int windows, int run, std::vector<Subproblem>& subproblems,
                   std::vector<std::uint8_t>& weights) {
  subproblems.clear();
  weights.clear();
  const Plan plan = plan_rowsplit(n, false);
  for (int w = 0; w < windows; ++w) {
    int taken = 0;
    for (std::uint64_t r = plan.splits * static_cast<std::uint64_t>(2 * w + 1) /
                           static_cast<std::uint64_t>(2 * windows);
         r < plan.splits && taken < run; ++r)
      if (const SplitSubproblem s = split_subproblem(plan, r); s.weight != 0) {
        subproblems.push_back(s.subproblem);
        weights.push_back(static_cast<std::uint8_t>(s.weight));
        ++taken;
      }
  }
}

}  // namespace nq::test_support
