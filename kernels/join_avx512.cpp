// The join kernel (kernels/join/) compiled for AVX-512: the bit-slice loops become 512-bit ANDs and
// VPOPCNTQ, and its bit transposes to VPERMB and GF2P8AFFINEQB (VBMI and GFNI, checked at run
// time with the rest). Only this file's code is compiled for it (a target region, not a -m
// flag).
#include <immintrin.h>

// The standard headers of kernels/join/, included before the target region: the library's inline
// functions must not be compiled for AVX-512 here, where the linker may pick them for every
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

#include "kernels/isa.hpp"
#include "kernels/isa_targets.hpp"
#include "kernels/kernels.hpp"

#define NQ_ISA avx512_join  // its record in kernels/CMakeLists.txt
#include "kernels/isa_begin.hpp"

#define NQ_KERNEL_NAMESPACE join_avx512
#define NQ_JOIN_AVX512 1
#include "kernels/join/join.hpp"

namespace nq {
namespace {

void count_join_avx512(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = join_avx512::count_join(in[i], &count_one_scalar);
}

void prepare_join_avx512(int n) {
  join_avx512::join_detail::thread_scratch().prepare(n);
}

void set_join_watch_avx512(const JoinWatch& watch) {
  join_avx512::join_detail::thread_scratch().watch = watch;
}

JoinSample sample_join_avx512(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                              double (*clock)()) {
  return join_avx512::sample_join(s, pieces, seed, clock);
}

}  // namespace
}  // namespace nq

#include "kernels/isa_end.hpp"

namespace nq {

const detail::JoinOps& detail::join_ops_avx512() {
  static constexpr IsaTarget kTarget = make_isa_target(NQ_ISA_NAME, NQ_ISA_FEATURES);
  static constexpr JoinOps ops{"avx512",
                               &kTarget,
                               &count_join_avx512,
                               &prepare_join_avx512,
                               &set_join_watch_avx512,
                               &sample_join_avx512};
  return ops;
}

}  // namespace nq
