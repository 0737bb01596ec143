// The generic scalar search, written once. Each ISA's source file includes it inside its own
// namespace and target region (see STYLE.md, the simdjson pattern).
#pragma once

#include <bit>

#include "subproblem.hpp"

namespace nq::NQ_KERNEL_NAMESPACE {

// Iterative depth-first search over the open rows, counters in locals, no recursion.
// The last open row is not searched: its free squares are counted with one popcount.
inline Tally count_completions(const Subproblem& s) {
  const int last = s.rows - 1;
  if (last < 0) return {1, 0};
  const Mask full = s.full;
  Mask first = ~(s.cols | s.ld | s.rd | s.blocked[0]) & full;
  if (last == 0) {
    const auto c = static_cast<std::uint64_t>(std::popcount(first));
    return {c, c};
  }
  Mask cols[kMaxN], ld[kMaxN], rd[kMaxN], avail[kMaxN];
  std::uint64_t solutions = 0, nodes = 0;
  int d = 0;
  cols[0] = s.cols;
  ld[0] = s.ld;
  rd[0] = s.rd;
  avail[0] = first;
  for (;;) {
    const Mask a = avail[d];
    if (a == 0) {
      if (d == 0) break;
      --d;
      continue;
    }
    const Mask bit = a & (0u - a);  // lowest free square
    avail[d] = a ^ bit;
    ++nodes;
    const Mask nc = cols[d] | bit;
    const Mask nl = (ld[d] | bit) << 1;
    const Mask nr = (rd[d] | bit) >> 1;
    const Mask next = ~(nc | nl | nr | s.blocked[d + 1]) & full;
    if (d + 1 == last) {  // the last row: every free square is a solution
      const auto c = static_cast<std::uint64_t>(std::popcount(next));
      solutions += c;
      nodes += c;
      continue;
    }
    if (next == 0) continue;  // dead end: do not descend
    ++d;
    cols[d] = nc;
    ld[d] = nl;
    rd[d] = nr;
    avail[d] = next;
  }
  return {solutions, nodes};
}

}  // namespace nq::NQ_KERNEL_NAMESPACE
