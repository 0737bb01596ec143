#include "engine/algebra/ldpc.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace nq {

std::vector<std::uint64_t> ldpc_row_multipliers(std::uint64_t J, LdpcLayout layout) {
  std::vector<std::uint64_t> m;
  m.reserve(J);
  if (layout == LdpcLayout::kProduct) {
    for (std::uint64_t j = 0; j < J; ++j) m.push_back(j);
    return m;
  }
  if (J > 0) m.push_back(0);
  // The primes in order, by trial division by the primes found so far (J <= n and J n is at
  // most kMaxLdpcEntries, so J stays small).
  for (std::uint64_t c = 2; m.size() < J; ++c) {
    bool prime = true;
    for (std::size_t i = 1; i < m.size() && m[i] * m[i] <= c; ++i)
      if (c % m[i] == 0) {
        prime = false;
        break;
      }
    if (prime) m.push_back(c);
  }
  return m;
}

Expected<LdpcMatrix> ldpc_matrix(const Permutation& p, std::uint64_t J, std::uint64_t K,
                                 LdpcLayout layout) {
  const std::uint64_t n = p.size();
  if (J < 1 || K < 1 || J > n || K > n)
    return Error{"--ldpc " + std::to_string(J) + "," + std::to_string(K) +
                 ": the block counts J and K must be between 1 and n = " + std::to_string(n)};
  if (J * K * n > kMaxLdpcEntries)
    return Error{"--ldpc " + std::to_string(J) + "," + std::to_string(K) + ": H would hold " +
                 std::to_string(J * K * n) + " ones (at most " + std::to_string(kMaxLdpcEntries) +
                 ")"};
  LdpcMatrix h;
  h.n = n;
  h.block_rows = J;
  h.block_columns = K;
  h.rows = J * n;
  h.columns = K * n;
  h.layout = layout;
  h.multipliers = ldpc_row_multipliers(J, layout);
  h.entries.reserve(J * K * n);
  for (std::uint64_t j = 0; j < J; ++j)
    for (std::uint64_t k = 0; k < K; ++k) {
      const std::uint64_t shift = (h.multipliers[j] % n) * k % n;
      for (std::uint64_t i = 0; i < n; ++i)
        h.entries.emplace_back(static_cast<std::uint32_t>(j * n + p[i]),
                               static_cast<std::uint32_t>(k * n + (i + n - shift) % n));
    }
  return h;
}

LdpcCheck check_ldpc(const LdpcMatrix& h) {
  std::vector<std::vector<std::uint32_t>> row_columns(h.rows);
  std::vector<std::uint64_t> column_weight(h.columns, 0);
  for (const auto& [r, c] : h.entries) {
    row_columns[r].push_back(c);
    ++column_weight[c];
  }
  LdpcCheck out;
  auto [rmin, rmax] =
      std::minmax_element(row_columns.begin(), row_columns.end(),
                          [](const auto& a, const auto& b) { return a.size() < b.size(); });
  out.min_row_weight = rmin == row_columns.end() ? 0 : rmin->size();
  out.max_row_weight = rmax == row_columns.end() ? 0 : rmax->size();
  const auto [cmin, cmax] = std::minmax_element(column_weight.begin(), column_weight.end());
  out.min_column_weight = cmin == column_weight.end() ? 0 : *cmin;
  out.max_column_weight = cmax == column_weight.end() ? 0 : *cmax;
  // Every pair of columns a row holds; a pair held by m rows closes m(m-1)/2 four-cycles.
  std::unordered_map<std::uint64_t, std::uint64_t> pairs;
  for (auto& cols : row_columns) {
    std::sort(cols.begin(), cols.end());
    for (std::size_t a = 0; a < cols.size(); ++a)
      for (std::size_t b = a + 1; b < cols.size(); ++b)
        ++pairs[(std::uint64_t{cols[a]} << 32) | cols[b]];
  }
  for (const auto& [pair, m] : pairs) out.four_cycles += m * (m - 1) / 2;
  return out;
}

}  // namespace nq
