// The D4 algebra of solutions as operations on permutations after
// Zhang & Zhang, "An Algebraic Method for the N-Queens Problem Based on Permutation Operation
// Group" (2011).
//
// A solution is a permutation p: p[i] is the row of the queen in column i. Here everything is
// 0-based (users read and type 1-based; the CLI converts). The three generating operations:
//   Inv  the inverse permutation (a reflection in a diagonal),
//   Cmpl p[i] -> n-1-p[i] (a reflection that flips the rows),
//   Rev  the sequence reversed (a reflection that flips the columns),
// and the eight elements po1..po8 of the group they generate are compositions of them.
// base/d4.hpp has the same group acting on (row, col) squares for the counting front end;
// `square_symmetry` relates the two.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/d4.hpp"
#include "base/types.hpp"

namespace nq {

using Perm = std::vector<int>;  // perm[column] = row, both 0-based

// The largest permutation the algebra tools accept (every operation is O(n)).
inline constexpr int kMaxPermN = 1'000'000;

Perm inverse(const Perm& p);
Perm complement(const Perm& p);
Perm reverse(const Perm& p);

// The eight elements, numbered as in the paper (read f∘g as: apply g first).
enum class PermOp : std::uint8_t {
  kPo1 = 0,  // identity
  kPo2,      // Inv
  kPo3,      // Rev∘Cmpl∘Inv
  kPo4,      // Cmpl
  kPo5,      // Rev
  kPo6,      // Cmpl∘Inv (rotation by 90 degrees)
  kPo7,      // Rev∘Cmpl (rotation by 180 degrees)
  kPo8,      // Inv∘Cmpl (rotation by 270 degrees)
};
inline constexpr std::array<PermOp, 8> kAllPermOps{PermOp::kPo1, PermOp::kPo2, PermOp::kPo3,
                                                   PermOp::kPo4, PermOp::kPo5, PermOp::kPo6,
                                                   PermOp::kPo7, PermOp::kPo8};

struct PermOpInfo {
  std::string_view name;     // "po6"
  std::string_view formula;  // "Cmpl∘Inv"
  std::string_view meaning;  // "rotation by 90°"
};
const PermOpInfo& info(PermOp op);

// op(p), computed from the definition of op as a composition of Inv, Cmpl and Rev.
Perm apply_op(PermOp op, const Perm& p);

// The product f∘g (apply g first, then f), found by applying both to a permutation whose eight
// images are distinct and asking which single element gives the same image.
PermOp compose(PermOp f, PermOp g);

// The element of base/d4.hpp that moves the queens' squares (row p[i], column i) the way
// op moves the permutation: {(p[i], i)} maps onto {(q[j], j)} for q = apply_op(op, p).
Sym square_symmetry(PermOp op);

// Is p a permutation of 0..n-1? Does no pair of queens share a diagonal?
bool is_permutation(const Perm& p);
bool is_solution(const Perm& p);  // p must be a permutation

// The orbit of p under the eight operations.
struct OrbitInfo {
  std::array<Perm, 8> images;   // images[k] = apply_op(po(k+1), p)
  Perm canonical;               // the lexicographically least image
  int size = 0;                 // distinct images: 8, 4, 2 (or 1 for n = 1)
  std::uint8_t stabilizer = 0;  // bit k: po(k+1) fixes p
};
OrbitInfo orbit_of(const Perm& p);
Perm canonical_form(const Perm& p);
// Is p the least of its images? Cheaper than canonical_form: no image is built.
bool is_canonical(const Perm& p);
bool is_canonical(const int* p, int n);

// The orbit signature. For three queens a, b, c in consecutive columns: the squared
// lengths |ab|^2 = 1 + (pb - pa)^2 and |bc|^2, and the area term |pc - 2 pb + pa|. Sig_x runs
// along the columns of p, Sig_y along the columns of its inverse.
struct SignatureTriple {
  std::int64_t ab2, area, bc2;
  bool operator==(const SignatureTriple&) const = default;
  auto operator<=>(const SignatureTriple&) const = default;
};
struct Signature {
  std::vector<SignatureTriple> x, y;
};
Signature signature(const Perm& p);

// Two signatures are equal when the x and y sequences match directly or swapped, each either
// in order or reversed (a reversed sequence swaps the two lengths inside every triple): Rev
// reverses Sig_x and leaves Sig_y alone, Cmpl reverses Sig_y and leaves Sig_x alone (the
// inverse of Cmpl(p) is Rev of the inverse of p), Inv swaps them. The key is one
// representative of that equivalence class, so equal signatures have equal keys.
using SignatureKey = std::vector<std::int64_t>;
SignatureKey signature_key(const Signature& s);
// The same key straight from p, without building the signature (nothing allocated up to
// n = 64): written to out[0 .. signature_key_size(n)). For checks that take the key of many
// permutations.
std::size_t signature_key_size(int n);
void signature_key_into(const int* p, int n, std::int64_t* out);
bool same_signature(const Signature& a, const Signature& b);

// The paper's operators, in its coordinates doubled so that they are integers: a half-integer
// position R = k + 0.5 (a gap between rows or columns, 0.5 .. n + 0.5) is 2k + 1, a whole
// position R (a row or column, 1 .. n) is 2R.
//   Inc(R, C): every row greater than R moves up by one, every column after C one to the
//              right, and the new column C + 0.5 holds the queen at row R + 0.5.
//   Del(R, C): the queen at row R, column C is removed; the rows above it move down by one.
//   Mov(R, C, R2, C2): the queen at (R, C) moves to the gaps (R2, C2), given in the
//              coordinates before any change.
enum class EditKind : std::uint8_t { kInc, kDel, kMov };
struct Edit {
  EditKind kind = EditKind::kInc;
  int row2 = 0, col2 = 0;          // Inc: the gaps; Del and Mov: the queen
  int new_row2 = 0, new_col2 = 0;  // Mov only: the gaps it moves to
};
// Checks the positions against p (gaps must be half-integers in range, a Del or Mov must name
// a queen of p) and applies the edit.
Expected<Perm> apply_edit(const Perm& p, const Edit& e);

// The unchecked forms, 0-based: a gap k lies between rows (columns) k-1 and k, 0 <= k <= n.
Perm insert_queen(const Perm& p, int row_gap, int col_gap);         // Inc
Perm delete_queen(const Perm& p, int col);                          // Del of the queen in col
Perm move_queen(const Perm& p, int col, int row_gap, int col_gap);  // Mov, gaps in p's frame

}  // namespace nq
