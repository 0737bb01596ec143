// LDPC parity-check matrices from a modular n-queens solution, after Wang & Luan: the Q-matrix
// Q of a modular solution p (entry (p(i), i)) and its cyclic column shifts are the blocks of
// H = [B(j,k)], j < J block rows, k < K block columns, each block n x n:
//   B(j,k) = Q with its columns shifted cyclically by s = m(j)*k (mod n): entry
//   (p(i), i - s mod n), the Q-matrix of the solution i -> p(i + s mod n), itself a modular
//   solution. H is (J n) x (K n), with column weight J and row weight K.
// The row multiplier m(j) is the layout's: product, m(j) = j (the shift j*k); paper, the row
// multipliers of the paper's equation (1), 0, 2, 3, 5, 7, 11, ...: 0, then the primes in order.
//
// A 4-cycle in the Tanner graph is two rows of H sharing two columns. Whether H has one, and how
// many, follows from the shifts alone, whatever the permutation p (the proof: docs/algebra.md,
// "LDPC 4-cycles from the shifts"): rows of block rows j1 != j2 share a column in block columns
// k1 != k2 for some pair of rows exactly when (m(j1) - m(j2))(k1 - k2) = 0 (mod n), and then n
// pairs of rows do. So H has girth >= 6 exactly when that never happens: for the product layout
// always for a prime n >= max(J, K); for the paper's when, besides n >= K, the multipliers
// differ mod n. check_ldpc counts the 4-cycles that way, in O(J^2) gcds instead of O(rows K^2)
// pairs; count_four_cycles_directly is that direct count, the tests' reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/huge_pages.hpp"
#include "base/types.hpp"

namespace nq {

inline constexpr std::uint64_t kMaxLdpcEntries = 100'000'000;

// How block (j, k) is shifted: by j*k (product), or by m(j)*k with the paper's row multipliers
// m = 0, 2, 3, 5, 7, 11, ... (paper).
enum class LdpcLayout : std::uint8_t { kProduct, kPaper };

// The row multipliers m(0..J-1) of a layout (not reduced mod n).
std::vector<std::uint64_t> ldpc_row_multipliers(std::uint64_t J, LdpcLayout layout);

// One one of H, 0-based (row, column).
using LdpcEntry = std::pair<std::uint32_t, std::uint32_t>;

struct LdpcMatrix {
  std::uint64_t n = 0, block_rows = 0, block_columns = 0;  // n, J, K
  LdpcLayout layout = LdpcLayout::kProduct;
  std::vector<std::uint64_t> multipliers;  // m(j), j < J
  std::uint64_t rows = 0, columns = 0;     // J n, K n
  std::uint64_t ones = 0;                  // J K n
  // The ones of H, 0-based (row, column), by block row, block column, then column of Q (H's
  // order); empty in a shape from ldpc_shape.
  std::vector<LdpcEntry> entries;
};

// H's shape (n, J, K, the multipliers, rows, columns, ones) without its entries, for writing H
// a part at a time (ldpc_entries). Refuses J or K outside 1..n, and an H with more than
// kMaxLdpcEntries ones.
Expected<LdpcMatrix> ldpc_shape(std::uint64_t n, std::uint64_t J, std::uint64_t K,
                                LdpcLayout layout = LdpcLayout::kProduct);

// Appends the ones number first .. first + count - 1 of H (H's order) for the modular solution p
// (0-based rows, p.size() = shape.n) to `out`.
void ldpc_entries(const Permutation& p, const LdpcMatrix& shape, std::uint64_t first,
                  std::uint64_t count, std::vector<LdpcEntry>& out);

// H with its entries for the modular solution p: ldpc_shape and every one of ldpc_entries.
// An Error too when the memory for the entries cannot be had.
Expected<LdpcMatrix> ldpc_matrix(const Permutation& p, std::uint64_t J, std::uint64_t K,
                                 LdpcLayout layout = LdpcLayout::kProduct);

struct LdpcCheck {
  std::uint64_t min_row_weight = 0, max_row_weight = 0;
  std::uint64_t min_column_weight = 0, max_column_weight = 0;
  // Pairs of rows sharing two columns, counted once per pair of shared columns.
  std::uint64_t four_cycles = 0;
  bool girth_at_least_6() const { return four_cycles == 0; }
};

// H's 4-cycles from its shape alone (n, K and the multipliers): for each pair of block rows
// with d = m(j1) - m(j2) mod n, g = n / gcd(d, n), n times the pairs k1 < k2 < K whose
// difference is a multiple of g. O(J^2) gcds.
std::uint64_t ldpc_four_cycles(const LdpcMatrix& shape);

// The row and column weights of H counted on its ones as they come, a part at a time and in any
// order (add), and its 4-cycles (ldpc_four_cycles): the check of an H that is written without
// ever being held whole. Two bytes a row and a column (counters saturate at 65535; a weight is
// at most max(J, K) <= 10^4).
class LdpcChecker {
 public:
  // An Error when the counters cannot be allocated.
  static Expected<LdpcChecker> make(const LdpcMatrix& shape);
  static std::uint64_t bytes(const LdpcMatrix& shape);  // what make allocates
  void add(const LdpcEntry* entries, std::size_t count);
  LdpcCheck result() const;

 private:
  explicit LdpcChecker(const LdpcMatrix& shape);
  std::vector<std::uint16_t> row_weight_, column_weight_;
  std::uint64_t four_cycles_ = 0;
};

// The check of a whole H (its entries): LdpcChecker over them. An Error when the counters cannot
// be allocated.
Expected<LdpcCheck> check_ldpc(const LdpcMatrix& h);

// The 4-cycles counted on H's entries directly: every pair of columns a row holds, a pair held by
// m rows closing m(m-1)/2 of them. O(rows K^2) time and memory: the reference that
// ldpc_four_cycles is tested against, for small H only.
std::uint64_t count_four_cycles_directly(const LdpcMatrix& h);

}  // namespace nq
