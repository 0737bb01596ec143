// The AVX2 lane kernel: 8 lanes of 32 bits (n <= 16) or 4 lanes of 64 bits. Lane decisions are
// all-ones/all-zeros vectors and blends; AVX2 has gathers but no scatter, so the push writes
// each lane's slot with a scalar store (see `scatter`).
// Only this file's own code is compiled for AVX2 (a target region, not a -m flag).
#include <immintrin.h>

#include <cstdint>
#include <span>

#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "kernels/src/isa_targets.hpp"

#define NQ_ISA avx2  // its record in kernels/CMakeLists.txt
#include "kernels/src/isa_begin.hpp"

namespace nq::avx2 {

// Operations shared by both lane widths.
struct Lanes256 {
  using Reg = __m256i;
  using Mask = __m256i;  // all ones in a selected lane
  static Reg load(const void* p) { return _mm256_load_si256(static_cast<const __m256i*>(p)); }
  static void store(void* p, Reg v) { _mm256_store_si256(static_cast<__m256i*>(p), v); }
  static Reg or_(Reg a, Reg b) { return _mm256_or_si256(a, b); }
  static Reg xor_(Reg a, Reg b) { return _mm256_xor_si256(a, b); }
  static Reg andnot(Reg a, Reg b) { return _mm256_andnot_si256(a, b); }  // ~a & b
  static Mask mand(Mask a, Mask b) { return _mm256_and_si256(a, b); }
  static Mask mandnot(Mask a, Mask b) { return _mm256_andnot_si256(a, b); }
  static bool any(Mask m) { return !_mm256_testz_si256(m, m); }
  static Reg select(Mask m, Reg a, Reg b) { return _mm256_blendv_epi8(b, a, m); }
  // Bytewise popcount by nibble table lookup (Mula's method).
  static Reg byte_popcount(Reg a) {
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1,
                                           2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f);
    const __m256i lo = _mm256_shuffle_epi8(table, _mm256_and_si256(a, low));
    const __m256i hi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(a, 4), low));
    return _mm256_add_epi8(lo, hi);
  }
};

struct Lanes8x32 : Lanes256 {
  using T = std::uint32_t;
  static constexpr int kLanes = 8, kBits = 32;
  static Reg set1(T x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  static Reg add(Reg a, Reg b) { return _mm256_add_epi32(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm256_sub_epi32(a, b); }
  static Reg lowest(Reg a) {
    return _mm256_and_si256(a, _mm256_sub_epi32(_mm256_setzero_si256(), a));
  }
  static Reg shl1(Reg a) { return _mm256_slli_epi32(a, 1); }
  static Reg shr1(Reg a) { return _mm256_srli_epi32(a, 1); }
  template <int k>
  static Reg shl(Reg a) {
    return _mm256_slli_epi32(a, k);
  }
  template <int k>
  static Reg shr(Reg a) {
    return _mm256_srli_epi32(a, k);
  }
  static Reg popcount(Reg a) {  // sum the four byte counts of each 32-bit lane
    const __m256i bytes = _mm256_maddubs_epi16(byte_popcount(a), _mm256_set1_epi8(1));
    return _mm256_madd_epi16(bytes, _mm256_set1_epi16(1));
  }
  static Mask eq(Reg a, Reg b) { return _mm256_cmpeq_epi32(a, b); }
  static Mask ne(Reg a, Reg b) { return _mm256_xor_si256(eq(a, b), _mm256_set1_epi32(-1)); }
  static Mask nonzero(Reg a) { return ne(a, _mm256_setzero_si256()); }
  static Reg mask_add(Reg acc, Mask m, Reg x) { return add(acc, _mm256_and_si256(m, x)); }
  static Reg gather(const T* base, Reg idx) {
    return _mm256_i32gather_epi32(reinterpret_cast<const int*>(base), idx, 4);
  }
  // No scatter in AVX2: every lane stores its word with a scalar store, masked or not (the
  // search allows writes outside the mask, see lanes.hpp).
  static void scatter(T* base, Reg idx, Reg v, Mask) {
    alignas(32) T at[kLanes], word[kLanes];
    store(at, idx);
    store(word, v);
    for (int k = 0; k < kLanes; ++k) base[at[k]] = word[k];
  }
};

struct Lanes4x64 : Lanes256 {
  using T = std::uint64_t;
  static constexpr int kLanes = 4, kBits = 64;
  static Reg set1(T x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static Reg add(Reg a, Reg b) { return _mm256_add_epi64(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm256_sub_epi64(a, b); }
  static Reg lowest(Reg a) {
    return _mm256_and_si256(a, _mm256_sub_epi64(_mm256_setzero_si256(), a));
  }
  static Reg shl1(Reg a) { return _mm256_slli_epi64(a, 1); }
  static Reg shr1(Reg a) { return _mm256_srli_epi64(a, 1); }
  template <int k>
  static Reg shl(Reg a) {
    return _mm256_slli_epi64(a, k);
  }
  template <int k>
  static Reg shr(Reg a) {
    return _mm256_srli_epi64(a, k);
  }
  static Reg popcount(Reg a) { return _mm256_sad_epu8(byte_popcount(a), _mm256_setzero_si256()); }
  static Mask eq(Reg a, Reg b) { return _mm256_cmpeq_epi64(a, b); }
  static Mask ne(Reg a, Reg b) { return _mm256_xor_si256(eq(a, b), _mm256_set1_epi64x(-1)); }
  static Mask nonzero(Reg a) { return ne(a, _mm256_setzero_si256()); }
  static Reg mask_add(Reg acc, Mask m, Reg x) { return add(acc, _mm256_and_si256(m, x)); }
  static Reg gather(const T* base, Reg idx) {
    return _mm256_i64gather_epi64(reinterpret_cast<const long long*>(base), idx, 8);
  }
  static void scatter(T* base, Reg idx, Reg v, Mask) {
    alignas(32) T at[kLanes], word[kLanes];
    store(at, idx);
    store(word, v);
    for (int k = 0; k < kLanes; ++k) base[at[k]] = word[k];
  }
};

}  // namespace nq::avx2

#define NQ_KERNEL_NAMESPACE avx2
#include "kernels/src/lanes.hpp"
#undef NQ_KERNEL_NAMESPACE

namespace nq::avx2 {
// Independent lane groups stepped in turn, so that one group's gather latency hides behind
// the other's work (docs/count.md, "Backtracking kernels"). -DNQ_LANE_GROUPS=k to retune.
#ifdef NQ_LANE_GROUPS
constexpr int kLaneGroups = NQ_LANE_GROUPS;
#else
constexpr int kLaneGroups = 2;
#endif
void count_raw(const Subproblem* in, Tally* out, std::size_t size) {
  count_batch<Lanes8x32, Lanes4x64, kLaneGroups>(in, out, size);
}
}  // namespace nq::avx2

#include "kernels/src/isa_end.hpp"

namespace nq {

namespace avx2 {
// The lane search over a batch, outside the target region (std::span's members stay baseline).
void count_lanes(std::span<const Subproblem> in, std::span<Tally> out) {
  count_raw(in.data(), out.data(), in.size());
}
}  // namespace avx2

const detail::SearchOps& detail::avx2_search() {
  static constexpr IsaTarget kTarget = make_isa_target(NQ_ISA_NAME, NQ_ISA_FEATURES);
  static constexpr SearchOps ops{"avx2", &kTarget, &avx2::count_lanes};
  return ops;
}

}  // namespace nq
