#include "engine/algebra/ldpc.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
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

Expected<LdpcMatrix> ldpc_shape(std::uint64_t n, std::uint64_t J, std::uint64_t K,
                                LdpcLayout layout) {
  if (layout != LdpcLayout::kProduct && layout != LdpcLayout::kPaper)
    return Error{"--ldpc-layout " + std::to_string(static_cast<int>(layout)) +
                 " is not an LdpcLayout"};
  if (J < 1 || K < 1 || J > n || K > n)
    return Error{"--ldpc " + std::to_string(J) + "," + std::to_string(K) +
                 ": the block counts J and K must be between 1 and n = " + std::to_string(n)};
  // n is at most 10^8 past the first test, so J K (J, K <= n) fits 64 bits.
  if (n > kMaxLdpcEntries || J * K > kMaxLdpcEntries / n)
    return Error{"--ldpc " + std::to_string(J) + "," + std::to_string(K) + ": H would hold " +
                 (n > kMaxLdpcEntries ? "more than " + std::to_string(kMaxLdpcEntries)
                                      : std::to_string(J * K * n)) +
                 " ones (at most " + std::to_string(kMaxLdpcEntries) + ")"};
  LdpcMatrix h;
  h.n = n;
  h.block_rows = J;
  h.block_columns = K;
  h.rows = J * n;
  h.columns = K * n;
  h.ones = J * K * n;
  h.layout = layout;
  h.multipliers = ldpc_row_multipliers(J, layout);
  return h;
}

void ldpc_entries(const Permutation& p, const LdpcMatrix& shape, std::uint64_t first,
                  std::uint64_t count, std::vector<LdpcEntry>& out) {
  const std::uint64_t n = shape.n, K = shape.block_columns;
  const std::uint64_t end = std::min(shape.ones, first + count);
  std::uint64_t at = first;
  while (at < end) {
    const std::uint64_t block = at / n, j = block / K, k = block % K;
    const std::uint64_t shift = (shape.multipliers[j] % n) * k % n;
    const std::uint64_t block_end = std::min(end, (block + 1) * n);
    for (std::uint64_t i = at - block * n; at < block_end; ++i, ++at)
      out.emplace_back(static_cast<std::uint32_t>(j * n + p[i]),
                       static_cast<std::uint32_t>(k * n + (i + n - shift) % n));
  }
}

Expected<LdpcMatrix> ldpc_matrix(const Permutation& p, std::uint64_t J, std::uint64_t K,
                                 LdpcLayout layout) {
  return errors_as_values([&]() -> Expected<LdpcMatrix> {
    Expected<LdpcMatrix> h = ldpc_shape(p.size(), J, K, layout);
    if (!h.ok()) return h;
    h.value().entries.reserve(h->ones);
    ldpc_entries(p, *h, 0, h->ones, h.value().entries);
    return h;
  });
}

std::uint64_t ldpc_four_cycles(const LdpcMatrix& shape) {
  const std::uint64_t n = shape.n, K = shape.block_columns;
  if (n == 0 || K < 2) return 0;
  // Pairs k1 < k2 < K whose difference is a multiple of g: for each multiple t g <= K - 1, the
  // K - t g pairs at that distance.
  auto pairs = [K](std::uint64_t g) {
    const std::uint64_t t = (K - 1) / g;
    return t * K - g * t * (t + 1) / 2;
  };
  std::uint64_t cycles = 0;
  const std::vector<std::uint64_t>& m = shape.multipliers;
  for (std::size_t j1 = 0; j1 < m.size(); ++j1)
    for (std::size_t j2 = j1 + 1; j2 < m.size(); ++j2) {
      const std::uint64_t d = (m[j1] % n + n - m[j2] % n) % n;
      cycles += n * pairs(n / std::gcd(d, n));  // gcd(0, n) = n: every pair collides
    }
  return cycles;
}

LdpcChecker::LdpcChecker(const LdpcMatrix& shape)
    : row_weight_(shape.rows, 0),
      column_weight_(shape.columns, 0),
      four_cycles_(ldpc_four_cycles(shape)) {}

Expected<LdpcChecker> LdpcChecker::make(const LdpcMatrix& shape) {
  return errors_as_values([&]() -> Expected<LdpcChecker> { return LdpcChecker(shape); });
}

std::uint64_t LdpcChecker::bytes(const LdpcMatrix& shape) {
  return 2 * (shape.rows + shape.columns);
}

void LdpcChecker::add(const LdpcEntry* entries, std::size_t count) {
  constexpr std::uint16_t kTop = std::numeric_limits<std::uint16_t>::max();
  for (std::size_t e = 0; e < count; ++e) {
    const auto [r, c] = entries[e];
    if (r < row_weight_.size()) row_weight_[r] += row_weight_[r] < kTop;
    if (c < column_weight_.size()) column_weight_[c] += column_weight_[c] < kTop;
  }
}

LdpcCheck LdpcChecker::result() const {
  LdpcCheck out;
  if (!row_weight_.empty()) {
    const auto [lo, hi] = std::minmax_element(row_weight_.begin(), row_weight_.end());
    out.min_row_weight = *lo;
    out.max_row_weight = *hi;
  }
  if (!column_weight_.empty()) {
    const auto [lo, hi] = std::minmax_element(column_weight_.begin(), column_weight_.end());
    out.min_column_weight = *lo;
    out.max_column_weight = *hi;
  }
  out.four_cycles = four_cycles_;
  return out;
}

Expected<LdpcCheck> check_ldpc(const LdpcMatrix& h) {
  Expected<LdpcChecker> checker = LdpcChecker::make(h);
  if (!checker.ok()) return checker.error();
  checker.value().add(h.entries.data(), h.entries.size());
  return checker->result();
}

std::uint64_t count_four_cycles_directly(const LdpcMatrix& h) {
  std::vector<std::vector<std::uint32_t>> row_columns(h.rows);
  for (const auto& [r, c] : h.entries) row_columns[r].push_back(c);
  // Every pair of columns a row holds; a pair held by m rows closes m(m-1)/2 four-cycles.
  std::unordered_map<std::uint64_t, std::uint64_t> pairs;
  for (auto& cols : row_columns) {
    std::sort(cols.begin(), cols.end());
    for (std::size_t a = 0; a < cols.size(); ++a)
      for (std::size_t b = a + 1; b < cols.size(); ++b)
        ++pairs[(std::uint64_t{cols[a]} << 32) | cols[b]];
  }
  std::uint64_t cycles = 0;
  for (const auto& [pair, m] : pairs) cycles += m * (m - 1) / 2;
  return cycles;
}

}  // namespace nq
