// Per-thread scratch: both halves' leaves and walks, the sieve's scratch (with the thread's watch),
// and limits (Scratch), reserved and faulted in once per board size; thread_scratch for the count,
// check_scratch for the cross-check.
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

#include "base/prefault.hpp"
#include "kernels/src/join/count_disjoint.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// Per-thread scratch: leaves of both halves and their bucketed patterns, reused across calls.
//
// The settled path's buffers are reserved once per thread at the sizes a row-split plan of
// this n reaches (join_scratch_sizes) and faulted in with one call (prefault.hpp), instead of
// growing by doubling page fault by page fault. Under a hypervisor a fresh page is slow and the
// faults of two threads need not overlap: grown on demand, the buffers make the subproblems that
// first meet a larger half take many times their time, serialised between the threads
// (perf/results/log.md).
struct Scratch {
  std::vector<Leaf> east, west;
  std::vector<std::uint64_t> east_sorted, west_sorted;  // the settled path's chunks
  SieveScratch sieve;
  std::vector<std::uint32_t> east_start, west_start;
  HalfScratch east_half, west_half;
  SettledHalf east_walk, west_walk;
  std::vector<SettledHalf::Walk> east_starts, west_starts;  // sampling's chunk starts
  // Placements per chunk of a settled half, and the largest bottom part: kJoinChunk and
  // kJoinMaxParts, a quarter of them in check_scratch (and smaller in tests, so that small
  // boards take every path).
  std::size_t chunk = kJoinChunk, parts_limit = kJoinMaxParts;
  int prepared_for = 0;  // the board size the buffers were reserved for

  void prepare(int n) {
    if (n <= prepared_for) return;
    prepared_for = n;
    const JoinScratchSizes size = join_scratch_sizes(n);
    const std::size_t buckets = (std::size_t{1} << ((n + 1) / 2)) + 1;
    auto reserve = [](auto& v, std::size_t count) {
      v.reserve(count);
      prefault_for_writing(v.data(), v.capacity() * sizeof(v[0]));
    };
    // SettledHalf::next grows them; the west's chunks may be kJoinWestChunks times larger.
    const std::size_t west_chunk = kJoinWestChunks * chunk;
    reserve(east_sorted, std::min(2 * size.leaves, chunk) + 16);
    reserve(west_sorted, std::min(2 * size.leaves, west_chunk) + 16);
    // count_disjoint_sliced's storage at its widest: 2 kMaxN diagonals, W = 8.
    reserve(sieve.slices, 2 * kMaxN * 8 + (chunks_of(2 * kMaxN) + 1) * kTableBytes / 8 + 8);
    reserve(sieve.offsets,
            std::min(size.leaves, west_chunk) * chunks_of(2 * (n - 1)) + kOffsetsSlack);
    reserve(sieve.a, std::min(size.leaves, chunk));
    // The group arrays for the cuts this n's halves can take (at least kJoinGroupMembers members
    // a group, count_disjoint.hpp): 2^12 groups up to n = 20, 2^17 (kMaxCuts) where a chunk is
    // full.
    const int cuts = std::clamp(
        static_cast<int>(std::bit_width(size.leaves / kJoinGroupMembers)) - 1, 12, kMaxCuts);
    reserve(sieve.lanes, std::size_t{8} << cuts);
    reserve(sieve.part_start, (std::size_t{1} << cuts) + 1);
    reserve(sieve.a_start, (std::size_t{1} << cuts) + 1);
    reserve(sieve.b_start, (std::size_t{1} << cuts) + 1);
    reserve(sieve.group_at, std::size_t{1} << cuts);
    reserve(sieve.visit, std::size_t{1} << cuts);
    reserve(sieve.counts, std::size_t{8} << cuts);
    for (HalfScratch* hs : {&east_half, &west_half}) {
      reserve(hs->bottom, size.parts / 4 + 1);
      for (std::vector<std::uint64_t>* v : {&hs->sub.meet, &hs->sub.clash, &hs->sub.pattern})
        reserve(*v, size.parts / 4 + 1);
      reserve(hs->sorted.clash, size.parts + size.parts / 4 + 8);
      reserve(hs->sorted.pattern, size.parts + size.parts / 4 + 8);
      reserve(hs->start, buckets);
      reserve(hs->sub.upper_start, buckets);
      reserve(hs->sub.lower_start, buckets);
    }
    // The batches of top placements, at most kJoinTopBatch, reserved at the largest half's
    // placements (a half has far fewer top placements than placements: about 13,000 against
    // 80,000 to 390,000 at n = 22); a batch that needs more grows them.
    const std::size_t tops = std::min(kJoinTopBatch, size.leaves);
    for (SettledHalf* half : {&east_walk, &west_walk}) {
      reserve(half->walked, tops);
      reserve(half->batch, tops);
      reserve(half->batch_key, tops);
      reserve(half->batch_start, buckets);
    }
  }
};

// The calling thread's scratch (count_join, and prepare_join to ready it ahead of time).
inline Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}
// The cross-check's own (kernels/src/isa.hpp, count_join_check): chunks and bottom parts a quarter
// of the count's, so that a large subproblem is cut and paired at other places than in the count it
// checks.
inline Scratch& check_scratch() {
  thread_local Scratch scratch = [] {
    Scratch s;
    s.chunk = kJoinChunk / 4;
    s.parts_limit = kJoinMaxParts / 4;
    return s;
  }();
  return scratch;
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
