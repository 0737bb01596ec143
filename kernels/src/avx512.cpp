// The AVX-512 lane kernel: 16 lanes of 32 bits (n <= 16) or 8 lanes of 64 bits, lane decisions
// in mask registers (masked adds, moves and scatters), native gather/scatter for the stacks.
// Only this file's own code is compiled for AVX-512 (a target region, not a -m flag), so the
// rest of the program stays baseline x86-64 and the dispatcher decides at run time.
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>

#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "kernels/src/isa_targets.hpp"

#define NQ_ISA avx512  // its record in kernels/CMakeLists.txt
#include "kernels/src/isa_begin.hpp"

namespace nq::avx512 {

// Operations shared by both lane widths (Mask: one bit a lane).
template <class MaskT>
struct Lanes512 {
  using Reg = __m512i;
  using Mask = MaskT;
  static Reg load(const void* p) { return _mm512_load_si512(p); }
  static void store(void* p, Reg v) { _mm512_store_si512(p, v); }
  static Reg or_(Reg a, Reg b) { return _mm512_or_si512(a, b); }
  static Reg xor_(Reg a, Reg b) { return _mm512_xor_si512(a, b); }
  static Reg andnot(Reg a, Reg b) { return _mm512_andnot_si512(a, b); }  // ~a & b
  static Mask mand(Mask a, Mask b) { return static_cast<Mask>(a & b); }
  static Mask mandnot(Mask a, Mask b) { return static_cast<Mask>(~a & b); }
  static bool any(Mask m) { return m != 0; }
};

struct Lanes16x32 : Lanes512<__mmask16> {
  using T = std::uint32_t;
  static constexpr int kLanes = 16, kBits = 32;
  static Reg set1(T x) { return _mm512_set1_epi32(static_cast<int>(x)); }
  static Reg add(Reg a, Reg b) { return _mm512_add_epi32(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm512_sub_epi32(a, b); }
  static Reg lowest(Reg a) {  // a & -a
    return _mm512_and_si512(a, _mm512_sub_epi32(_mm512_setzero_si512(), a));
  }
  static Reg shl1(Reg a) { return _mm512_slli_epi32(a, 1); }
  static Reg shr1(Reg a) { return _mm512_srli_epi32(a, 1); }
  template <int k>
  static Reg shl(Reg a) {
    return _mm512_slli_epi32(a, k);
  }
  template <int k>
  static Reg shr(Reg a) {
    return _mm512_srli_epi32(a, k);
  }
  static Reg popcount(Reg a) { return _mm512_popcnt_epi32(a); }
  static Mask nonzero(Reg a) { return _mm512_test_epi32_mask(a, a); }
  static Mask eq(Reg a, Reg b) { return _mm512_cmpeq_epi32_mask(a, b); }
  static Mask ne(Reg a, Reg b) { return _mm512_cmpneq_epi32_mask(a, b); }
  static Reg select(Mask m, Reg a, Reg b) { return _mm512_mask_mov_epi32(b, m, a); }
  static Reg mask_add(Reg acc, Mask m, Reg x) { return _mm512_mask_add_epi32(acc, m, acc, x); }
  static Reg gather(const T* base, Reg idx) { return _mm512_i32gather_epi32(idx, base, 4); }
  static void scatter(T* base, Reg idx, Reg v, Mask m) {
    _mm512_mask_i32scatter_epi32(base, m, idx, v, 4);
  }
};

struct Lanes8x64 : Lanes512<__mmask8> {
  using T = std::uint64_t;
  static constexpr int kLanes = 8, kBits = 64;
  static Reg set1(T x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static Reg add(Reg a, Reg b) { return _mm512_add_epi64(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm512_sub_epi64(a, b); }
  static Reg lowest(Reg a) {
    return _mm512_and_si512(a, _mm512_sub_epi64(_mm512_setzero_si512(), a));
  }
  static Reg shl1(Reg a) { return _mm512_slli_epi64(a, 1); }
  static Reg shr1(Reg a) { return _mm512_srli_epi64(a, 1); }
  template <int k>
  static Reg shl(Reg a) {
    return _mm512_slli_epi64(a, k);
  }
  template <int k>
  static Reg shr(Reg a) {
    return _mm512_srli_epi64(a, k);
  }
  static Reg popcount(Reg a) { return _mm512_popcnt_epi64(a); }
  static Mask nonzero(Reg a) { return _mm512_test_epi64_mask(a, a); }
  static Mask eq(Reg a, Reg b) { return _mm512_cmpeq_epi64_mask(a, b); }
  static Mask ne(Reg a, Reg b) { return _mm512_cmpneq_epi64_mask(a, b); }
  static Reg select(Mask m, Reg a, Reg b) { return _mm512_mask_mov_epi64(b, m, a); }
  static Reg mask_add(Reg acc, Mask m, Reg x) { return _mm512_mask_add_epi64(acc, m, acc, x); }
  static Reg gather(const T* base, Reg idx) { return _mm512_i64gather_epi64(idx, base, 8); }
  static void scatter(T* base, Reg idx, Reg v, Mask m) {
    _mm512_mask_i64scatter_epi64(base, m, idx, v, 8);
  }
};

}  // namespace nq::avx512

#define NQ_KERNEL_NAMESPACE avx512
#include "kernels/src/lanes.hpp"
#undef NQ_KERNEL_NAMESPACE

namespace nq::avx512 {
// Independent lane groups stepped in turn, so that one group's gather latency hides behind
// the other's work (docs/count.md, "Backtracking kernels"). -DNQ_LANE_GROUPS=k to retune.
#ifdef NQ_LANE_GROUPS
constexpr int kLaneGroups = NQ_LANE_GROUPS;
#else
constexpr int kLaneGroups = 1;
#endif
void count_raw(const Subproblem* in, Tally* out, std::size_t size) {
  count_batch<Lanes16x32, Lanes8x64, kLaneGroups>(in, out, size);
}
}  // namespace nq::avx512

#include "kernels/src/isa_end.hpp"

namespace nq {

namespace avx512 {
// The lane search over a batch, outside the target region (std::span's members stay baseline).
void count_lanes(std::span<const Subproblem> in, std::span<Tally> out) {
  count_raw(in.data(), out.data(), in.size());
}
}  // namespace avx512

const detail::SearchOps& detail::avx512_search() {
  static constexpr IsaTarget kTarget = make_isa_target(NQ_ISA_NAME, NQ_ISA_FEATURES);
  static constexpr SearchOps ops{"avx512", &kTarget, &avx512::count_lanes};
  return ops;
}

}  // namespace nq
