// The generic scalar search, written once. Each ISA's source file includes it inside its own
// namespace and target region (the simdjson pattern).
#pragma once

#include <bit>

#include "kernels/subproblem.hpp"

namespace nq::NQ_KERNEL_NAMESPACE {

// The last two open rows are counted without visiting them. With C, L, R the state entering
// row `a` (free squares `next`) and `base` the free squares of the last row before any queen
// is placed in row a, a queen on bit j of `next` leaves base & ~(j | j<<1 | j>>1) in the last
// row. Summing over j (the plain version is a loop over the bits of `next`):
//   sum_j |base & ~(j | j<<1 | j>>1)| = |next||base| - |next & base| - |next & base>>1|
//                                       - |next & base<<1|
// Nodes keep their meaning: every queen placed in the last two rows counts.
struct LastTwoRows {
  std::uint64_t solutions, nodes;
};
inline LastTwoRows count_last_two_rows(Mask next, Mask c, Mask l, Mask r, Mask blocked_last,
                                       Mask full) {
  const Mask base = ~(c | (l << 1) | (r >> 1) | blocked_last) & full;
  const auto placed = static_cast<std::uint64_t>(std::popcount(next));
  const auto s = placed * static_cast<std::uint64_t>(std::popcount(base)) -
                 static_cast<std::uint64_t>(std::popcount(next & base)) -
                 static_cast<std::uint64_t>(std::popcount(next & (base >> 1))) -
                 static_cast<std::uint64_t>(std::popcount(next & (base << 1)));
  return {s, placed + s};
}

// Iterative depth-first search over the open rows, counters in locals, no recursion.
inline Tally count_completions(const Subproblem& s) {
  const int last = s.rows - 1;
  if (last < 0) return {1, 0};
  const Mask full = s.full;
  const Mask first = ~(s.cols | s.ld | s.rd | s.blocked[0]) & full;
  if (last == 0) {
    const auto c = static_cast<std::uint64_t>(std::popcount(first));
    return {c, c};
  }
  if (last == 1) {
    const LastTwoRows t = count_last_two_rows(first, s.cols, s.ld, s.rd, s.blocked[1], full);
    return {t.solutions, t.nodes};
  }
  if (last == 2) {  // three rows: loop over the first, close the other two
    std::uint64_t solutions = 0, nodes = 0;
    for (Mask rest = first; rest;) {
      const Mask b = rest & (0u - rest);
      rest ^= b;
      const Mask c = s.cols | b, l = (s.ld | b) << 1, r = (s.rd | b) >> 1;
      const LastTwoRows t =
          count_last_two_rows(~(c | l | r | s.blocked[1]) & full, c, l, r, s.blocked[2], full);
      solutions += t.solutions;
      nodes += 1 + t.nodes;
    }
    return {solutions, nodes};
  }
  Mask cols[kMaxN], ld[kMaxN], rd[kMaxN], avail[kMaxN];
  std::uint64_t solutions = 0, nodes = 0;
  int d = 0;
  cols[0] = s.cols;
  ld[0] = s.ld;
  rd[0] = s.rd;
  avail[0] = first;
  // Rows last-2.. are counted without pushing: a tight loop over the queens of row last-2,
  // each closing rows last-1 and last with count_last_two_rows. Needs rows >= 4.
  const int stop = last - 2;
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
    if (d + 1 == stop) {  // rows last-2, last-1 and last without the stack
      Mask rest = next;
      while (rest) {
        const Mask b2 = rest & (0u - rest);
        rest ^= b2;
        const Mask c2 = nc | b2, l2 = (nl | b2) << 1, r2 = (nr | b2) >> 1;
        const Mask next2 = ~(c2 | l2 | r2 | s.blocked[last - 1]) & full;
        const LastTwoRows t = count_last_two_rows(next2, c2, l2, r2, s.blocked[last], full);
        solutions += t.solutions;
        nodes += 1 + t.nodes;
      }
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
