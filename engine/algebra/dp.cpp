#include "algebra/dp.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace nq {
namespace {

// A closed-line set packed in one word: taken columns in bits 0..n-1, then the diagonals of
// each direction as they cross the next row (the same shifted words as a bitboard search, but
// cut to the board, so that lines which no longer cross the board are forgotten and the
// configurations that differ only in them merge).
struct State {
  std::uint64_t key;
  std::uint64_t count;
};

}  // namespace

Expected<DpResult> count_by_closed_lines(int n) {
  if (n < 1 || n > kMaxDpN)
    return Error{"--algo dp runs for n = 1.." + std::to_string(kMaxDpN) +
                 " (its memory grows exponentially), not " + std::to_string(n) +
                 "; use --algo search"};
  const auto start = std::chrono::steady_clock::now();
  DpResult r;
  r.n = n;
  const std::uint64_t full = (std::uint64_t{1} << n) - 1;
  const int shift_l = n, shift_r = 2 * n;
  std::vector<State> layer{{0, 1}}, next;
  r.peak_states = 1;
  for (int row = 0; row < n; ++row) {
    const bool last = row == n - 1;
    next.clear();
    std::uint64_t total = 0;
    for (const State& s : layer) {
      const std::uint64_t cols = s.key & full, ld = (s.key >> shift_l) & full,
                          rd = s.key >> shift_r;
      std::uint64_t free = ~(cols | ld | rd) & full;
      if (last) {  // every free square of the last row closes a solution
        total += s.count * static_cast<std::uint64_t>(std::popcount(free));
        continue;
      }
      while (free) {
        const std::uint64_t bit = free & (0 - free);
        free ^= bit;
        const std::uint64_t nc = cols | bit, nl = ((ld | bit) << 1) & full, nr = (rd | bit) >> 1;
        next.push_back({nc | nl << shift_l | nr << shift_r, s.count});
      }
    }
    if (last) {
      r.total = total;
      break;
    }
    // Merge equal closed-line sets: sort by key, add up the counts of equal neighbours.
    std::sort(next.begin(), next.end(),
              [](const State& a, const State& b) { return a.key < b.key; });
    std::size_t out = 0;
    for (std::size_t i = 0; i < next.size(); ++i) {
      if (out > 0 && next[out - 1].key == next[i].key) {
        next[out - 1].count += next[i].count;
        ++r.merges;
      } else {
        next[out++] = next[i];
      }
    }
    next.resize(out);
    std::swap(layer, next);
    r.peak_states = std::max<std::uint64_t>(r.peak_states, layer.size());
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace nq
