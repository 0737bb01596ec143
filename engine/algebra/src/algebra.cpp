#include "engine/algebra/algebra.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

namespace nq {

Perm inverse(const Perm& p) {
  Perm q(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) q[p[i]] = static_cast<int>(i);
  return q;
}

Perm complement(const Perm& p) {
  const int m = static_cast<int>(p.size()) - 1;
  Perm q(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) q[i] = m - p[i];
  return q;
}

Perm reverse(const Perm& p) {
  return Perm(p.rbegin(), p.rend());
}

const PermOpInfo& info(PermOp op) {
  static const PermOpInfo kInfo[8] = {
      {"po1", "identity", "identity"},
      {"po2", "Inv", "reflection in the main diagonal"},
      {"po3", "Rev∘Cmpl∘Inv", "reflection in the anti-diagonal"},
      {"po4", "Cmpl", "reflection that flips the rows"},
      {"po5", "Rev", "reflection that reverses the columns"},
      {"po6", "Cmpl∘Inv", "rotation by 90°"},
      {"po7", "Rev∘Cmpl", "rotation by 180°"},
      {"po8", "Inv∘Cmpl", "rotation by 270°"},
  };
  return kInfo[static_cast<int>(op)];
}

// Written exactly as the paper defines the elements, so that the product table the tests compute
// from this function checks the definitions, not a hand-made table.
Perm apply_op(PermOp op, const Perm& p) {
  switch (op) {
    case PermOp::kPo1:
      return p;
    case PermOp::kPo2:
      return inverse(p);
    case PermOp::kPo3:
      return reverse(complement(inverse(p)));
    case PermOp::kPo4:
      return complement(p);
    case PermOp::kPo5:
      return reverse(p);
    case PermOp::kPo6:
      return complement(inverse(p));
    case PermOp::kPo7:
      return reverse(complement(p));
    case PermOp::kPo8:
      return inverse(complement(p));
  }
  return p;
}

PermOp compose(PermOp f, PermOp g) {
  static const Perm probe{1, 3, 0, 2, 4};  // its eight images are distinct (the tests check)
  const Perm fg = apply_op(f, apply_op(g, probe));
  for (PermOp h : kAllPermOps)
    if (apply_op(h, probe) == fg) return h;
  return PermOp::kPo1;  // unreachable: the eight are closed under composition (tested)
}

// With the queen of column i on the square (row p[i], column i): Inv is the transpose, Cmpl
// flips the rows, Rev flips the columns. d4.hpp counts rows downwards, so the paper's
// rotation by 90° (po6: (r, c) -> (n-1-c, r)) is the one d4.hpp calls kRot270.
Sym square_symmetry(PermOp op) {
  switch (op) {
    case PermOp::kPo1:
      return Sym::kIdentity;
    case PermOp::kPo2:
      return Sym::kTranspose;
    case PermOp::kPo3:
      return Sym::kAntiTranspose;
    case PermOp::kPo4:
      return Sym::kFlipRows;
    case PermOp::kPo5:
      return Sym::kFlipCols;
    case PermOp::kPo6:
      return Sym::kRot270;
    case PermOp::kPo7:
      return Sym::kRot180;
    case PermOp::kPo8:
      return Sym::kRot90;
  }
  return Sym::kIdentity;
}

bool is_permutation(const Perm& p) {
  std::vector<char> seen(p.size(), 0);
  for (int v : p) {
    if (v < 0 || static_cast<std::size_t>(v) >= p.size() || seen[v]) return false;
    seen[v] = 1;
  }
  return true;
}

bool is_solution(const Perm& p) {
  // Queens i and j share a diagonal when p[i] + i or p[i] - i coincide.
  const std::size_t n = p.size();
  if (n <= 32) {
    std::uint64_t sum = 0, diff = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t s = std::uint64_t{1} << (p[i] + static_cast<int>(i));
      const std::uint64_t d = std::uint64_t{1} << (p[i] - static_cast<int>(i) + 31);
      if ((sum & s) || (diff & d)) return false;
      sum |= s;
      diff |= d;
    }
    return true;
  }
  std::vector<char> sum(2 * n, 0), diff(2 * n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t s = p[i] + i, d = p[i] + n - i;
    if (sum[s] || diff[d]) return false;
    sum[s] = diff[d] = 1;
  }
  return true;
}

OrbitInfo orbit_of(const Perm& p) {
  OrbitInfo o;
  for (PermOp op : kAllPermOps) o.images[static_cast<int>(op)] = apply_op(op, p);
  o.canonical = *std::min_element(o.images.begin(), o.images.end());
  std::vector<Perm> distinct(o.images.begin(), o.images.end());
  std::sort(distinct.begin(), distinct.end());
  o.size = static_cast<int>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
  for (int k = 0; k < 8; ++k)
    if (o.images[k] == p) o.stabilizer |= static_cast<std::uint8_t>(1u << k);
  return o;
}

Perm canonical_form(const Perm& p) {
  return orbit_of(p).canonical;
}

namespace {

// The images of p element by element, from p and its inverse, without building them: image(k)
// at column j. These are the formulas apply_op() composes, written out (0-based, m = n-1).
struct LazyImages {
  const int* p;
  const int* inv;
  int m;
  int at(int k, int j) const {
    switch (k) {
      case 1:
        return inv[j];  // Inv
      case 2:
        return m - inv[m - j];  // Rev∘Cmpl∘Inv
      case 3:
        return m - p[j];  // Cmpl
      case 4:
        return p[m - j];  // Rev
      case 5:
        return m - inv[j];  // Cmpl∘Inv
      case 6:
        return m - p[m - j];  // Rev∘Cmpl
      case 7:
        return inv[m - j];  // Inv∘Cmpl
      default:
        return p[j];
    }
  }
};

}  // namespace

bool is_canonical(const Perm& p) {
  return is_canonical(p.data(), static_cast<int>(p.size()));
}

bool is_canonical(const int* p, int n) {
  if (n == 0) return true;
  int small[64];
  std::vector<int> big;
  int* inv = small;
  if (n > 64) {
    big.resize(n);
    inv = big.data();
  }
  for (int i = 0; i < n; ++i) inv[p[i]] = i;
  const LazyImages img{p, inv, n - 1};
  for (int k = 1; k < 8; ++k)
    for (int j = 0; j < n; ++j) {
      const int a = p[j], b = img.at(k, j);
      if (a < b) break;
      if (a > b) return false;
    }
  return true;
}

namespace {

std::vector<SignatureTriple> triples(const Perm& p) {
  std::vector<SignatureTriple> t;
  for (std::size_t i = 0; i + 2 < p.size(); ++i) {
    const std::int64_t a = p[i], b = p[i + 1], c = p[i + 2];
    t.push_back({1 + (b - a) * (b - a), std::llabs(c - 2 * b + a), 1 + (c - b) * (c - b)});
  }
  return t;
}

// One sequence up to reversal. Reversing the triples' order and swapping the two lengths in
// each is the same as reversing the flattened sequence (ab2, area, bc2, ab2, area, bc2, ...).
std::vector<std::int64_t> sequence_key(const std::vector<SignatureTriple>& t) {
  std::vector<std::int64_t> flat;
  flat.reserve(3 * t.size());
  for (const SignatureTriple& s : t) flat.insert(flat.end(), {s.ab2, s.area, s.bc2});
  std::vector<std::int64_t> back(flat.rbegin(), flat.rend());
  return std::min(flat, back);
}

}  // namespace

Signature signature(const Perm& p) {
  return {triples(p), triples(inverse(p))};
}

SignatureKey signature_key(const Signature& s) {
  std::vector<std::int64_t> x = sequence_key(s.x), y = sequence_key(s.y);
  if (y < x) std::swap(x, y);
  x.insert(x.end(), y.begin(), y.end());  // both have 3(n-2) entries: no separator needed
  return x;
}

std::size_t signature_key_size(int n) {
  return n < 3 ? 0 : 6 * static_cast<std::size_t>(n - 2);
}

namespace {

// One sequence of triples flattened into out[0 .. 3(n-2)) (q[0..n) the rows along it), then
// made the lesser of itself and its reverse, as sequence_key does.
void sequence_key_into(const int* q, int n, std::int64_t* out) {
  const std::size_t len = 3 * static_cast<std::size_t>(n - 2);
  for (int i = 0; i + 2 < n; ++i) {
    const std::int64_t a = q[i], b = q[i + 1], c = q[i + 2];
    out[3 * i] = 1 + (b - a) * (b - a);
    out[3 * i + 1] = std::llabs(c - 2 * b + a);
    out[3 * i + 2] = 1 + (c - b) * (c - b);
  }
  for (std::size_t i = 0; i < len / 2; ++i)
    if (out[i] != out[len - 1 - i]) {
      if (out[len - 1 - i] < out[i]) std::reverse(out, out + len);
      break;
    }
}

}  // namespace

void signature_key_into(const int* p, int n, std::int64_t* out) {
  if (n < 3) return;
  int small[64];
  std::vector<int> big;
  int* inv = small;
  if (n > 64) {
    big.resize(static_cast<std::size_t>(n));
    inv = big.data();
  }
  for (int i = 0; i < n; ++i) inv[p[i]] = i;
  const std::size_t half = 3 * static_cast<std::size_t>(n - 2);
  std::int64_t* x = out;
  std::int64_t* y = out + half;
  sequence_key_into(p, n, x);
  sequence_key_into(inv, n, y);
  if (std::lexicographical_compare(y, y + half, x, x + half)) std::swap_ranges(x, x + half, y);
}

bool same_signature(const Signature& a, const Signature& b) {
  return signature_key(a) == signature_key(b);
}

Perm insert_queen(const Perm& p, int row_gap, int col_gap) {
  Perm q;
  q.reserve(p.size() + 1);
  for (std::size_t i = 0; i <= p.size(); ++i) {
    if (static_cast<int>(i) == col_gap) q.push_back(row_gap);
    if (i < p.size()) q.push_back(p[i] + (p[i] >= row_gap ? 1 : 0));
  }
  return q;
}

Perm delete_queen(const Perm& p, int col) {
  const int row = p[col];
  Perm q;
  q.reserve(p.size() - 1);
  for (std::size_t i = 0; i < p.size(); ++i)
    if (static_cast<int>(i) != col) q.push_back(p[i] - (p[i] > row ? 1 : 0));
  return q;
}

// The new gaps are given in p's frame, before any change, so the order of the two steps
// matters: Inc first shifts the old queen (its row moves up when it lies at or above the new
// row gap, its column right when it lies at or after the new column gap), and then Del removes
// it from its shifted position. (Del first would instead pull every gap above the old queen
// down by one; the tests check that both orders agree.)
Perm move_queen(const Perm& p, int col, int row_gap, int col_gap) {
  const Perm grown = insert_queen(p, row_gap, col_gap);
  return delete_queen(grown, col + (col >= col_gap ? 1 : 0));
}

namespace {

std::string paper_position(int doubled) {
  return std::to_string(doubled / 2) + (doubled % 2 ? ".5" : "");
}

std::optional<Error> check_gaps(int n, int row2, int col2, const char* what) {
  for (int v : {row2, col2})
    if (v % 2 == 0 || v < 1 || v > 2 * n + 1)
      return Error{std::string(what) + " position " + paper_position(v) +
                   " is not a half-integer between 0.5 and " + paper_position(2 * n + 1) +
                   " (a gap between rows or columns)"};
  return std::nullopt;
}

std::optional<Error> check_queen(const Perm& p, int row2, int col2) {
  const int n = static_cast<int>(p.size());
  for (int v : {row2, col2})
    if (v % 2 != 0 || v < 2 || v > 2 * n)
      return Error{"queen position " + paper_position(v) + " is not a whole number between 1 and " +
                   std::to_string(n)};
  const int row = row2 / 2 - 1, col = col2 / 2 - 1;
  if (p[col] != row)
    return Error{"there is no queen at row " + std::to_string(row + 1) + ", column " +
                 std::to_string(col + 1) + " (the queen of column " + std::to_string(col + 1) +
                 " is at row " + std::to_string(p[col] + 1) + ")"};
  return std::nullopt;
}

}  // namespace

namespace {
Expected<Perm> apply_edit_unguarded(const Perm& p, const Edit& e);
}  // namespace

Expected<Perm> apply_edit(const Perm& p, const Edit& e) {
  return errors_as_values([&] { return apply_edit_unguarded(p, e); });
}

namespace {

Expected<Perm> apply_edit_unguarded(const Perm& p, const Edit& e) {
  const int n = static_cast<int>(p.size());
  if (!is_permutation(p)) return Error{"the permutation is not a permutation of 1..n"};
  switch (e.kind) {
    case EditKind::kInc:
      if (n + 1 > kMaxPermN)
        return Error{"Inc would pass the largest n, " + std::to_string(kMaxPermN)};
      if (auto err = check_gaps(n, e.row2, e.col2, "Inc")) return *err;
      return insert_queen(p, e.row2 / 2, e.col2 / 2);
    case EditKind::kDel:
      if (auto err = check_queen(p, e.row2, e.col2)) return *err;
      return delete_queen(p, e.col2 / 2 - 1);
    case EditKind::kMov:
      if (auto err = check_queen(p, e.row2, e.col2)) return *err;
      if (auto err = check_gaps(n, e.new_row2, e.new_col2, "Mov target")) return *err;
      return move_queen(p, e.col2 / 2 - 1, e.new_row2 / 2, e.new_col2 / 2);
  }
  return Error{"unknown edit"};
}

}  // namespace

}  // namespace nq
