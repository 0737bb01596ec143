// The join kernel (kernels/src/join/) compiled for AVX-512: the bit-slice loops become 512-bit ANDs
// and VPOPCNTQ, and its bit transposes to VPERMB and GF2P8AFFINEQB (VBMI and GFNI, checked at run
// time with the rest). Only this file's code is compiled for it (a target region, not a -m
// flag).
#include <immintrin.h>

// The standard headers of kernels/src/join/, included before the target region: the library's
// inline functions must not be compiled for AVX-512 here, where the linker may pick them for every
// caller (and clang refuses the region's attribute on a function already defined).
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

#define NQ_ISA avx512_join  // its record in kernels/CMakeLists.txt
#include "kernels/src/isa_begin.hpp"

#define NQ_KERNEL_NAMESPACE join_avx512
#define NQ_JOIN_AVX512 1
#include "kernels/src/join/join.hpp"
#include "kernels/src/join/ops.hpp"

// The region ends here: the build's table below is made outside it.
#include "kernels/src/isa_end.hpp"

namespace nq {

const detail::JoinOps& detail::join_ops_avx512() {
  static constexpr IsaTarget kTarget = make_isa_target(NQ_ISA_NAME, NQ_ISA_FEATURES);
  static constexpr JoinOps ops = join_avx512::join_ops("avx512", &kTarget);
  return ops;
}

}  // namespace nq
