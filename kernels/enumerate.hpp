// Enumerating (not just counting) the solutions, in lexicographic order: the same three-word
// bitboard search as search.hpp, but it records where each queen stands and hands every
// complete board to a visitor. Used by `nqcount list` and by the orbit tools.
#pragma once

#include <bit>
#include <cstdint>

#include "kernels/subproblem.hpp"

namespace nq {

// Calls `visit(const int* rows)` for every solution of the n-board (1 <= n <= kMaxN), where
// rows[i] is the 0-based row of the queen in column i. The search fills the columns left to
// right and tries rows from the lowest bit up (`a & -a`), so the solutions arrive in
// lexicographic order of (rows[0], ..., rows[n-1]). `visit` returns false to stop early; the
// function returns false when it was stopped, true when it ran to the end. `first_rows`
// restricts the queen of column 0 to those rows (bits), e.g. to split the work into tasks.
//
// As in search.hpp: no recursion, the stacks are locals, and the last column is not searched
// (its single free square, if any, is the one remaining row).
template <class Visit>
bool for_each_solution(int n, Visit&& visit, Mask first_rows = ~Mask{0}) {
  if (n < 1 || n > kMaxN) return true;
  const Mask full = n == 32 ? ~Mask{0} : (Mask{1} << n) - 1;
  int rows[kMaxN];
  if (n == 1) {
    if ((first_rows & 1u) == 0) return true;
    rows[0] = 0;
    return visit(static_cast<const int*>(rows));
  }
  Mask used[kMaxN], ld[kMaxN], rd[kMaxN], avail[kMaxN];
  const int last = n - 1;
  int d = 0;
  used[0] = ld[0] = rd[0] = 0;
  avail[0] = full & first_rows;
  for (;;) {
    const Mask a = avail[d];
    if (a == 0) {
      if (d == 0) return true;
      --d;
      continue;
    }
    const Mask bit = a & (0u - a);  // the lowest free row: lexicographic order
    avail[d] = a ^ bit;
    rows[d] = std::countr_zero(bit);
    const Mask nu = used[d] | bit;
    const Mask nl = (ld[d] | bit) << 1;
    const Mask nr = (rd[d] | bit) >> 1;
    const Mask next = ~(nu | nl | nr) & full;
    if (next == 0) continue;
    if (d + 1 == last) {  // the last column: at most one row is left, and it is free
      rows[last] = std::countr_zero(next);
      if (!visit(static_cast<const int*>(rows))) return false;
      continue;
    }
    ++d;
    used[d] = nu;
    ld[d] = nl;
    rd[d] = nr;
    avail[d] = next;
  }
}

}  // namespace nq
