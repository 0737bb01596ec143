#include "verify.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "huge_pages.hpp"

namespace nq {
namespace {

// The three "used" tables (rows, one diagonal direction, the other) are bitsets: at n = 10^8 they
// take 12.5 + 25 + 25 MB instead of the 1.6 GB of int counters, so most probes stay in cache.
// For parallelism each part owns a contiguous range of every table and scans the whole
// permutation, recording only the indices in its own range: no atomics, no sharing. The scan
// of the permutation is sequential and cheap; the bitset probes are random, so they are
// prefetched kPrefetchAhead columns ahead to overlap their cache misses.
constexpr std::size_t kPrefetchAhead = 24;
constexpr std::size_t kParallelFrom = std::size_t{1} << 20;

struct Clash {
  std::size_t column = 0;
  int kind = 0;  // 1: row out of range, 2: row repeated, 3: diagonal, 4: anti-diagonal
};

// Returns the first clash found in columns [0, n) restricted to table indices in [lo, hi) of
// each table (tables are indexed by row, by i + row, by i - row + n - 1; modular: mod n).
Clash scan_part(const std::uint32_t* rows, std::size_t n, bool modular, std::uint64_t lo,
                std::uint64_t hi, std::uint64_t* row_bits, std::uint64_t* sum_bits,
                std::uint64_t* diff_bits) {
  auto sum_index = [&](std::size_t i) -> std::uint64_t {
    const std::uint64_t s = i + rows[i];
    return modular ? s % n : s;
  };
  auto diff_index = [&](std::size_t i) -> std::uint64_t {
    const std::uint64_t d = i + n - 1 - rows[i];
    return modular ? (d + 1) % n : d;
  };
  auto test_and_set = [&](std::uint64_t* bits, std::uint64_t k) {
    const std::uint64_t local = k - lo;
    const std::uint64_t mask = std::uint64_t{1} << (local & 63);
    std::uint64_t& w = bits[local >> 6];
    const bool seen = (w & mask) != 0;
    w |= mask;
    return seen;
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n && rows[i + kPrefetchAhead] < n) {
      const std::size_t a = i + kPrefetchAhead;
      const std::uint64_t s = sum_index(a), d = diff_index(a), r = rows[a];
      if (s >= lo && s < hi) __builtin_prefetch(&sum_bits[(s - lo) >> 6], 1);
      if (d >= lo && d < hi) __builtin_prefetch(&diff_bits[(d - lo) >> 6], 1);
      if (r >= lo && r < hi) __builtin_prefetch(&row_bits[(r - lo) >> 6], 1);
    }
    const std::uint64_t r = rows[i];
    if (r >= n) return {i, 1};
    if (r >= lo && r < hi && test_and_set(row_bits, r)) return {i, 2};
    const std::uint64_t s = sum_index(i);
    if (s >= lo && s < hi && test_and_set(sum_bits, s)) return {i, 3};
    const std::uint64_t d = diff_index(i);
    if (d >= lo && d < hi && test_and_set(diff_bits, d)) return {i, 4};
  }
  return {n, 0};
}

}  // namespace

bool verify_solution(const std::uint32_t* rows, std::size_t n, bool modular, std::string* problem) {
  if (n == 0) {
    if (problem) *problem = "empty board";
    return false;
  }
  const std::uint64_t table = modular ? n : 2 * n - 1;  // the largest of the three tables
  const int threads = std::max(1, tbb::this_task_arena::max_concurrency());
  const std::size_t parts = n < kParallelFrom ? 1 : static_cast<std::size_t>(std::min(threads, 8));
  // Part boundaries on multiples of 64 so every part owns whole words.
  const std::uint64_t span = ((table + parts - 1) / parts + 63) / 64 * 64;
  const std::size_t words = span / 64 + 1;
  BitWords bits;
  bits.assign(3 * words * parts, 0);
  std::vector<Clash> found(parts);
  auto run = [&](std::size_t p) {
    std::uint64_t* base = bits.data() + 3 * words * p;
    found[p] =
        scan_part(rows, n, modular, p * span, (p + 1) * span, base, base + words, base + 2 * words);
  };
  if (parts == 1)
    run(0);
  else
    tbb::parallel_for(std::size_t{0}, parts, run);
  const Clash first = *std::min_element(found.begin(), found.end(),
                                        [](auto& a, auto& b) { return a.column < b.column; });
  if (first.kind == 0) return true;
  if (problem) {
    const std::string col = "column " + std::to_string(first.column + 1);
    switch (first.kind) {
      case 1:
        *problem = col + ": row " + std::to_string(rows[first.column] + 1ULL) + " is outside 1.." +
                   std::to_string(n);
        break;
      case 2:
        *problem = col + ": row " + std::to_string(rows[first.column] + 1ULL) + " is used twice";
        break;
      case 3:
        *problem = col + ": a queen on the same " +
                   (modular ? std::string("wrapped ") : std::string()) +
                   "anti-diagonal comes earlier";
        break;
      default:
        *problem = col + ": a queen on the same " +
                   (modular ? std::string("wrapped ") : std::string()) + "diagonal comes earlier";
        break;
    }
  }
  return false;
}

}  // namespace nq
