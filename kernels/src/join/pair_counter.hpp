// The sliced pair counter: count_disjoint_sliced counts the disjoint pairs of a block of
// 64 W members (sliced, its chunk tables in L1) against runs of visiting members (Range).
//
// Per-ISA: included (through kernels/src/join/join.hpp) by each build's source (join_scalar.cpp,
// join_avx2.cpp, join_avx512.cpp) with NQ_KERNEL_NAMESPACE defined (and NQ_JOIN_AVX2 or
// NQ_JOIN_AVX512 in those builds); its code goes into that namespace, so only headers are
// included here, at file scope.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/src/join/chunk_table.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// Pairs (a in big, b in small) with a & b == 0, by bit slices over `big`, in blocks of 64 W
// members: a block's slices (bits vectors) stay in L1 while every member of the small side
// visits them, one vector AND per chunk of diagonals. The chunk tables are always built: the
// sieve's visits come as chunk offsets, and an unsieved call has at least 32 small-side members
// (count_disjoint tests fewer pair by pair).
// A run of patterns that visits the slices, with their chunk offsets, and the lanes of the
// block it may meet (the first W words of `lanes`; nullptr: every member). The sieve's runs
// come as offsets only (patterns nullptr, in every run of the call).
struct Range {
  const std::uint64_t* patterns;
  const std::uint16_t* offsets;
  std::size_t size;
  const std::uint64_t* lanes = nullptr;
  std::uint64_t keep = ~0ull;  // with patterns and no offsets: their bits that the slices have
};

template <int W>
std::uint64_t count_disjoint_sliced(const std::uint64_t* big, std::size_t nbig, const Range* visit,
                                    std::size_t visits, int bits,
                                    std::vector<std::uint64_t>& storage, bool narrow_visits) {
  using V = Words<W>;
  constexpr std::size_t kMembers = 64 * W;
  const int chunks = chunks_of(bits);
  storage.resize(static_cast<std::size_t>(bits) * W +
                 static_cast<std::size_t>(chunks + 1) * kTableBytes / 8 + 8);
  V* slices = reinterpret_cast<V*>((reinterpret_cast<std::uintptr_t>(storage.data()) + 63) &
                                   ~std::uintptr_t{63});  // 64-byte aligned
  char* table = reinterpret_cast<char*>(slices + bits);
  auto entry = [&](int k, int v) -> V& {
    return *reinterpret_cast<V*>(table + kTableBytes * static_cast<std::size_t>(k) +
                                 kEntryBytes * static_cast<std::size_t>(v));
  };
  V sums = {};
  Words<4> half_sums = {};  // visits of half the block's lanes (W = 8)
  for (std::size_t b0 = 0; b0 < nbig; b0 += kMembers) {
    const std::size_t count = std::min(kMembers, nbig - b0);
    // `member`: the block's lanes that hold a member; slice j: the members that leave diagonal
    // j free (every member, less those that occupy it).
    V member;
    for (int w = 0; w < W; ++w) {
      const std::size_t lo = static_cast<std::size_t>(w) * 64;
      const std::size_t in = count > lo ? std::min<std::size_t>(64, count - lo) : 0;
      member[w] = in == 64 ? ~0ull : (1ull << in) - 1;
    }
    // Transpose each 64 members' patterns (64 x 64 bits): row j then lists the members that
    // occupy diagonal j, about 6 operations a member against one per occupied diagonal.
    alignas(64) std::uint64_t rows[W][64];
    for (int w = 0; w < W; ++w) {
      const std::size_t lo = static_cast<std::size_t>(w) * 64;
      // 64 members in place, or the last few and zeros (copied into the matrix's own words)
      const std::uint64_t* in = rows[w];
      if (lo + 64 <= count)
        in = big + b0 + lo;
      else
        for (std::size_t t = 0; t < 64; ++t) rows[w][t] = lo + t < count ? big[b0 + lo + t] : 0;
      transpose64(in, rows[w]);
    }
    // Slice j's word w is row j of matrix w, less the lanes without a member. In the AVX-512
    // build with W = 8, eight slices at a time: an 8 x 8 transpose of rows 8c..8c+7 of the eight
    // matrices (the word-by-word copy took about as long as the bit transposes themselves).
#ifdef NQ_JOIN_AVX512
    if constexpr (W == 8) {
      for (int c = 0; 8 * c < bits; ++c) {
        __m512i t[8];
        for (int w = 0; w < 8; ++w) t[w] = _mm512_load_si512(rows[w] + 8 * c);
        transpose_lanes(t);
        for (int i = 0; i < 8 && 8 * c + i < bits; ++i)
          slices[8 * c + i] = member & ~reinterpret_cast<V>(t[i]);
      }
    } else
#endif
      for (int w = 0; w < W; ++w)
        for (int j = 0; j < bits; ++j) slices[j][w] = member[w] & ~rows[w][j];
    // (Through a reference: a vector return value would change the ABI in the baseline build.)
    auto lanes_of = [&](const Range& r, V& lanes) -> const V& {
      lanes = member;
      if (r.lanes != nullptr)
        for (int w = 0; w < W; ++w) lanes[w] &= r.lanes[w];
      return lanes;
    };
    V lanes;
    for (int k = 0; k < chunks; ++k) {
      for (int w = 0; w < W; ++w) entry(k, 0)[w] = ~0ull;
      // Doubling: the entries with diagonal t as their highest are those below, ANDed with
      // slice t (a load, an AND and a store each), rather than each from the entry without
      // its lowest bit (timed: perf/results/log.md).
      for (int t = 0, width = chunk_width(bits, chunks, k); t < width; ++t) {
        const V slice = slices[kChunkBits * k + t];
        for (int v = 0, half = 1 << t; v < half; ++v) entry(k, half + v) = entry(k, v) & slice;
      }
    }
    for (std::size_t r = 0; r < visits; ++r) {
      const V& meet = lanes_of(visit[r], lanes);
      if (visit[r].offsets == nullptr) {
        match_patterns<W>(table, chunks, visit[r].patterns, visit[r].keep, visit[r].size, meet,
                          sums);
        continue;
      }
      if constexpr (W == 8) {
        // A visit whose lanes all lie in one half of the block reads only that half of each
        // table entry: 256-bit loads, one operation each on Zen 4, which splits a 512-bit one
        // in two, and the loop is bound by its loads. Where loads are 512 bits wide (Zen 5,
        // Intel) the test is only a branch that goes either way. So the AVX-512 build does it
        // only where the CPU splits its wide loads (cpu_splits_wide_loads; timed on both:
        // perf/results/log.md); the AVX2 and baseline builds always (their vectors are 256 and
        // 128 bits, so half an entry is half the operations).
        if (narrow_visits) {
          const std::uint64_t low = meet[0] | meet[1] | meet[2] | meet[3];
          const std::uint64_t high = meet[4] | meet[5] | meet[6] | meet[7];
          if (low == 0 || high == 0) {
            const int h = low == 0 ? 4 : 0;
            const Words<4> part = {meet[h], meet[h + 1], meet[h + 2], meet[h + 3]};
            match_chunks<4>(table + 8 * h, chunks, visit[r].offsets, visit[r].size, part,
                            half_sums);
            continue;
          }
        }
      }
      match_chunks<W>(table, chunks, visit[r].offsets, visit[r].size, meet, sums);
    }
  }
  std::uint64_t total = 0;
  for (int w = 0; w < W; ++w) total += sums[w];
  for (int w = 0; w < 4; ++w) total += half_sums[w];
  return total;
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
