#include "engine/solve/verify.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "base/huge_pages.hpp"

namespace nq {
namespace {

// The three "used" tables (rows, one diagonal direction, the other) are bitsets: at n = 10^8 they
// take 12.5 + 25 + 25 MB instead of the 1.6 GB of int counters, so more probes hit the cache.
// The bitset probes are random, so they are prefetched kPrefetchAhead columns ahead.
constexpr std::size_t kPrefetchAhead = 24;
// From this n on, the columns are split into parts checked in parallel, each part with its own
// tables; a final pass over the tables finds the clashes between parts (a bit set in two
// parts' tables). Splitting the index space instead (each thread scans every column and keeps
// the indices in its range) cost 4x the CPU time at n = 10^8 (the range tests are
// unpredictable branches), and atomic fetch_or over shared tables was slower too. The cost is
// memory: 5 bits per column per part (625 MB a part at n = 10^9), so at most kMaxParts.
constexpr std::size_t kSplitFrom = std::size_t{1} << 21;
constexpr int kMaxParts = 4;

struct Clash {
  std::size_t column = 0;
  int kind = 0;  // 1: row out of range, 2: row repeated, 3: diagonal, 4: anti-diagonal
};

// The tables of one check: bits [0, n) of rows, [0, 2n - 1) (modular: [0, n)) of each direction.
struct Tables {
  std::size_t row_words, diagonal_words;
  ZeroedWords bits;
  Tables(std::size_t n, bool modular)
      : row_words(n / 64 + 1),
        diagonal_words((modular ? n : 2 * n - 1) / 64 + 1),
        bits(row_words + 2 * diagonal_words) {}
  std::uint64_t* rows() { return bits.data(); }
  std::uint64_t* sums() { return bits.data() + row_words; }
  std::uint64_t* diffs() { return bits.data() + row_words + diagonal_words; }
};

// Returns the first clash among columns [begin, end): the first column whose row, or one of whose
// diagonals (indexed by i + row and i - row + n - 1; modular: both mod n), an earlier column of
// the range already used. {end, 0} if there is none.
Clash first_clash(const std::uint32_t* rows, std::size_t begin, std::size_t end, std::size_t n,
                  bool modular, Tables& t) {
  std::uint64_t* row_bits = t.rows();
  std::uint64_t* sum_bits = t.sums();
  std::uint64_t* diff_bits = t.diffs();
  auto sum_index = [&](std::size_t i) -> std::uint64_t {
    const std::uint64_t s = i + rows[i];
    return modular ? s % n : s;
  };
  auto diff_index = [&](std::size_t i) -> std::uint64_t {
    const std::uint64_t d = i + n - 1 - rows[i];
    return modular ? (d + 1) % n : d;
  };
  auto test_and_set = [](std::uint64_t* bits, std::uint64_t k) {
    const std::uint64_t mask = std::uint64_t{1} << (k & 63);
    std::uint64_t& w = bits[k >> 6];
    const bool seen = (w & mask) != 0;
    w |= mask;
    return seen;
  };
  for (std::size_t i = begin; i < end; ++i) {
    if (i + kPrefetchAhead < end && rows[i + kPrefetchAhead] < n) {
      const std::size_t a = i + kPrefetchAhead;
      __builtin_prefetch(&row_bits[rows[a] >> 6], 1);
      __builtin_prefetch(&sum_bits[sum_index(a) >> 6], 1);
      __builtin_prefetch(&diff_bits[diff_index(a) >> 6], 1);
    }
    if (rows[i] >= n) return {i, 1};
    if (test_and_set(row_bits, rows[i])) return {i, 2};
    if (test_and_set(sum_bits, sum_index(i))) return {i, 3};
    if (test_and_set(diff_bits, diff_index(i))) return {i, 4};
  }
  return {end, 0};
}

// True when no part has a clash inside it and no row or diagonal is used by two parts.
bool clash_free_in_parts(const std::uint32_t* rows, std::size_t n, bool modular, int parts) {
  std::vector<std::unique_ptr<Tables>> tables(static_cast<std::size_t>(parts));
  std::atomic<bool> clash{false};
  tbb::parallel_for(0, parts, [&](int p) {
    const auto k = static_cast<std::size_t>(p);
    tables[k] = std::make_unique<Tables>(n, modular);
    const std::size_t begin = n * k / static_cast<std::size_t>(parts);
    const std::size_t end = n * (k + 1) / static_cast<std::size_t>(parts);
    if (first_clash(rows, begin, end, n, modular, *tables[k]).kind != 0) clash = true;
  });
  if (clash) return false;
  // A bit set in two parts' tables is a clash between them.
  const std::size_t words = tables[0]->bits.size();
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, words, std::size_t{1} << 16),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      std::uint64_t twice = 0;
                      for (std::size_t w = range.begin(); w != range.end(); ++w) {
                        std::uint64_t seen = 0;
                        for (const auto& t : tables) {
                          twice |= seen & t->bits[w];
                          seen |= t->bits[w];
                        }
                      }
                      if (twice) clash = true;
                    });
  return !clash;
}

}  // namespace

bool verify_solution(const std::uint32_t* rows, std::size_t n, bool modular, std::string* problem) {
  if (n == 0) {
    if (problem) *problem = "empty board";
    return false;
  }
  const int parts =
      n >= kSplitFrom ? std::min(kMaxParts, tbb::this_task_arena::max_concurrency()) : 1;
  // The parallel check says only yes or no; a rejected solution is checked again serially,
  // which names the first clash (the same message at every thread count).
  if (parts > 1 && clash_free_in_parts(rows, n, modular, parts)) return true;
  Tables tables(n, modular);
  const Clash first = first_clash(rows, 0, n, n, modular, tables);
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
