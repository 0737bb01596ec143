// The join's memory bounds and its cut of a subproblem into halves: the kernel sizes its
// scratch by them, and the engine's memory estimate and cost model follow them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "kernels/subproblem.hpp"

namespace nq::detail {

// Its memory is bounded whatever the board: a half of a row-split subproblem comes out in chunks
// of at most kJoinChunk placements, paired chunk by chunk, and its bottom part
// (join/settled_half.hpp) holds at most kJoinMaxParts (a larger one gives a row to the top part).
// The general path (subproblems whose rows may take either half) holds at most kJoinMaxLeaves
// placements a half, and hands a subproblem with more to the scalar search. So one thread never
// holds more than kJoinScratchBytes.
inline constexpr std::size_t kJoinMaxLeaves = std::size_t{1} << 20;
// Chunks of 2^23 placements, not 2^20: a chunk pair is then 64 times larger, the pair counter's
// sieve has placements enough for 17 cut diagonals (kJoinMaxCuts, below), where a pair of 2^20
// chunks had 12 and more cuts did not pay, and each chunk is sorted by the sieve 8 times
// less often. From n = 25, where a half is several chunks, that is about half the pair work and
// time (perf/results/log.md); below, halves are smaller than either chunk size.
inline constexpr std::size_t kJoinChunk = std::size_t{1} << 23;
// Where the whole east half fits in one chunk, the west half comes in chunks kJoinWestChunks times
// larger (at n = 26 and 27 most subproblems are one east chunk against several west ones): the
// sieve's work on the sliced side (its sort, the settled low bits' gathers, each block's tables)
// is then done once for twice as many visiting placements. That took about an eighth off the
// estimated core-hours of n = 27 (n = 26 within the estimate's spread), for a scratch bound about
// half again as large; at n = 28 both halves mostly take many chunks, and doubling the west's
// there gained nothing (perf/results/log.md).
inline constexpr std::size_t kJoinWestChunks = 2;
inline constexpr std::size_t kJoinMaxParts = std::size_t{1} << 18;
// A half's top placements are joined with their bottom parts in batches of at most this many.
inline constexpr std::size_t kJoinTopBatch = std::size_t{1} << 15;
// The join's scratch for one thread, in bytes, for halves of up to `leaves` placements and bottom
// parts of up to `parts`: per placement of an east chunk (at most kJoinChunk), the chunk (8
// bytes) and the sieve's copy of the sliced side (8: never larger than the east chunk, or the
// west one where that is smaller); per placement of a west chunk (at most kJoinWestChunks
// kJoinChunk), the chunk (8) and the visiting side's chunk offsets (at most 9 chunks of 2 bytes:
// 18); per placement of the general path (at most kJoinMaxLeaves), its
// leaves (16) and bucket starts (4) for both halves; per part, both halves' bottom parts (16 a
// placement, for up to 1.25 per part: 20) and the sub-parts they are made from (at most a quarter
// as many: their placements, 32, and bucketed copies, 24: 14); per top placement of a batch, both
// halves' two copies (24 each) and keys (4); and 3 MiB for the bucket starts of the bottom
// parts, their sub-parts and the batches (2^16 + 1 of 4 bytes each, four a half), the slice
// tables and the sieve's group arrays for 2^12 groups. The sieve cuts more diagonals only with
// kJoinGroupMembers members a group or more (below): up to chunk / kJoinGroupMembers groups, at
// most 2^kJoinMaxCuts, each with 152 bytes: its starts (three arrays) and layout key (16), visit
// (40), histograms and cursors (32) and lanes (64).
//   The sieve (join/count_disjoint.hpp) cuts at most kJoinMaxCuts diagonals, and one more per
// doubling of the sliced side past 64 members a group; in a call of 1e12 pairs or more (the chunk
// pairs of n = 25..28) past kJoinGroupMembers. The visits those cuts save there cost more in
// gathers and group arrays beyond 17 cuts, or below 16 members a group (perf/results/log.md).
inline constexpr int kJoinMaxCuts = 17;
inline constexpr std::size_t kJoinGroupMembers = 16;
constexpr std::size_t join_scratch_bytes(std::size_t leaves, std::size_t parts) {
  const std::size_t chunk = leaves < kJoinChunk ? leaves : kJoinChunk;
  const std::size_t most_west = kJoinWestChunks * kJoinChunk;
  const std::size_t west = leaves < most_west ? leaves : most_west;
  const std::size_t general = leaves < kJoinMaxLeaves ? leaves : kJoinMaxLeaves;
  const std::size_t most = std::size_t{1} << kJoinMaxCuts;
  const std::size_t groups = chunk / kJoinGroupMembers < most ? chunk / kJoinGroupMembers : most;
  return chunk * (8 + 8) + west * (8 + 18) + general * 2 * (16 + 4) + parts * 2 * (20 + 14) +
         kJoinTopBatch * 2 * (24 + 24 + 4) + (std::size_t{3} << 20) +
         (groups > (std::size_t{1} << 12) ? (groups - (std::size_t{1} << 12)) * 152 : 0);
}
inline constexpr std::size_t kJoinScratchBytes =
    join_scratch_bytes(kJoinWestChunks * kJoinChunk, kJoinMaxParts);
// The largest half-board (placements) and the largest bottom part of one (join/settled_half.hpp)
// over a row-split plan of n = 16..20, kLeaves and kParts below (maxima over every subproblem,
// `nqcount --n N --threads 1`; at odd n the east half, which holds the middle column, is the
// larger). Outside 16..20 they are extrapolated from the nearest measured size at 2.45x per n. The
// memory estimate bounds the scratch by `margin` 4 (engine/count/src/memory.cpp); the kernel
// reserves them as they are, once per thread (join/scratch.hpp).
struct JoinScratchSizes {
  std::size_t leaves = 0, parts = 0;
};
inline JoinScratchSizes join_scratch_sizes(int n, double margin = 1.0) {
  constexpr double kLeaves[] = {2956, 14270, 17506, 87052, 114142};
  constexpr double kParts[] = {2414, 14188, 15738, 41116, 44600};
  const int at = std::clamp(n, 16, 20);
  const double scale = margin * std::pow(2.45, n - at);
  auto sized = [&](double measured, std::size_t cap) {
    return static_cast<std::size_t>(
        std::min(static_cast<double>(cap), std::ceil(measured * scale)));
  };
  return {sized(kLeaves[at - 16], kJoinWestChunks * kJoinChunk),
          sized(kParts[at - 16], kJoinMaxParts)};
}
// The join's cut of a subproblem into halves: its lowest rows/2 free columns are the west half,
// the other free columns the east one. The cost estimate (engine/count/src/cost.cpp) follows the
// same cut.
inline Mask join_west_columns(const Subproblem& s) {
  Mask west = 0, rest = s.full & ~s.cols;
  for (int k = 0; k < s.rows / 2; ++k) {
    const Mask bit = rest & (0u - rest);
    west |= bit;
    rest ^= bit;
  }
  return west;
}
// Whether this CPU executes a 512-bit load as two 256-bit ones (AMD Zen 4: family 0x19 with
// AVX-512). There the AVX-512 join's pair counter reads half of each table entry when a visit's
// lanes all lie in one half of a block (kernels/src/join/pair_counter.hpp, count_disjoint_sliced);
// on CPUs whose loads are 512 bits wide (Zen 5, Intel) it reads whole entries, which took less time
// or the same there (perf/results/log.md). Zen 5's mobile parts split 512-bit operations too; none
// was measured, so they read whole entries.
bool cpu_splits_wide_loads();

}  // namespace nq::detail
