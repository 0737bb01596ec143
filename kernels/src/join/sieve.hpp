// The sieve's parts: its scratch (SieveScratch), the counting sort of patterns by their cut
// diagonals (sieve_sort), occupancy counts, and the choice of cuts on sampled pairs
// (cuts_by_pairs).
//
// Per-ISA: included (through kernels/src/join/join.hpp) by each build's source (join_scalar.cpp,
// join_avx2.cpp, join_avx512.cpp) with NQ_KERNEL_NAMESPACE defined (and NQ_JOIN_AVX2 or
// NQ_JOIN_AVX512 in those builds); its code goes into that namespace, so only headers are
// included here, at file scope.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/src/join/pair_counter.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// Scratch for the sieve (count_disjoint.hpp).
struct SieveScratch {
  std::vector<std::uint64_t> a, slices;  // a: the sliced side, packed and sorted
  std::vector<std::uint16_t> offsets;    // the visiting side's chunk offsets
  std::vector<std::uint32_t> a_start, b_start;
  std::vector<std::uint32_t> counts;  // sieve_sort's histograms and cursors
  std::vector<Range> visit;
  std::vector<std::uint64_t> lanes;       // the visits' lanes, 8 words each
  std::vector<std::uint64_t> pairs;       // cuts_by_pairs' bit sets of sampled pairs
  std::vector<std::uint32_t> part_start;  // the groups' starts among the members one vl meets
  // The group (key) that has each layout key (the cut diagonals' bits in the order the blocks
  // want).
  std::vector<std::uint32_t> group_at;
  // Whether a visit of half a block reads half-entries (count_disjoint_sliced).
#ifdef NQ_JOIN_AVX512
  bool narrow_visits = cpu_splits_wide_loads();
#else
  bool narrow_visits = true;
#endif
  // The calling thread's watch (kernels.hpp), polled between blocks of sliced members too, so
  // that a stop is seen within a chunk pair (seconds of work at n = 28); `stopped` once it said
  // stop: the call's count is then partial, and its caller drops it.
  Watch watch;
  bool stopped = false;
};

// Word w of the 512-bit mask with bits [from, to) set (w within them).
inline std::uint64_t lane_word(std::size_t from, std::size_t to, std::size_t w) {
  const std::size_t a = std::max(from, w * 64) - w * 64, b = std::min(to, w * 64 + 64) - w * 64;
  return (b == 64 ? ~0ull : (1ull << b) - 1) & ~((1ull << a) - 1);
}

// The most diagonals the sieve (count_disjoint.hpp) cuts (2^kMaxCuts groups a side): 12 up to
// n = 22; 17 for the chunk pairs of n = 25..28 (kJoinChunk, join_limits.hpp). The group arrays
// of the scratch and of the memory estimate follow it (kJoinMaxCuts, join_limits.hpp).
inline constexpr int kMaxCuts = kJoinMaxCuts;

// Counting-sorts patterns by their bits under `cut` (2^c groups): place(x, at) stores the
// pattern's bits under `keep` (x, packed to the bottom) at position `at` of the sorted order.
// The groups come in the order of their keys, or of `order` (order[i]: the i-th group), and
// start[i] is where the i-th begins.
// The histogram is four interleaved ones, so that runs of one key do not wait on each other's
// increments. Each key is extracted twice (a PEXT each time), which costs less than keeping it
// from the first pass to the second, a store and a load a pattern (perf/results/log.md).
template <class Place>
void sieve_sort(const std::uint64_t* p, std::size_t n, std::uint64_t cut, std::uint64_t keep, int c,
                std::vector<std::uint32_t>& start, std::vector<std::uint32_t>& counts, Place place,
                const std::uint32_t* order = nullptr) {
  static_assert(kMaxCuts <= 20);  // 8 x 2^c counters: 32 MiB at 20
  const std::uint32_t groups = 1u << c;
  // Four histograms, then four cursors, of `groups` entries each (in the scratch: 2^12 groups
  // would take 128 KB of stack). Only the histograms start at zero; the cursors are set below.
  counts.resize(8 * std::size_t{groups});
  std::fill(counts.begin(), counts.begin() + 4 * std::ptrdiff_t{groups}, 0u);
  std::uint32_t* count[4];
  std::uint32_t* cursor[4];
  for (std::size_t k = 0; k < 4; ++k) {
    count[k] = counts.data() + k * groups;
    cursor[k] = counts.data() + (4 + k) * groups;
  }
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (std::size_t k = 0; k < 4; ++k) ++count[k][extract_bits(p[i + k], cut)];
  for (; i < n; ++i) ++count[0][extract_bits(p[i], cut)];
  // The scatter keeps the four streams too: stream k (the items i = k mod 4) fills its own part
  // of each group, after the parts of the streams before it. With one cursor per group, items
  // of one key in a row (the common case: patterns come in enumeration order) each waited for
  // the previous one's cursor store (a store-to-load forwarding chain).
  start.resize(groups + 1);
  start[0] = 0;
  for (std::uint32_t pos = 0; pos < groups; ++pos) {
    const std::uint32_t g = order != nullptr ? order[pos] : pos;
    std::uint32_t at = start[pos];
    for (std::size_t k = 0; k < 4; ++k) {
      cursor[k][g] = at;
      at += count[k][g];
    }
    start[pos + 1] = at;
  }
  // The tail items (past the last multiple of four) were counted in stream 0. Its part of each
  // group comes first, so stream 0 alone can also place every item of the group in a row.
  //   From 2^10 groups it does (one cursor a group): the four streams' parts of the groups are then
  // small, and their 4 x 2^c places being written at once (a cache line each) more than the caches
  // hold beside the output (the threshold timed: perf/results/log.md).
  const std::size_t body = c >= 10 ? 0 : n & ~std::size_t{3};
  for (i = 0; i < body; i += 4)
    for (std::size_t k = 0; k < 4; ++k)
      place(extract_bits(p[i + k], keep), cursor[k][extract_bits(p[i + k], cut)]++);
  for (; i < n; ++i) place(extract_bits(p[i], keep), cursor[0][extract_bits(p[i], cut)]++);
}

// occ[j] += how many of p[0], p[step], p[2 step], ... (below n) have bit j. The AVX-512 build
// counts all 64 bits at once in byte counters (a pattern's bits as a byte mask, subtracted),
// emptied every 255 patterns: 3 operations a pattern, against one increment per bit (about a
// dozen, a store-forwarding chain) in the loop.
inline void add_occupancy(const std::uint64_t* p, std::size_t n, std::size_t step,
                          std::uint64_t* occ) {
#ifdef NQ_JOIN_AVX512
  __m512i counters = _mm512_setzero_si512();
  int held = 0;
  auto empty = [&] {
    alignas(64) std::uint8_t bytes[64];
    _mm512_store_si512(bytes, counters);
    for (int j = 0; j < 64; ++j) occ[j] += bytes[j];
    counters = _mm512_setzero_si512();
    held = 0;
  };
  for (std::size_t i = 0; i < n; i += step) {
    counters = _mm512_sub_epi8(counters, _mm512_movm_epi8(p[i]));
    if (++held == 255) empty();
  }
  empty();
#else
  for (std::size_t i = 0; i < n; i += step)
    for (std::uint64_t x = p[i]; x; x &= x - 1) ++occ[std::countr_zero(x)];
#endif
}

// The sieve chooses its cuts by cuts_by_pairs from this many pairs (na nb): on smaller calls
// the choice costs more than it saves (perf/results/log.md).
inline constexpr double kCutsByPairsFrom = 3e9;

// The sieve's c cut diagonals (count_disjoint.hpp), chosen on sampled pairs: evenly spaced
// samples of up to 256 members a side, and their pairs. The first cut is the diagonal that the
// most of those pairs both occupy; the pairs it rules out are dropped, and each further cut is
// the diagonal most shared among the pairs left. Chosen by each diagonal's own occupancy, the
// cuts overlap (two diagonals that the same pairs occupy rule out the same pairs twice; the
// pairs each way leaves: perf/results/log.md).
//   The pairs are bit sets: row i holds the sampled b members still paired with a's member i,
// column j those on diagonal j, so a row and a diagonal take one 256-bit AND and popcount.
inline std::uint64_t cuts_by_pairs(const std::uint64_t* a, std::size_t na, const std::uint64_t* b,
                                   std::size_t nb, std::uint64_t shared, int c,
                                   std::vector<std::uint64_t>& scratch) {
  constexpr std::size_t kSample = 256, kWords = kSample / 64;
  using V = Words<kWords>;
  const std::size_t sa = (na + kSample - 1) / kSample, sb = (nb + kSample - 1) / kSample;
  const std::size_t ka = (na + sa - 1) / sa, kb = (nb + sb - 1) / sb;  // at most kSample
  // Scratch: 64 columns, ka rows and 64 counters, each kWords words (V, 32-byte aligned).
  scratch.resize((64 + ka + 64) * kWords + 4);
  V* column = reinterpret_cast<V*>((reinterpret_cast<std::uintptr_t>(scratch.data()) + 31) &
                                   ~std::uintptr_t{31});
  V* row = column + 64;
  V* count = row + ka;
  for (int j = 0; j < 64; ++j) column[j] = V{};
  for (std::size_t k = 0; k < kb; ++k)
    for (std::uint64_t m = b[k * sb] & shared; m != 0; m &= m - 1)
      column[std::countr_zero(m)][k / 64] |= 1ull << (k % 64);
  V every{};  // each row starts with every sampled b member
  for (std::size_t w = 0; w * 64 < kb; ++w) every[w] = lane_word(0, kb, w);
  for (std::size_t i = 0; i < ka; ++i) row[i] = every;
  std::uint64_t cut = 0;
  for (int step = 0; step < c; ++step) {
    const std::uint64_t open = shared & ~cut;
    for (std::uint64_t m = open; m != 0; m &= m - 1) count[std::countr_zero(m)] = V{};
    for (std::size_t i = 0; i < ka; ++i)
      for (std::uint64_t m = a[i * sa] & open; m != 0; m &= m - 1) {
        const int j = std::countr_zero(m);
        add_lane_popcounts<kWords>(count[j], row[i] & column[j]);
      }
    int best = -1;
    std::uint64_t best_count = 0;
    for (std::uint64_t m = open; m != 0; m &= m - 1) {
      const int j = std::countr_zero(m);
      std::uint64_t total = 0;
      for (std::size_t w = 0; w < kWords; ++w) total += count[j][w];
      if (best < 0 || total > best_count) {
        best = j;
        best_count = total;
      }
    }
    cut |= 1ull << best;
    for (std::size_t i = 0; i < ka; ++i)
      if (a[i * sa] >> best & 1) row[i] &= ~column[best];
  }
  return cut;
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
