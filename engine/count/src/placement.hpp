// A partial placement of queens on an n x n board, with the occupancy words that make
// "may a queen stand here?" O(1). Used off the hot path: by the front end to build frames and
// by the symmetric-completion counter.
#pragma once

#include <array>
#include <cstdint>

#include "base/d4.hpp"

namespace nq::detail {

class Placement {
 public:
  explicit Placement(int n) : n_(n) { col_of_row_.fill(-1); }

  int n() const { return n_; }
  int col_of_row(int row) const { return col_of_row_[row]; }
  bool row_used(int row) const { return (rows_ >> row) & 1u; }
  bool col_used(int col) const { return (cols_ >> col) & 1u; }
  int queens() const { return queens_; }

  bool can_place(int row, int col) const {
    return !row_used(row) && !col_used(col) && !((diag_ >> (row + col)) & 1u) &&
           !((anti_ >> (row - col + n_ - 1)) & 1u);
  }
  void place(int row, int col) { toggle(row, col, col); }
  void remove(int row) { toggle(row, col_of_row_[row], -1); }

  // The placement's image under g.
  Placement image(Sym g) const {
    Placement out(n_);
    for (int r = 0; r < n_; ++r)
      if (col_of_row_[r] >= 0) {
        const Square s = apply(g, {r, col_of_row_[r]}, n_);
        out.place(s.row, s.col);
      }
    return out;
  }
  bool operator==(const Placement& o) const { return n_ == o.n_ && col_of_row_ == o.col_of_row_; }
  // Lexicographic order on the row -> column table, an empty row after every column: the
  // canonical form is the least image, which puts queens in the first rows, leftmost.
  bool operator<(const Placement& o) const {
    for (int r = 0; r < n_; ++r) {
      const auto a = static_cast<std::uint8_t>(col_of_row_[r]);
      const auto b = static_cast<std::uint8_t>(o.col_of_row_[r]);
      if (a != b) return a < b;
    }
    return false;
  }

 private:
  void toggle(int row, int col, int value) {
    col_of_row_[row] = static_cast<std::int8_t>(value);
    rows_ ^= 1u << row;
    cols_ ^= 1u << col;
    diag_ ^= std::uint64_t{1} << (row + col);
    anti_ ^= std::uint64_t{1} << (row - col + n_ - 1);
    queens_ += value >= 0 ? 1 : -1;
  }

  int n_;
  int queens_ = 0;
  std::uint32_t rows_ = 0, cols_ = 0;
  std::uint64_t diag_ = 0, anti_ = 0;
  std::array<std::int8_t, 32> col_of_row_;
};

}  // namespace nq::detail
