// Words of W x 64 lanes (Words<W>), their per-lane popcounts, and the 64 x 64 bit transposes
// that turn patterns into slices (VPERMB and GF2P8AFFINEQB in the AVX-512 build, shifts and
// masks elsewhere, four rows at a time in the AVX2 build).
//
// Per-ISA: included (through kernels/src/join/join.hpp) by each build's source (join_scalar.cpp,
// join_avx2.cpp, join_avx512.cpp) with NQ_KERNEL_NAMESPACE defined (and NQ_JOIN_AVX2 or
// NQ_JOIN_AVX512 in those builds); its code goes into that namespace, so only headers are
// included here, at file scope.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "kernels/src/join/settled_half.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// W words (64 W members) as one vector: a zmm register for W = 8 in the AVX-512 build.
typedef std::uint64_t Words4 __attribute__((vector_size(32)));
typedef std::uint64_t Words8 __attribute__((vector_size(64)));
template <int W>
struct WordsOf;
template <>
struct WordsOf<4> {
  using type = Words4;
};
template <>
struct WordsOf<8> {
  using type = Words8;
};
template <int W>
using Words = typename WordsOf<W>::type;

// Per-lane popcounts. The AVX-512 build (NQ_JOIN_AVX512) has VPOPCNTQ; the AVX2 build
// (NQ_JOIN_AVX2) looks each nibble's count up with VPSHUFB and adds a lane's bytes with VPSADBW,
// 256 bits at a time (a few vector operations for four lanes, where a POPCNT each would first
// move every lane out of the vector); the baseline build counts every lane at once by halves,
// nibbles and bytes (SWAR, two lanes an SSE2 operation), where its target has no POPCNT and
// std::popcount is a call into libgcc a lane.
// sums += per-lane popcounts of v (by reference: vector arguments by value would change the
// ABI in the baseline build).
template <int W>
inline void add_lane_popcounts(Words<W>& sums, const Words<W>& v) {
#ifdef NQ_JOIN_AVX2
  const __m256i nibbles = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1,
                                           2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0f);
  for (int h = 0; h < W; h += 4) {
    __m256i x;
    std::memcpy(&x, reinterpret_cast<const char*>(&v) + 8 * h, sizeof x);
    const __m256i bytes = _mm256_add_epi8(
        _mm256_shuffle_epi8(nibbles, _mm256_and_si256(x, low)),
        _mm256_shuffle_epi8(nibbles, _mm256_and_si256(_mm256_srli_epi16(x, 4), low)));
    const __m256i counts = _mm256_sad_epu8(bytes, _mm256_setzero_si256());
    Words4 c;
    std::memcpy(&c, &counts, sizeof c);
    for (int i = 0; i < 4; ++i) sums[h + i] += c[i];
  }
  return;
#endif
#ifdef NQ_JOIN_AVX512
  if constexpr (W == 8) {
    sums += reinterpret_cast<Words<W>>(_mm512_popcnt_epi64(reinterpret_cast<__m512i>(v)));
    return;
  }
  if constexpr (W == 4) {
    sums += reinterpret_cast<Words<W>>(_mm256_popcnt_epi64(reinterpret_cast<__m256i>(v)));
    return;
  }
#endif
#if !defined(NQ_JOIN_AVX2) && !defined(NQ_JOIN_AVX512)
  Words<W> x = v - ((v >> 1) & 0x5555555555555555);
  x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0f;
  x += x >> 8;
  x += x >> 16;
  x += x >> 32;
  sums += x & 0x7f;
#endif
}

// Transpose of a 64 x 64 bit matrix: bit j of in[i] goes to bit i of out[j] (out may be in).
#ifdef NQ_JOIN_AVX512
// An 8 x 8 transpose of 64-bit lanes across eight registers (lane m of t[c] and lane c of
// t[m] trade places), in three steps: pairs, pairs of pairs, halves.
inline void transpose_lanes(__m512i* t) {
  __m512i s[8], q[8];
  for (int p = 0; p < 8; p += 2) {
    s[p] = _mm512_unpacklo_epi64(t[p], t[p + 1]);
    s[p + 1] = _mm512_unpackhi_epi64(t[p], t[p + 1]);
  }
  const __m512i even = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i odd = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int p : {0, 1, 4, 5}) {
    q[p] = _mm512_permutex2var_epi64(s[p], even, s[p + 2]);
    q[p + 2] = _mm512_permutex2var_epi64(s[p], odd, s[p + 2]);
  }
  for (int p = 0; p < 4; ++p) {
    t[p] = _mm512_shuffle_i64x2(q[p], q[p + 4], 0x44);
    t[p + 4] = _mm512_shuffle_i64x2(q[p], q[p + 4], 0xee);
  }
}
// With GFNI and VBMI, on eight zmm registers (register m, lane l holds in[8m + l]), in 8 x 8
// blocks: VPERMB gathers in each lane the bytes of one column block of the register's eight
// rows, GF2P8AFFINEQB transposes each lane's 8 x 8 bits, the lanes trade places across the
// registers (an 8 x 8 transpose of 64-bit lanes) and VPERMB puts the bytes of each row
// together. About 50 vector operations against about 230 for the block swaps (six steps of
// shifts, masks and shuffles) before it: a 64 x 64 transpose takes about a quarter of their
// time.
//   Byte permutations: `gather` makes lane c's byte 7 - q byte c of lane q (the rows reversed,
// as the affine step wants them); `rows` makes lane i's byte m byte i of lane m.
struct BytePermutations {
  alignas(64) std::uint8_t gather[64] = {}, rows[64] = {};
  constexpr BytePermutations() {
    for (int c = 0; c < 8; ++c)
      for (int q = 0; q < 8; ++q) {
        gather[8 * c + 7 - q] = static_cast<std::uint8_t>(8 * q + c);
        rows[8 * c + q] = static_cast<std::uint8_t>(8 * q + c);
      }
  }
};
inline constexpr BytePermutations kBytePermutations{};
inline void transpose64(const std::uint64_t* in, std::uint64_t* out) {
  const __m512i gather = _mm512_load_si512(kBytePermutations.gather);
  const __m512i rows = _mm512_load_si512(kBytePermutations.rows);
  // GF2P8AFFINEQB(x, A), lane by lane: bit k of the result's byte i is the parity of x's byte i
  // AND A's byte 7 - k. With x's byte i = 1 << i that is bit i of A's byte 7 - k: A's 8 x 8 bits
  // transposed.
  const __m512i unit = _mm512_set1_epi64(0x8040201008040201ll);
  __m512i t[8];
  for (int m = 0; m < 8; ++m)
    t[m] = _mm512_gf2p8affine_epi64_epi8(
        unit, _mm512_permutexvar_epi8(gather, _mm512_loadu_si512(in + 8 * m)), 0);
  // Lane c of t[m] holds byte m of output rows 8c..8c+7: after the lanes' transpose, lane m of
  // t[c].
  transpose_lanes(t);
  for (int c = 0; c < 8; ++c) _mm512_storeu_si512(out + 8 * c, _mm512_permutexvar_epi8(rows, t[c]));
}
#elif defined(NQ_JOIN_AVX2)
// The block swap below on four rows at a time (vector v holds rows 4v..4v+3): rows k and k + j
// for j >= 4 are whole vectors apart; for j = 2 and 1 a vector's rows trade with each other
// (a lane shuffle and a per-lane shift).
inline void transpose64(const std::uint64_t* in, std::uint64_t* out) {
  Words4 r[16];
  std::memcpy(r, in, sizeof r);
  std::uint64_t m = 0x00000000ffffffffull;
  for (int j = 32; j != 2; j >>= 1, m ^= m << j) {
    const int q = j / 4;
    for (int v = 0; v < 16; v = ((v | q) + 1) & ~q) {
      const Words4 t = ((r[v] >> j) ^ r[v | q]) & m;
      r[v] ^= t << j;
      r[v | q] ^= t;
    }
  }
  const Words4 by2 = {2, 2, 0, 0}, by1 = {1, 0, 1, 0};
  for (Words4& x : r) {
    Words4 t = ((x >> 2) ^ __builtin_shufflevector(x, x, 2, 3, 0, 1)) & 0x3333333333333333ull;
    x ^= __builtin_shufflevector(t, t, 0, 1, 0, 1) << by2;
    t = ((x >> 1) ^ __builtin_shufflevector(x, x, 1, 0, 3, 2)) & 0x5555555555555555ull;
    x ^= __builtin_shufflevector(t, t, 0, 0, 2, 2) << by1;
  }
  std::memcpy(out, r, sizeof r);
}
#else
// The recursive block swap of Hacker's Delight, 7-3: at step j, the j x j blocks off the
// diagonal of every 2j x 2j block trade places.
inline void transpose64(const std::uint64_t* in, std::uint64_t* out) {
  if (in != out) std::copy(in, in + 64, out);
  std::uint64_t m = 0x00000000ffffffffull;
  for (int j = 32; j != 0; j >>= 1, m ^= m << j) {
    for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
      const std::uint64_t t = ((out[k] >> j) ^ out[k | j]) & m;
      out[k] ^= t << j;
      out[k | j] ^= t;
    }
  }
}
#endif

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
