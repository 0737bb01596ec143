// The unsettled half: enumerate_half walks one half's columns over every open row at once (each
// row takes a queen of this half or leaves it to the other) and appends a Leaf per placement,
// to be bucketed by its row set.
//
// Per-ISA: included (through kernels/src/join/join.hpp) by each build's source (join_scalar.cpp,
// join_avx2.cpp, join_avx512.cpp) with NQ_KERNEL_NAMESPACE defined (and NQ_JOIN_AVX2 or
// NQ_JOIN_AVX512 in those builds); its code goes into that namespace, so only headers are
// included here, at file scope.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "kernels/src/join/board.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// Enumerates the placements of one half (columns `half`, one queen each) over the open rows,
// appending a Leaf per complete one. `east` says which side's row set is ranked directly (the
// west ranks the complement of its rows). Returns the queens placed (the kernel's nodes).
inline std::uint64_t enumerate_half(const Board& b, Mask half, bool east, std::vector<Leaf>& out) {
  const int need = std::popcount(half);
  const int rows = b.rows;
  // A row may be left to the other half only if the other half has a square in it, and the
  // rows below must still be able to take this half's remaining queens: capacity[i] counts
  // the rows from i down that have a square in this half.
  bool may_skip[kMaxN];
  int capacity[kMaxN + 1];
  capacity[rows] = 0;
  for (int i = rows - 1; i >= 0; --i) {
    may_skip[i] = (b.allowed[i] & ~half) != 0;
    capacity[i] = capacity[i + 1] + ((b.allowed[i] & half) != 0);
  }
  struct Frame {
    Mask cols, ld, rd, avail;
    std::uint32_t row_set;
    std::uint64_t pattern;
    int placed;
    bool skip_tried;
  };
  Frame stack[kMaxN + 1];
  std::uint64_t nodes = 0;
  int d = 0;
  if (capacity[0] < need) return 0;
  stack[0] = {0, 0, 0, b.allowed[0] & half, 0, 0, 0, false};
  auto enter = [&](Frame& n, int row) {
    n.skip_tried = false;
    n.avail = n.placed < need && row < rows ? b.allowed[row] & half & ~(n.cols | n.ld | n.rd) : 0;
  };
  for (;;) {
    Frame& f = stack[d];
    if (d == rows) {
      if (out.size() >= kJoinMaxLeaves) return kOverflow;
      const std::uint32_t east_rows = east ? f.row_set : (b.all_rows & ~f.row_set);
      // Only ever called with open rows (count_join handles the settled case itself).
      out.push_back({f.pattern,
                     colex_rank(static_cast<std::uint32_t>(extract_bits(east_rows, b.open_rows)))});
      --d;
      continue;
    }
    if (f.avail) {
      const Mask bit = f.avail & (0u - f.avail);
      f.avail ^= bit;
      ++nodes;
      // Enough rows left below for the queens still to place?
      if (need - f.placed - 1 > capacity[d + 1]) continue;
      const int c = std::countr_zero(bit);
      const std::uint64_t p = f.pattern | crossing_bits(b, d, c);
      Frame& n = stack[d + 1];
      n.cols = f.cols | bit;
      n.ld = (f.ld | bit) << 1;
      n.rd = (f.rd | bit) >> 1;
      n.row_set = f.row_set | (1u << d);
      n.pattern = p;
      n.placed = f.placed + 1;
      enter(n, d + 1);
      ++d;
      continue;
    }
    if (!f.skip_tried && may_skip[d] && need - f.placed <= capacity[d + 1]) {
      // Leave this row to the other half.
      f.skip_tried = true;
      Frame& n = stack[d + 1];
      n.cols = f.cols;
      n.ld = f.ld << 1;
      n.rd = f.rd >> 1;
      n.row_set = f.row_set;
      n.pattern = f.pattern;
      n.placed = f.placed;
      enter(n, d + 1);
      ++d;
      continue;
    }
    if (d == 0) break;
    --d;
  }
  return nodes;
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
