// The classic kernel: plain one-queen-per-row bitboard backtracking over the whole board
// (Somers-style). It is deliberately independent of search.hpp: it has no fixed queens, no
// per-row masks and no last-row shortcut, so it checks the other kernels and is the baseline
// of the benchmarks.
#include <bit>

#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"

namespace nq {

Tally count_classic(int n, Mask cols, Mask ld, Mask rd, int rows) {
  if (rows <= 0) return {1, 0};
  const Mask full = n >= 32 ? ~Mask{0} : ((Mask{1} << n) - 1);
  Mask stack_cols[kMaxN], stack_ld[kMaxN], stack_rd[kMaxN], stack_avail[kMaxN];
  std::uint64_t solutions = 0, nodes = 0;
  int d = 0;
  stack_cols[0] = cols;
  stack_ld[0] = ld;
  stack_rd[0] = rd;
  stack_avail[0] = ~(cols | ld | rd) & full;
  while (d >= 0) {
    const Mask a = stack_avail[d];
    if (a == 0) {
      --d;
      continue;
    }
    const Mask bit = a & (0u - a);
    stack_avail[d] = a ^ bit;
    ++nodes;
    if (d + 1 == rows) {
      ++solutions;
      continue;
    }
    const Mask nc = stack_cols[d] | bit, nl = (stack_ld[d] | bit) << 1,
               nr = (stack_rd[d] | bit) >> 1;
    ++d;
    stack_cols[d] = nc;
    stack_ld[d] = nl;
    stack_rd[d] = nr;
    stack_avail[d] = ~(nc | nl | nr) & full;
  }
  return {solutions, nodes};
}

void detail::count_reference(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Subproblem& s = in[i];
    out[i] = count_classic(std::popcount(s.full), s.cols, s.ld, s.rd, s.rows);
  }
}

}  // namespace nq
