// The join's board and its small tools: the subproblem's open rows and crossing window (Board),
// a half-board placement (Leaf: its east row set's colex rank and crossing diagonals), the
// binomials behind the colex rank, the crossing bits of a queen, PEXT, and a counting sort.
//
// Per-ISA: included (through kernels/src/join/join.hpp) by each build's source (join_scalar.cpp,
// join_avx2.cpp, join_avx512.cpp) with NQ_KERNEL_NAMESPACE defined (and NQ_JOIN_AVX2 or
// NQ_JOIN_AVX512 in those builds); its code goes into that namespace, so only headers are
// included here, at file scope.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "kernels/src/join_limits.hpp"
#include "kernels/subproblem.hpp"

// The join's bounds and CPU traits (join_limits.hpp), by the names its code uses.
namespace nq::NQ_KERNEL_NAMESPACE {
using detail::cpu_splits_wide_loads;
using detail::join_scratch_bytes;
using detail::join_scratch_sizes;
using detail::join_west_columns;
using detail::JoinScratchSizes;
using detail::kJoinChunk;
using detail::kJoinGroupMembers;
using detail::kJoinMaxCuts;
using detail::kJoinMaxLeaves;
using detail::kJoinMaxParts;
using detail::kJoinTopBatch;
using detail::kJoinWestChunks;
}  // namespace nq::NQ_KERNEL_NAMESPACE

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// What an enumeration returns when a half has more than kJoinMaxLeaves placements: the
// subproblem is then counted by the search instead, so the kernel's memory stays bounded.
inline constexpr std::uint64_t kOverflow = ~std::uint64_t{0};

// C(n, k) for n, k <= 32, for the colex rank of a row set.
struct Binomials {
  std::uint32_t c[kMaxN + 1][kMaxN + 1] = {};
  constexpr Binomials() {
    for (int n = 0; n <= kMaxN; ++n) {
      c[n][0] = 1;
      for (int k = 1; k <= n; ++k) c[n][k] = c[n - 1][k - 1] + (k <= n - 1 ? c[n - 1][k] : 0);
    }
  }
};
inline constexpr Binomials kBinomials{};

// The colex rank of a k-subset of {0..31}: sum over its j-th smallest element e of C(e, j+1).
inline std::uint32_t colex_rank(std::uint32_t set) {
  std::uint32_t rank = 0;
  for (int j = 1; set; ++j) {
    const int e = std::countr_zero(set);
    set &= set - 1;
    rank += kBinomials.c[e][j];
  }
  return rank;
}

// One half-board placement: the colex rank of the east row set it stands for, and which of the
// 2L crossing diagonals it occupies.
struct Leaf {
  std::uint64_t pattern;
  std::uint32_t rank;
};

// What both halves share: the subproblem's per-row free squares and the crossing window.
struct Board {
  int rows = 0;
  std::uint32_t all_rows = 0;
  Mask allowed[kMaxN] = {};  // per row: free squares, before any queen of the open rows
  int first_east = 0;        // m: the lowest east column
  int last_west = 0;         // m': the highest west column
  int window = 0;            // L
  // The rows whose half is not settled by the subproblem itself (squares in both halves):
  // only they vary between leaves, so buckets are ranked on them alone. A row set E is ranked
  // by the colex rank of E's open rows, numbered among the open rows.
  std::uint32_t open_rows = 0;
};

// The crossing diagonals of square (row, c) as pattern bits: its anti-diagonal row + c - m
// (bit 0..L-1) and its main diagonal row - c + m' (bit L..2L-1), where they cross the cut.
inline std::uint64_t crossing_bits(const Board& b, int row, int c) {
  std::uint64_t p = 0;
  const int anti = row + c - b.first_east, main = row - c + b.last_west;
  if (static_cast<unsigned>(anti) < static_cast<unsigned>(b.window)) p |= 1ull << anti;
  if (static_cast<unsigned>(main) < static_cast<unsigned>(b.window)) p |= 1ull << (b.window + main);
  return p;
}

// The bits of x at the positions of mask, packed to the bottom (BMI2's PEXT in the AVX-512 and
// AVX2 builds, a loop in the baseline one).
inline std::uint64_t extract_bits(std::uint64_t x, std::uint64_t mask) {
#if defined(NQ_JOIN_AVX512) || defined(NQ_JOIN_AVX2)
  return _pext_u64(x, mask);
#else
  std::uint64_t packed = 0;
  for (std::uint64_t out = 1; mask; mask &= mask - 1, out <<= 1)
    if (x & mask & (0 - mask)) packed |= out;
  return packed;
#endif
}

// A counting sort of n items into `buckets` by key(i): start[k] is where bucket k begins
// (start has buckets + 1 entries), and place(i, at) puts item i at position `at`.
template <class Key, class Place>
void counting_sort(std::size_t n, std::uint32_t buckets, std::vector<std::uint32_t>& start, Key key,
                   Place place) {
  start.assign(buckets + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++start[key(i) + 1];
  for (std::uint32_t k = 0; k < buckets; ++k) start[k + 1] += start[k];
  // Fill with a moving cursor per bucket, then restore the starts.
  for (std::size_t i = 0; i < n; ++i) place(i, start[key(i)]++);
  for (std::uint32_t k = buckets; k > 0; --k) start[k] = start[k - 1];
  start[0] = 0;
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
