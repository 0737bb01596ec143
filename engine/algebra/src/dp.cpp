#include "engine/algebra/dp.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/threads.hpp"

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

// States per task when a row's states are expanded, and the buckets the next row's states are
// dealt to by a hash of their key: fixed numbers, so that the work is cut the same way at every
// thread count (the results do not depend on the cut in any case: equal keys meet in one
// bucket, and the counts are sums of whole numbers).
constexpr std::size_t kChunk = std::size_t{1} << 14;
constexpr int kBucketBits = 8;
constexpr std::size_t kBuckets = std::size_t{1} << kBucketBits;

std::size_t bucket_of(std::uint64_t key) {
  return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - kBucketBits));
}

struct Lines {
  std::uint64_t cols, ld, rd, free;
};

Lines unpack(std::uint64_t key, int n, std::uint64_t full) {
  const std::uint64_t cols = key & full, ld = (key >> n) & full, rd = key >> (2 * n);
  return {cols, ld, rd, ~(cols | ld | rd) & full};
}

// Calls f(child key) for every state one row down from `key` (a queen on each free square).
template <class F>
void for_each_child(std::uint64_t key, int n, std::uint64_t full, F&& f) {
  const Lines s = unpack(key, n, full);
  for (std::uint64_t free = s.free; free;) {
    const std::uint64_t bit = free & (0 - free);
    free ^= bit;
    const std::uint64_t nc = s.cols | bit, nl = ((s.ld | bit) << 1) & full, nr = (s.rd | bit) >> 1;
    f(nc | nl << n | nr << (2 * n));
  }
}

}  // namespace

Expected<DpResult> count_by_closed_lines(int n, int threads) {
  if (n < 1 || n > kMaxDpN)
    return Error{"--algo dp runs for n = 1.." + std::to_string(kMaxDpN) +
                 " (its memory grows exponentially), not " + std::to_string(n) +
                 "; use --algo search"};
  if (threads < 0) return Error{"threads must be at least 1"};
  const auto start = std::chrono::steady_clock::now();
  DpResult r;
  r.n = n;
  CallArena arena(threads);  // within what the host allows TBB (base/threads.hpp)
  r.threads = arena.threads();
  const std::uint64_t full = (std::uint64_t{1} << n) - 1;
  std::vector<State> layer{{0, 1}};
  r.peak_states = 1;
  arena.execute([&] {
    for (int row = 0; row < n; ++row) {
      const std::size_t chunks = (layer.size() + kChunk - 1) / kChunk;
      auto chunk_range = [&](std::size_t c) {
        return std::pair{c * kChunk, std::min(layer.size(), (c + 1) * kChunk)};
      };
      if (row == n - 1) {  // every free square of the last row closes a solution
        r.total = tbb::parallel_reduce(
            tbb::blocked_range<std::size_t>(0, layer.size(), kChunk), std::uint64_t{0},
            [&](const tbb::blocked_range<std::size_t>& range, std::uint64_t sum) {
              for (std::size_t i = range.begin(); i != range.end(); ++i)
                sum += layer[i].count * static_cast<std::uint64_t>(
                                            std::popcount(unpack(layer[i].key, n, full).free));
              return sum;
            },
            std::plus<>());
        break;
      }
      // The row's states are split into chunks across tasks, each of which deals its states'
      // children to the buckets: first counted, per chunk and bucket, then placed, every bucket
      // in one piece (chunk by chunk within it).
      std::vector<std::size_t> place(chunks * kBuckets, 0);  // [chunk][bucket]
      tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
        const auto [lo, hi] = chunk_range(c);
        std::size_t* counts = place.data() + c * kBuckets;
        for (std::size_t i = lo; i < hi; ++i)
          for_each_child(layer[i].key, n, full, [&](std::uint64_t k) { ++counts[bucket_of(k)]; });
      });
      std::vector<std::size_t> bucket_start(kBuckets + 1, 0);
      std::size_t children = 0;
      for (std::size_t b = 0; b < kBuckets; ++b) {
        bucket_start[b] = children;
        for (std::size_t c = 0; c < chunks; ++c) {
          const std::size_t count = place[c * kBuckets + b];
          place[c * kBuckets + b] = children;
          children += count;
        }
      }
      bucket_start[kBuckets] = children;
      // Left uninitialised (State is trivial): every slot is written below.
      const std::unique_ptr<State[]> next(new State[children]);
      tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
        const auto [lo, hi] = chunk_range(c);
        std::size_t* cursor = place.data() + c * kBuckets;
        for (std::size_t i = lo; i < hi; ++i)
          for_each_child(layer[i].key, n, full, [&](std::uint64_t k) {
            next[cursor[bucket_of(k)]++] = {k, layer[i].count};
          });
      });
      // Merge equal closed-line sets, bucket by bucket (equal keys share a bucket): sort by
      // key, add up the counts of equal neighbours.
      std::vector<std::size_t> kept(kBuckets + 1, 0), merged(kBuckets, 0);
      tbb::parallel_for(std::size_t{0}, kBuckets, [&](std::size_t b) {
        State* first = next.get() + bucket_start[b];
        const std::size_t size = bucket_start[b + 1] - bucket_start[b];
        std::sort(first, first + size,
                  [](const State& x, const State& y) { return x.key < y.key; });
        std::size_t out = 0;
        for (std::size_t i = 0; i < size; ++i) {
          if (out > 0 && first[out - 1].key == first[i].key)
            first[out - 1].count += first[i].count;
          else
            first[out++] = first[i];
        }
        kept[b + 1] = out;
        merged[b] = size - out;
      });
      for (std::size_t b = 0; b < kBuckets; ++b) {
        kept[b + 1] += kept[b];
        r.merges += merged[b];
      }
      layer.resize(kept[kBuckets]);
      tbb::parallel_for(std::size_t{0}, kBuckets, [&](std::size_t b) {
        std::copy_n(next.get() + bucket_start[b], kept[b + 1] - kept[b], layer.begin() + kept[b]);
      });
      r.peak_states = std::max<std::uint64_t>(r.peak_states, layer.size());
    }
  });
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace nq
