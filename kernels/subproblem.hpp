// The unit of work every counting kernel understands: the open rows of a board whose other
// queens are already fixed. Kernels know nothing of symmetry, TBB, the CLI or printing.
#pragma once

#include <cstdint>

#include "base/types.hpp"

namespace nq {

using Mask = std::uint32_t;  // one word a row: the columns of a board of at most kMaxN

// A board with some queens fixed, and `rows` open rows still to fill, top to bottom.
// The kernel places queens in the open rows with the usual three-word bitboard search
// (columns, and the two diagonal directions shifted one square per row). Whatever the fixed
// queens attack in an open row is folded into `blocked[row]`, so a kernel never needs to
// know where those queens stand. A row that already holds a fixed queen is passed as an open
// row whose only free square is that queen's own ("forced"), which keeps the diagonal shift
// at one square per row.
struct Subproblem {
  Mask full = 0;                  // the board's columns: bits 0..n-1
  Mask cols = 0, ld = 0, rd = 0;  // the state on entering the first open row
  int rows = 0;                   // open rows, 0..kMaxN
  Mask blocked[kMaxN] = {};       // per open row: squares the fixed queens forbid
};

// The free squares of open row i (0 <= i < s.rows) before any queen of the open rows is placed.
inline Mask open_row_squares(const Subproblem& s, int i) {
  return s.full & ~(s.cols | (s.ld << i) | (s.rd >> i) | s.blocked[i]);
}

// What counting one subproblem yields. `nodes` counts queen placements (search-tree nodes
// below the subproblem's root); a completed board counts as one solution.
struct Tally {
  std::uint64_t solutions = 0;
  std::uint64_t nodes = 0;
};

}  // namespace nq
