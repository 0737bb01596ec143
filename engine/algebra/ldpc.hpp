// LDPC parity-check matrices from a modular n-queens solution, after Wang & Luan: the Q-matrix
// Q of a modular solution p (entry (p(i), i)) and its cyclic column shifts are the blocks of
// H = [B(j,k)], j < J block rows, k < K block columns, each block n x n:
//   B(j,k) = Q with its columns shifted cyclically by s = m(j)*k (mod n): entry
//   (p(i), i - s mod n), the Q-matrix of the solution i -> p(i + s mod n), itself a modular
//   solution. H is (J n) x (K n), with column weight J and row weight K.
// The row multiplier m(j) is the layout's: product, m(j) = j (the shift j*k); paper, the row
// multipliers of the paper's equation (1), 0, 2, 3, 5, 7, 11, ...: 0, then the primes in order.
//
// A 4-cycle in the Tanner graph is two rows of H sharing two columns. Between block rows j1, j2
// and block columns k1, k2 the Q factors cancel (B(j1,k1) B(j2,k1)^T B(j2,k2) B(j1,k2)^T is
// the cyclic shift by (m(j1) - m(j2))(k1 - k2)), so H has no 4-cycle (girth >= 6) exactly when
// (m(j1) - m(j2))(k1 - k2) is never 0 mod n: for the product layout always for a prime
// n >= max(J, K); for the paper's when, besides n >= K, the multipliers differ mod n (a prime n
// above the largest, or one that divides no difference of two). check_ldpc counts the 4-cycles
// directly rather than trusting that argument.
#pragma once

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

struct LdpcMatrix {
  std::uint64_t n = 0, block_rows = 0, block_columns = 0;  // n, J, K
  LdpcLayout layout = LdpcLayout::kProduct;
  std::vector<std::uint64_t> multipliers;  // m(j), j < J
  std::uint64_t rows = 0, columns = 0;     // J n, K n
  // The ones of H, 0-based (row, column), by block row, block column, then column of Q.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> entries;
};

// H for the modular solution p (0-based rows). Refuses J or K outside 1..n, and an H with more
// than kMaxLdpcEntries ones.
Expected<LdpcMatrix> ldpc_matrix(const Permutation& p, std::uint64_t J, std::uint64_t K,
                                 LdpcLayout layout = LdpcLayout::kProduct);

struct LdpcCheck {
  std::uint64_t min_row_weight = 0, max_row_weight = 0;
  std::uint64_t min_column_weight = 0, max_column_weight = 0;
  // Pairs of rows sharing two columns, counted once per pair of shared columns.
  std::uint64_t four_cycles = 0;
  bool girth_at_least_6() const { return four_cycles == 0; }
};
LdpcCheck check_ldpc(const LdpcMatrix& h);

}  // namespace nq
