// The tests' entries into the join's baseline build (join_hooks.hpp).
#define NQ_KERNEL_NAMESPACE join_scalar
#include "kernels/src/join/join.hpp"
#include "tests/support/join_hooks.hpp"
#include "tests/support/testing.hpp"

namespace nq {

const test_support::JoinBuild& test_support::detail::join_scalar_build() {
  static const JoinBuild build{nq::detail::join_ops_scalar(), &join_scalar::test_hooks::set_limits,
                               &join_scalar::test_hooks::count_disjoint_pairs,
                               &join_scalar::test_hooks::sieve_cuts};
  return build;
}

}  // namespace nq
