// Chunk tables: the ANDs of the slices of every subset of kChunkBits diagonals, the chunk
// offsets that index them, and the matches (match_chunks, match_patterns) that AND a visiting
// member's entries into its lanes' sums.
//
// Per-ISA: included (through kernels/src/join/join.hpp) by each build's source (join_scalar.cpp,
// join_avx2.cpp, join_avx512.cpp) with NQ_KERNEL_NAMESPACE defined (and NQ_JOIN_AVX2 or
// NQ_JOIN_AVX512 in those builds); its code goes into that namespace, so only headers are
// included here, at file scope.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernels/src/join/transpose.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// Chunk tables: for each group of kChunkBits diagonals and each subset of them, the AND of their
// slices, so a member of the small side costs a fixed chunks_of(bits) ANDs, without a
// branch per occupied diagonal. 7 bits: the tables of a 512-member block (128 entries of 64
// bytes per chunk, 5 chunks for the 34 diagonals of n = 18) take 40 KB, inside a 48 KB L1; 6 bits
// took more time, and on a 32 KB L1 7-bit chunks fit too (perf/results/log.md).
inline constexpr int kChunkBits = 7;
inline constexpr int kChunkValues = 1 << kChunkBits;
// Table entries are 64 bytes apart for W = 4 too (half of each unused), so that one set of
// offsets serves both widths.
inline constexpr std::size_t kEntryBytes = 64;
inline constexpr std::size_t kTableBytes = kEntryBytes * kChunkValues;

// The last chunk takes 8 diagonals where that saves a chunk (bits = 7 k + 1): its table has 256
// entries, and 4 chunks take the 40 KB of 5. The sieve's cuts often leave 29 diagonals at
// n = 22, where that is a chunk's AND fewer a member (perf/results/log.md).
inline constexpr int kLastChunkBits = kChunkBits + 1;
inline int chunks_of(int bits) {
  return bits > 1 && bits % kChunkBits == 1 ? bits / kChunkBits
                                            : (bits + kChunkBits - 1) / kChunkBits;
}
// The diagonals of chunk k (of `chunks`) when the patterns have `bits` of them.
inline int chunk_width(int bits, int chunks, int k) {
  return k + 1 < chunks ? kChunkBits : bits - kChunkBits * k;
}

// Each pattern's table offsets, once per pattern: out[chunks i + k] is the byte offset of its
// chunk k's entry in table k ((p >> 7k) & 127, times the entry size). Computed in the visit
// loop instead, they took two shifts and an AND per chunk on every block a pattern visits.
//   One pattern's: made in 64-bit words of four offsets and stored with one copy. The bits of
// chunk k, in word k / 4, go to offset k % 4's bits 6 and up (times kEntryBytes); the last chunk
// runs to the pattern's end (8 bits at most, those past it are 0). The AVX-512 and AVX2 builds
// make a word with one PDEP, whose mask offsets_deposit gives.
static_assert(kEntryBytes == 64 && 4 * kChunkBits == 28);
constexpr std::uint64_t chunk_mask(int chunks, int k) {
  return (k + 1 < chunks ? std::uint64_t{kChunkValues} : std::uint64_t{1} << kLastChunkBits) - 1;
}
constexpr std::uint64_t offsets_deposit(int chunks, int w) {
  std::uint64_t mask = 0;
  for (int k = 4 * w; k < std::min(chunks, 4 * w + 4); ++k)
    mask |= chunk_mask(chunks, k) << (16 * (k % 4) + 6);
  return mask;
}
// Chunk k's byte offset in its table for the packed pattern p (the scalar form of the above).
template <int kChunks>
constexpr std::uint64_t chunk_offset(std::uint64_t p, int k) {
  return (p >> (kChunkBits * k) & chunk_mask(kChunks, k)) * kEntryBytes;
}
template <int kChunks>
void pattern_offsets(std::uint64_t p, std::uint16_t* out) {
  std::uint64_t words[(kChunks + 3) / 4] = {};
  for (int w = 0; 4 * w < kChunks; ++w) {
#if defined(NQ_JOIN_AVX512) || defined(NQ_JOIN_AVX2)
    words[w] = _pdep_u64(p >> (4 * kChunkBits * w), offsets_deposit(kChunks, w));
#else
    for (int k = 4 * w; k < std::min(kChunks, 4 * w + 4); ++k)
      words[w] |= chunk_offset<kChunks>(p, k) << (16 * (k % 4));
#endif
  }
  std::memcpy(out, words, 2 * kChunks);
}
// Each pattern's bits under `keep` (all of them: ~0), packed, then its offsets: one pass, where
// the packed patterns would be stored and read again (the pair counter reads only the offsets).
template <int kChunks>
void chunk_offsets_fixed(const std::uint64_t* p, std::size_t n, std::uint64_t keep,
                         std::uint16_t* out) {
  if (keep == ~0ull)
    for (std::size_t i = 0; i < n; ++i, out += kChunks) pattern_offsets<kChunks>(p[i], out);
  else
    for (std::size_t i = 0; i < n; ++i, out += kChunks)
      pattern_offsets<kChunks>(extract_bits(p[i], keep), out);
}
// Calls f(std::integral_constant<int, c>{}) for c = chunks, 1..9 (ceil(62 / kChunkBits): the
// most diagonals a pattern has): a run-time chunk count made a template argument, so that the
// loops over the chunks unroll.
template <class F>
void with_chunks(int chunks, F&& f) {
  [&]<int... C>(std::integer_sequence<int, C...>) {
    (void)((chunks == C + 1 ? (f(std::integral_constant<int, C + 1>{}), true) : false) || ...);
  }
  (std::make_integer_sequence<int, 9>{});
}

// Spare offsets after the last member's: match_chunks reads a member's in whole 64-bit words.
inline constexpr std::size_t kOffsetsSlack = 3;

inline void chunk_offsets(const std::uint64_t* p, std::size_t n, std::uint64_t keep, int chunks,
                          std::uint16_t* out) {
  with_chunks(chunks, [&](auto c) { chunk_offsets_fixed<c()>(p, n, keep, out); });
}

// sums += popcounts of (lanes AND over k of table k's entry at offsets k), for each of the n
// members of the small side (lanes: the block's members that the visit may meet). The chunk count
// is a template argument so the loop unrolls (no per-chunk branch).
template <int W, int kChunks>
void match_chunks_fixed(const char* table, const std::uint16_t* offsets, std::size_t n,
                        const Words<W>& lanes, Words<W>& sums) {
  using V = Words<W>;
  V local = sums;  // in a register: the compiler cannot tell `sums` from the tables
  const V start = lanes;
  // Unrolled by 4: by 2, by 8, or two members a step into two sums did no better
  // (nq_bench_join; perf/results/log.md).
#pragma GCC unroll 4
  for (std::size_t i = 0; i < n; ++i) {
    // A member's offsets in 64-bit words (4 a word), shifted out of registers: one load for
    // four, where one load each made the loads the limit. The offsets
    // have 3 spare entries at the end for the last member's words (kOffsetsSlack).
    std::uint64_t words[(kChunks + 3) / 4];
    std::memcpy(words, offsets + i * kChunks, sizeof words);
    V acc = start;
    for (int k = 0; k < kChunks; ++k)
      acc &= *reinterpret_cast<const V*>(table + kTableBytes * k +
                                         (words[k / 4] >> (16 * (k % 4)) & 0xffff));
    add_lane_popcounts<W>(local, acc);
  }
  sums = local;
}
template <int W>
void match_chunks(const char* table, int chunks, const std::uint16_t* offsets, std::size_t n,
                  const Words<W>& lanes, Words<W>& sums) {
  with_chunks(chunks, [&](auto c) { match_chunks_fixed<W, c()>(table, offsets, n, lanes, sums); });
}
// The same from the members' patterns (their bits under `keep`, packed: ~0 for all of them),
// each chunk's offset made on the way: for a call with one block, where the offsets would be
// made, stored and read once (the unsieved path from 512 sliced members on still makes them:
// up to 1024 or 2048 members did no better; perf/results/log.md).
template <int W, int kChunks, bool kPack>
void match_patterns_fixed(const char* table, const std::uint64_t* patterns, std::uint64_t keep,
                          std::size_t n, const Words<W>& lanes, Words<W>& sums) {
  using V = Words<W>;
  V local = sums;
  const V start = lanes;
#pragma GCC unroll 4
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t p = kPack ? extract_bits(patterns[i], keep) : patterns[i];
    V acc = start;
    for (int k = 0; k < kChunks; ++k)
      acc &= *reinterpret_cast<const V*>(table + kTableBytes * k + chunk_offset<kChunks>(p, k));
    add_lane_popcounts<W>(local, acc);
  }
  sums = local;
}
template <int W>
void match_patterns(const char* table, int chunks, const std::uint64_t* patterns,
                    std::uint64_t keep, std::size_t n, const Words<W>& lanes, Words<W>& sums) {
  with_chunks(chunks, [&](auto c) {
    if (keep == ~0ull)
      match_patterns_fixed<W, c(), false>(table, patterns, keep, n, lanes, sums);
    else
      match_patterns_fixed<W, c(), true>(table, patterns, keep, n, lanes, sums);
  });
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
