// The backtracking of the older literature, for comparison with the bitboard kernels: the next
// row chosen by the fewest free squares (dynamic ordering) instead of top to bottom, and
// look-ahead (a branch is pruned as soon as some open row has no free square left). Both need
// every open row's free squares, not only the next row's, so this search keeps one mask per
// open row and updates all of them on every placement: more work per node, fewer nodes. The
// totals are the scalar kernel's; `--order rows` without look-ahead visits exactly its nodes.
#include <bit>

#include "kernels/kernels.hpp"

namespace nq {
namespace {

struct OrderedSearch {
  const Subproblem& s;
  bool fewest;
  bool lookahead;
  std::uint64_t solutions = 0, nodes = 0;

  // free_[i]: the free squares of open row i; `open` the bit set of rows still empty.
  void search(const Mask* free_rows, std::uint32_t open) {
    if (open == 0) {
      ++solutions;
      return;
    }
    int row = std::countr_zero(open);  // top to bottom: the first open row
    if (fewest) {
      int best = 33;
      for (std::uint32_t rest = open; rest; rest &= rest - 1) {
        const int i = std::countr_zero(rest);
        const int c = std::popcount(free_rows[i]);
        if (c < best) best = c, row = i;
      }
    }
    const std::uint32_t others = open & ~(std::uint32_t{1} << row);
    Mask next[kMaxN];
    for (Mask a = free_rows[row]; a;) {
      const Mask bit = a & (0u - a);
      a ^= bit;
      ++nodes;
      bool dead = false;
      for (std::uint32_t rest = others; rest; rest &= rest - 1) {
        const int i = std::countr_zero(rest);
        // The queen at (row, bit) attacks row i on its column and on the two diagonals,
        // |i - row| columns to either side.
        const int d = i > row ? i - row : row - i;
        next[i] = free_rows[i] & ~(bit | (d < 32 ? (bit << d) | (bit >> d) : 0u));
        dead |= next[i] == 0;
      }
      if (lookahead && dead) continue;
      search(next, others);
    }
  }
};

Tally count_ordered(const Subproblem& s, bool fewest, bool lookahead) {
  if (s.rows == 0) return {1, 0};
  Mask free_rows[kMaxN];
  for (int i = 0; i < s.rows; ++i) free_rows[i] = open_row_squares(s, i);
  OrderedSearch search{s, fewest, lookahead};
  const std::uint32_t open = s.rows == 32 ? ~0u : (std::uint32_t{1} << s.rows) - 1;
  search.search(free_rows, open);
  return {search.solutions, search.nodes};
}

template <bool kFewest, bool kLookahead>
void count_batch(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = count_ordered(in[i], kFewest, kLookahead);
}

bool always() {
  return true;
}
std::string_view scalar_isa() {
  return "scalar";
}

constexpr Kernel kOrdered[] = {
    {"scalar-rows", "scalar search, top to bottom, every open row tracked", "", &always,
     &count_batch<false, false>, PlanKind::kCanonical, &scalar_isa},
    {"scalar-lookahead", "scalar search, top to bottom, look-ahead", "", &always,
     &count_batch<false, true>, PlanKind::kCanonical, &scalar_isa},
    {"scalar-fewest", "scalar search, fewest-free-row ordering", "", &always,
     &count_batch<true, false>, PlanKind::kCanonical, &scalar_isa},
    {"scalar-fewest-lookahead", "scalar search, fewest-free-row ordering, look-ahead", "", &always,
     &count_batch<true, true>, PlanKind::kCanonical, &scalar_isa},
};

}  // namespace

Tally count_one_ordered(const Subproblem& s, RowOrder order, bool lookahead) {
  return count_ordered(s, order == RowOrder::fewest, lookahead);
}

const Kernel& ordered_kernel(RowOrder order, bool lookahead) {
  return kOrdered[(order == RowOrder::fewest ? 2 : 0) + (lookahead ? 1 : 0)];
}

}  // namespace nq
