// The dihedral group D4 acting on the squares of an n x n board (0-based row, column).
#pragma once

#include <array>
#include <cstdint>

namespace nq {

// The eight symmetries of the square. The rotations come first: Stab(solution) is always a
// subgroup of the rotations for n > 1 (no solution is fixed by a reflection).
enum class Sym : std::uint8_t {
  kIdentity = 0,
  kRot90 = 1,         // (r, c) -> (c, n-1-r)
  kRot180 = 2,        // (r, c) -> (n-1-r, n-1-c)
  kRot270 = 3,        // (r, c) -> (n-1-c, r)
  kFlipRows = 4,      // (r, c) -> (n-1-r, c)
  kFlipCols = 5,      // (r, c) -> (r, n-1-c)
  kTranspose = 6,     // (r, c) -> (c, r)
  kAntiTranspose = 7  // (r, c) -> (n-1-c, n-1-r)
};
inline constexpr int kD4Order = 8;
inline constexpr std::array<Sym, 8> kAllSyms{Sym::kIdentity,  Sym::kRot90,        Sym::kRot180,
                                             Sym::kRot270,    Sym::kFlipRows,     Sym::kFlipCols,
                                             Sym::kTranspose, Sym::kAntiTranspose};

struct Square {
  int row, col;
  bool operator==(const Square&) const = default;
};

constexpr Square apply(Sym g, Square s, int n) {
  const int r = s.row, c = s.col, m = n - 1;
  switch (g) {
    case Sym::kIdentity:
      return {r, c};
    case Sym::kRot90:
      return {c, m - r};
    case Sym::kRot180:
      return {m - r, m - c};
    case Sym::kRot270:
      return {m - c, r};
    case Sym::kFlipRows:
      return {m - r, c};
    case Sym::kFlipCols:
      return {r, m - c};
    case Sym::kTranspose:
      return {c, r};
    case Sym::kAntiTranspose:
      return {m - c, m - r};
  }
  return s;
}

constexpr std::uint8_t sym_bit(Sym g) {
  return static_cast<std::uint8_t>(1u << static_cast<int>(g));
}

}  // namespace nq
