// The join kernel (kernels/src/join/) compiled for AVX2, for the CPUs without AVX-512: its lane
// words become 256-bit ANDs, their popcounts nibble lookups (VPSHUFB, VPSADBW), and its bit
// extractions and deposits PEXT and PDEP (BMI2). Only this file's code is compiled for it (a
// target region, not a -m flag).
#include <immintrin.h>

// The standard headers of kernels/src/join/, included before the target region (as
// join_avx512.cpp, which says why).
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

#define NQ_ISA avx2_join  // its record in kernels/CMakeLists.txt
#include "kernels/src/isa_begin.hpp"

#define NQ_KERNEL_NAMESPACE join_avx2
#define NQ_JOIN_AVX2 1
#include "kernels/src/join/join.hpp"
#include "kernels/src/join/ops.hpp"

// The region ends here: the build's table below is made outside it.
#include "kernels/src/isa_end.hpp"

namespace nq {

const detail::JoinOps& detail::join_ops_avx2() {
  static constexpr IsaTarget kTarget = make_isa_target(NQ_ISA_NAME, NQ_ISA_FEATURES);
  static constexpr JoinOps ops = join_avx2::join_ops("avx2", &kTarget);
  return ops;
}

}  // namespace nq
