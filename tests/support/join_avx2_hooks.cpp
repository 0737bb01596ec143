// The tests' entries into the join's AVX2 build (join_hooks.hpp), compiled as that build is:
// the standard headers before its target region (kernels/src/join_avx512.cpp says why), then the
// region of its record.
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "kernels/src/isa_targets.hpp"
#include "tests/support/testing.hpp"

#define NQ_ISA avx2_join  // as kernels/src/join_avx2.cpp
#include "kernels/src/isa_begin.hpp"

#define NQ_KERNEL_NAMESPACE join_avx2
#define NQ_JOIN_AVX2 1
#include "kernels/src/join/join.hpp"
#include "tests/support/join_hooks.hpp"

// The region ends here: the build's accessor below is the tests' own code.
#include "kernels/src/isa_end.hpp"

namespace nq {

const test_support::JoinBuild& test_support::detail::join_avx2_build() {
  static const JoinBuild build{nq::detail::join_ops_avx2(), &join_avx2::test_hooks::set_limits,
                               &join_avx2::test_hooks::count_disjoint_pairs,
                               &join_avx2::test_hooks::sieve_cuts};
  return build;
}

}  // namespace nq
