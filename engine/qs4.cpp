// The local searches of SPEC 3.5, one attempt (one seed) at a time.
//
// QS4 (R. Sosic and J. Gu, "Efficient local search with conflict minimization: a case study of
// the n-queens problem", IEEE TKDE 6(5), 1994) has two phases:
//   start-up: place queens column by column on random free rows, keeping a queen only when both
//             of its diagonals are free, until about 3.08 n tries are spent; the last c queens
//             go to the remaining rows at random;
//   repair:   while some queen is attacked, swap it with a random queen and keep the swap only
//             if the number of collisions drops; restart after a step limit.
// With per-diagonal counters a swap's collision change costs O(1), so the repair is cheap: at
// large n the start-up is nearly all the work, and it is bound by memory latency (every try
// reads a random row and two random diagonals of arrays far larger than the caches).
//
// qs4_attempt attacks that latency (the textbook version, qs4_plain_attempt, stays as the
// baseline for scripts/bench-solve):
//   - Blocks and tiles. The columns are cut into M blocks of kBlockSize, and the rows into M
//     row blocks of the same sizes. An M-queens solution (found by this same QS4, recursively)
//     deals the row blocks to the column blocks, so that no two blocks sit on one block
//     diagonal. A tile is kBlocksPerTile consecutive column blocks with the row blocks dealt
//     to them; during the start-up a tile's columns draw rows only from the tile's rows. A
//     tile touches its own rows (64 KiB) and kBlocksPerTile short windows of each diagonal
//     direction, instead of random probes into hundreds of MB. (With one row block per column
//     block, about 8% of the columns fail inside their block: they cannot escape crowded
//     diagonals. With 32 blocks per tile under 1% do.)
//   - The diagonals are bitsets (one bit, not one int, per diagonal: 32x less memory).
//   - Tries go in batches of kTryBatch independent candidates whose loads overlap.
//   - Tiles whose diagonal windows share a 64-bit word are in conflict; a greedy colouring of
//     that interval graph gives groups of tiles that touch disjoint words, and each group is
//     placed in parallel (tbb::parallel_for), with no atomics. Every tile draws from its own
//     random stream, so the result does not depend on the number of threads.
//   - Columns a tile cannot fill within kTriesPerColumn tries go, with the rows left over, to
//     one global QS4 pass over the leftovers; what that pass cannot place is the "last c
//     queens" of QS4, placed at random and repaired.
//   - The repair keeps the bitsets and a small hash map for the few diagonals holding more
//     than one queen (SparseCounts), so the start-up's memory is reused without conversion.
// Memory: 4 bytes per column for the permutation and 4 bits per column for the diagonals.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "local_search.hpp"

namespace nq::detail {

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t k) {
  auto splitmix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return splitmix(seed ^ splitmix(k + 0x632be59bd9b4e019ULL));
}

bool StopSignal::should_stop() const {
  if (cancel && cancel->load(std::memory_order_relaxed)) return true;
  if (winner && winner->load(std::memory_order_relaxed) < attempt) return true;
  if (has_deadline && std::chrono::steady_clock::now() >= deadline) {
    if (timed_out) timed_out->store(true, std::memory_order_relaxed);
    return true;
  }
  return false;
}

std::uint64_t default_swap_max_tries(std::uint32_t n) {
  // SPEC 3.5 names L = n^2 or 3n. n^2 lets small boards escape plateaus; it is capped so that
  // a failed attempt at large n does not run for hours, and never below 3n.
  const std::uint64_t nn = std::uint64_t{n} * n;
  return std::max<std::uint64_t>(3ULL * n, std::min<std::uint64_t>(nn, 10'000'000ULL));
}

namespace {

constexpr std::uint32_t kBlockSize = 512;  // columns (and rows) per start-up block
constexpr std::uint32_t kBlockedFrom = 4 * kBlockSize;
constexpr std::uint32_t kBlocksPerTile = 32;  // row blocks a tile draws from
constexpr int kTryBatch = 4;                  // candidates tried together
constexpr int kTriesPerColumn = 32;           // inside a tile
constexpr int kLeftoverBatch = 8;
constexpr int kLeftoverTriesPerColumn = 256;  // the global pass over the leftovers
constexpr std::uint64_t kPollEvery = 4096;    // steps between StopSignal polls

// Diagonal indices. Both directions live in one index space: "sum" diagonals (i + row) in
// [0, span) and "difference" diagonals (i - row + n - 1) in [span, 2 span), span a multiple of
// 64 so that no bitset word holds both. Modular boards wrap: both taken mod n.
struct Board {
  std::uint32_t n = 0;
  bool toroidal = false;
  std::uint64_t span = 0;

  Board(std::uint32_t size, bool wrap) : n(size), toroidal(wrap) {
    const std::uint64_t per_direction = wrap ? n : 2ULL * n - 1;
    span = (per_direction + 63) / 64 * 64;
  }
  std::uint64_t sum(std::uint64_t i, std::uint64_t row) const {
    return toroidal ? (i + row) % n : i + row;
  }
  std::uint64_t diff(std::uint64_t i, std::uint64_t row) const {
    return span + (toroidal ? (i + n - row) % n : i + n - 1 - row);
  }
  std::uint64_t diagonals() const { return 2 * span; }
};

// One counter per diagonal: the textbook layout (32-bit counters, 16 bytes per column).
struct ArrayCounts {
  std::vector<std::uint32_t> count;
  explicit ArrayCounts(std::uint64_t diagonals) : count(diagonals, 0) {}
  std::uint32_t get(std::uint64_t d) const { return count[d]; }
  std::uint32_t inc(std::uint64_t d) { return count[d]++; }  // returns the count before
  std::uint32_t dec(std::uint64_t d) { return count[d]--; }
};

// A bit per diagonal plus a hash map for the counts above one: after the QS4 start-up only a
// handful of diagonals hold two queens, so this is a bitset in all but name. Invariant: a
// diagonal is in `extra` only if its bit is set, and extra[d] = count - 1.
struct SparseCounts {
  BitWords bits;
  std::unordered_map<std::uint64_t, std::uint32_t> extra;

  bool occupied(std::uint64_t d) const { return (bits[d >> 6] >> (d & 63)) & 1; }
  std::uint32_t get(std::uint64_t d) const {
    if (!occupied(d)) return 0;
    if (extra.empty()) return 1;
    const auto it = extra.find(d);
    return it == extra.end() ? 1 : 1 + it->second;
  }
  std::uint32_t inc(std::uint64_t d) {
    const std::uint32_t before = get(d);
    if (before == 0)
      bits[d >> 6] |= std::uint64_t{1} << (d & 63);
    else
      ++extra[d];
    return before;
  }
  std::uint32_t dec(std::uint64_t d) {
    const std::uint32_t before = get(d);
    if (before >= 2) {
      auto it = extra.find(d);
      if (--it->second == 0) extra.erase(it);
    } else {
      bits[d >> 6] &= ~(std::uint64_t{1} << (d & 63));
    }
    return before;
  }
};

// The repair phase, shared by every method: collisions = sum over diagonals of (count - 1).
template <class Counts>
struct Repair {
  const Board& board;
  std::uint32_t* rows;
  Counts& counts;
  Rng& rng;
  std::int64_t collisions = 0;

  bool attacked(std::uint32_t i) const {
    return counts.get(board.sum(i, rows[i])) > 1 || counts.get(board.diff(i, rows[i])) > 1;
  }
  // Puts the queen of column i (row rows[i]) on the board.
  void place(std::uint32_t i) {
    collisions += (counts.inc(board.sum(i, rows[i])) > 0);
    collisions += (counts.inc(board.diff(i, rows[i])) > 0);
  }
  // Swaps the rows of columns i and j if that lowers the collisions; else leaves all as it was.
  // Applying and undoing is simpler than special-casing the diagonals the four squares share.
  bool try_swap(std::uint32_t i, std::uint32_t j) {
    const std::uint32_t a = rows[i], b = rows[j];
    const std::uint64_t old_d[4] = {board.sum(i, a), board.diff(i, a), board.sum(j, b),
                                    board.diff(j, b)};
    const std::uint64_t new_d[4] = {board.sum(i, b), board.diff(i, b), board.sum(j, a),
                                    board.diff(j, a)};
    int delta = 0;
    for (std::uint64_t d : old_d) delta -= (counts.dec(d) > 1);
    for (std::uint64_t d : new_d) delta += (counts.inc(d) > 0);
    if (delta < 0) {
      rows[i] = b;
      rows[j] = a;
      collisions += delta;
      return true;
    }
    for (std::uint64_t d : new_d) counts.dec(d);
    for (std::uint64_t d : old_d) counts.inc(d);
    return false;
  }

  // Step 3 of QS4: each attacked queen on the work list gets one random swap partner per
  // pass. A queen that stays attacked, and a partner that becomes attacked, go on the next
  // pass's list. A third queen that a move uncovers or hits is not known by name; when the list
  // runs dry with collisions left, one O(n) scan finds them (rare: `rescans`).
  AttemptOutcome run(std::vector<std::uint32_t> work, std::uint64_t step_limit,
                     const StopSignal& stop, AttemptStats& stats) {
    const std::uint32_t n = board.n;
    std::vector<std::uint32_t> next;
    std::uint64_t steps = 0;
    while (collisions > 0) {
      if (work.empty()) {
        ++stats.rescans;
        for (std::uint32_t i = 0; i < n; ++i)
          if (attacked(i)) work.push_back(i);
      }
      next.clear();
      for (std::uint32_t i : work) {
        if (!attacked(i)) continue;
        std::uint32_t j = rng.below(n - 1);
        j += (j >= i);
        if (try_swap(i, j) && attacked(j)) next.push_back(j);
        if (attacked(i)) next.push_back(i);
        if (collisions == 0) break;
        ++steps;
        if (steps > step_limit) {
          stats.swaps_tried += steps;
          return AttemptOutcome::failed;
        }
        if (steps % kPollEvery == 0 && stop.should_stop()) {
          stats.swaps_tried += steps;
          return AttemptOutcome::stopped;
        }
      }
      std::sort(next.begin(), next.end());
      next.erase(std::unique(next.begin(), next.end()), next.end());
      work.swap(next);
    }
    stats.swaps_tried += steps;
    return AttemptOutcome::solved;
  }
};

// "A small multiple of n" (SPEC 3.5), with a floor for small boards where restarts are cheap.
std::uint64_t repair_step_limit(std::uint32_t n) {
  return 8ULL * n + 1000;
}

// Fisher-Yates: a uniformly random permutation of 0..n-1.
void random_permutation(Permutation& rows, std::uint32_t n, Rng& rng) {
  rows.resize(n);
  std::iota(rows.begin(), rows.end(), 0u);
  for (std::uint32_t i = 0; i + 1 < n; ++i) std::swap(rows[i], rows[i + rng.below(n - i)]);
}

// The start-up plan. Column block b covers columns [col_start[b], +size[b]) and owns the rows
// [row_start[b], +size[b]). A tile is kBlocksPerTile consecutive column blocks together with
// the row blocks they own: a tile's columns draw from all of its rows, which lie in
// kBlocksPerTile places on the board, so a column can pick among several diagonal windows and
// avoid the crowded ones (with one row block per column block about 8% of the columns fail
// inside their block; with 16, about 1.5%), while a tile still touches only a few KiB.
struct BlockPlan {
  std::vector<std::uint32_t> col_start, row_start, size;
  std::uint32_t blocks_per_tile = 1;
  std::vector<std::vector<std::uint32_t>> colour_groups;  // tiles placed together
  std::uint32_t tiles() const {
    return static_cast<std::uint32_t>((size.size() + blocks_per_tile - 1) / blocks_per_tile);
  }
  std::uint32_t first_block(std::uint32_t tile) const { return tile * blocks_per_tile; }
  std::uint32_t end_block(std::uint32_t tile) const {
    return std::min<std::uint32_t>(static_cast<std::uint32_t>(size.size()),
                                   (tile + 1) * blocks_per_tile);
  }
};

BlockPlan plan_blocks(const Board& board, Rng& rng) {
  const std::uint32_t n = board.n;
  const std::uint32_t m = n >= kBlockedFrom ? n / kBlockSize : 1;
  BlockPlan plan;
  // At least four tiles, so that the colour groups have members to run in parallel.
  plan.blocks_per_tile = std::max(1u, std::min(kBlocksPerTile, m / 4));
  plan.col_start.resize(m);
  plan.row_start.resize(m);
  plan.size.resize(m);
  const std::uint32_t q = n / m, r = n % m;
  std::uint32_t at = 0;
  for (std::uint32_t b = 0; b < m; ++b) {
    plan.size[b] = q + (b < r);
    plan.col_start[b] = at;
    at += plan.size[b];
  }
  // Which row block goes with which column block. A uniformly random deal gives clumps: blocks
  // with equal b + sigma(b) (or b - sigma(b)) want the same diagonals. An m-queens solution as
  // the deal (found by this same QS4, recursively: m = n / 8192 is small) puts at most one
  // block on each block diagonal.
  std::vector<std::uint32_t> order(m);  // order[k]: the column block that gets row block k
  if (m >= 4) {
    Permutation deal;
    const StopSignal never;
    for (std::uint64_t k = 0;; ++k) {
      AttemptStats ignored;
      const AttemptOptions sub{m, mix_seed(rng.next(), k), false, false, 0};
      if (qs4_attempt(sub, deal, never, ignored) == AttemptOutcome::solved) break;
    }
    for (std::uint32_t b = 0; b < m; ++b) order[deal[b]] = b;
  } else {
    std::iota(order.begin(), order.end(), 0u);
  }
  at = 0;
  for (std::uint32_t b : order) {
    plan.row_start[b] = at;
    at += plan.size[b];
  }
  const std::uint32_t tiles = plan.tiles();
  if (tiles == 1) {
    plan.colour_groups = {{0}};
    return plan;
  }
  // The bitset words each tile touches: per direction, one interval per row block.
  struct Interval {
    std::uint64_t first, last;
    std::uint32_t tile;
  };
  std::vector<Interval> spans[2];
  std::uint64_t longest = 1;
  for (std::uint32_t t = 0; t < tiles; ++t) {
    const std::uint64_t c0 = plan.col_start[plan.first_block(t)];
    const std::uint64_t c1 = c0 - 1 + [&] {
      std::uint64_t w = 0;
      for (std::uint32_t b = plan.first_block(t); b < plan.end_block(t); ++b) w += plan.size[b];
      return w;
    }();
    for (std::uint32_t b = plan.first_block(t); b < plan.end_block(t); ++b) {
      const std::uint64_t r0 = plan.row_start[b], r1 = r0 + plan.size[b] - 1;
      const Interval sum{board.sum(c0, r0) >> 6, board.sum(c1, r1) >> 6, t};
      const Interval diff{board.diff(c0, r1) >> 6, board.diff(c1, r0) >> 6, t};
      spans[0].push_back(sum);
      spans[1].push_back(diff);
      longest = std::max({longest, sum.last - sum.first + 1, diff.last - diff.first + 1});
    }
  }
  // Buckets of width `longest` by first word: overlapping intervals lie in adjacent buckets.
  const std::uint64_t buckets = board.diagonals() / 64 / longest + 2;
  std::vector<std::vector<std::uint32_t>> bucket[2];
  for (int dir = 0; dir < 2; ++dir) {
    bucket[dir].resize(buckets);
    for (std::uint32_t k = 0; k < spans[dir].size(); ++k)
      bucket[dir][spans[dir][k].first / longest].push_back(k);
  }
  // Greedy colouring in tile order: the smallest colour no coloured neighbour has.
  std::vector<int> colour(tiles, -1);
  std::vector<char> taken;
  for (std::uint32_t t = 0; t < tiles; ++t) {
    taken.assign(taken.size(), 0);
    const std::uint32_t k0 = (plan.first_block(t) - plan.first_block(0));
    const std::uint32_t k1 = k0 + (plan.end_block(t) - plan.first_block(t));
    for (int dir = 0; dir < 2; ++dir)
      for (std::uint32_t k = k0; k < k1; ++k) {
        const Interval& mine = spans[dir][k];
        const std::uint64_t home = mine.first / longest;
        for (std::uint64_t h = (home == 0 ? 0 : home - 1); h <= home + 1 && h < buckets; ++h)
          for (std::uint32_t other : bucket[dir][h]) {
            const Interval& it = spans[dir][other];
            if (colour[it.tile] < 0 || it.first > mine.last || mine.first > it.last) continue;
            if (static_cast<std::size_t>(colour[it.tile]) >= taken.size())
              taken.resize(colour[it.tile] + 1, 0);
            taken[colour[it.tile]] = 1;
          }
      }
    int c = 0;
    while (c < static_cast<int>(taken.size()) && taken[c]) ++c;
    colour[t] = c;
    if (static_cast<std::size_t>(c) >= plan.colour_groups.size()) plan.colour_groups.resize(c + 1);
    plan.colour_groups[c].push_back(t);
  }
  return plan;
}

inline bool test_bit(const std::uint64_t* bits, std::uint64_t d) {
  return (bits[d >> 6] >> (d & 63)) & 1;
}
inline void set_bit(std::uint64_t* bits, std::uint64_t d) {
  bits[d >> 6] |= std::uint64_t{1} << (d & 63);
}

// Places tile t conflict-free as far as kTriesPerColumn allows (Fisher-Yates over the tile's
// rows: the free rows are always free_rows[placed..]). Unfilled columns and unused rows are
// the tile's leftovers.
void place_tile(const Board& board, const BlockPlan& plan, std::uint32_t t, std::uint64_t seed,
                std::uint32_t* rows, std::uint64_t* bits, std::vector<std::uint32_t>& free_rows,
                std::vector<std::uint32_t>& left_cols, std::vector<std::uint32_t>& left_rows) {
  free_rows.clear();
  for (std::uint32_t b = plan.first_block(t); b < plan.end_block(t); ++b)
    for (std::uint32_t k = 0; k < plan.size[b]; ++k) free_rows.push_back(plan.row_start[b] + k);
  const std::uint32_t c0 = plan.col_start[plan.first_block(t)];
  const std::uint32_t size = static_cast<std::uint32_t>(free_rows.size());
  Rng rng(mix_seed(seed, t + 1ULL));
  std::uint32_t placed = 0;
  // Tries go in rounds of kTryBatch independent candidates: their loads (a free row, then its
  // two diagonal bits) are issued together and overlap their cache misses, instead of one
  // dependent miss chain per try. The first free candidate of a round wins, so the outcome
  // is the same function of the random stream as one-at-a-time tries would be in that order.
  for (std::uint32_t k = 0; k < size; ++k) {
    const std::uint32_t c = c0 + k;
    bool ok = false;
    for (int round = 0; round < kTriesPerColumn / kTryBatch && !ok; ++round) {
      std::uint32_t j[kTryBatch], row[kTryBatch];
      bool free[kTryBatch];
      for (int q = 0; q < kTryBatch; ++q) j[q] = placed + rng.below(size - placed);
      for (int q = 0; q < kTryBatch; ++q) row[q] = free_rows[j[q]];
      for (int q = 0; q < kTryBatch; ++q)
        free[q] = !test_bit(bits, board.sum(c, row[q])) & !test_bit(bits, board.diff(c, row[q]));
      for (int q = 0; q < kTryBatch; ++q) {
        if (!free[q]) continue;
        set_bit(bits, board.sum(c, row[q]));
        set_bit(bits, board.diff(c, row[q]));
        free_rows[j[q]] = free_rows[placed];
        free_rows[placed++] = row[q];
        rows[c] = row[q];
        ok = true;
        break;
      }
    }
    if (!ok) left_cols.push_back(c);
  }
  left_rows.insert(left_rows.end(), free_rows.begin() + placed, free_rows.end());
}

}  // namespace

AttemptOutcome qs4_attempt(const AttemptOptions& o, Permutation& rows, const StopSignal& stop,
                           AttemptStats& stats) {
  const std::uint32_t n = o.n;
  const Board board(n, o.modular);
  Rng rng(o.seed);
  rows.resize(n);
  SparseCounts counts;
  counts.bits.assign(board.diagonals() / 64, 0);
  const BlockPlan plan = plan_blocks(board, rng);
  const std::size_t m = plan.tiles();
  std::vector<std::vector<std::uint32_t>> left_cols(m), left_rows(m);

  // Phase 1: the blocks, one colour group after another, each group in parallel.
  for (const auto& group : plan.colour_groups) {
    auto body = [&](const tbb::blocked_range<std::size_t>& range) {
      thread_local std::vector<std::uint32_t> free_rows;
      for (std::size_t g = range.begin(); g != range.end(); ++g) {
        const std::uint32_t b = group[g];
        place_tile(board, plan, b, o.seed, rows.data(), counts.bits.data(), free_rows, left_cols[b],
                   left_rows[b]);
      }
    };
    if (o.parallel_startup && group.size() > 1)
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, group.size(), 1), body);
    else
      body(tbb::blocked_range<std::size_t>(0, group.size()));
    if (stop.should_stop()) return AttemptOutcome::stopped;
  }

  // Phase 2: one global QS4 pass over the leftovers, in block order (deterministic).
  std::vector<std::uint32_t> cols, pool;
  for (std::size_t b = 0; b < m; ++b) {
    cols.insert(cols.end(), left_cols[b].begin(), left_cols[b].end());
    pool.insert(pool.end(), left_rows[b].begin(), left_rows[b].end());
  }
  stats.leftover = cols.size();
  std::vector<std::uint32_t> last;  // QS4's "last c queens"
  const std::uint32_t total = static_cast<std::uint32_t>(pool.size());
  std::uint32_t placed = 0;
  std::uint64_t* bits = counts.bits.data();
  // These tries are random probes into the whole board (the pool and both bitsets), so they
  // go in batches of kLeftoverBatch independent candidates, prefetched before they are read:
  // the cache misses of a batch overlap instead of following one another.
  for (std::size_t k = 0; k < cols.size(); ++k) {
    if (k % kPollEvery == kPollEvery - 1 && stop.should_stop()) return AttemptOutcome::stopped;
    const std::uint32_t c = cols[k];
    bool ok = false;
    for (int round = 0; round < kLeftoverTriesPerColumn / kLeftoverBatch && !ok; ++round) {
      if (placed == total) break;
      std::uint32_t j[kLeftoverBatch], row[kLeftoverBatch];
      std::uint64_t sum[kLeftoverBatch], diff[kLeftoverBatch];
      for (int q = 0; q < kLeftoverBatch; ++q) {
        j[q] = placed + rng.below(total - placed);
        __builtin_prefetch(&pool[j[q]]);
      }
      for (int q = 0; q < kLeftoverBatch; ++q) {
        row[q] = pool[j[q]];
        sum[q] = board.sum(c, row[q]);
        diff[q] = board.diff(c, row[q]);
        __builtin_prefetch(&bits[sum[q] >> 6]);
        __builtin_prefetch(&bits[diff[q] >> 6]);
      }
      for (int q = 0; q < kLeftoverBatch; ++q) {
        if (test_bit(bits, sum[q]) || test_bit(bits, diff[q])) continue;
        set_bit(bits, sum[q]);
        set_bit(bits, diff[q]);
        pool[j[q]] = pool[placed];
        pool[placed++] = row[q];
        rows[c] = row[q];
        ok = true;
        break;
      }
    }
    if (!ok) last.push_back(c);
  }
  stats.conflict_free = n - last.size();
  stats.repaired = last.size();

  // Phase 3: the last queens on the remaining rows at random, then the QS4 repair.
  Repair<SparseCounts> repair{board, rows.data(), counts, rng};
  for (std::uint32_t c : last) {
    const std::uint32_t j = placed + rng.below(total - placed);
    std::swap(pool[j], pool[placed]);
    rows[c] = pool[placed++];
    repair.place(c);
  }
  return repair.run(std::move(last), repair_step_limit(n), stop, stats);
}

AttemptOutcome qs4_plain_attempt(const AttemptOptions& o, Permutation& rows, const StopSignal& stop,
                                 AttemptStats& stats) {
  // The textbook QS4, as the public programs write it: one pass of Fisher-Yates over the whole
  // permutation with int counters per diagonal, every try a random access.
  const std::uint32_t n = o.n;
  const Board board(n, o.modular);
  Rng rng(o.seed);
  rows.resize(n);
  std::iota(rows.begin(), rows.end(), 0u);
  ArrayCounts counts(board.diagonals());
  // c, the queens left to the random phase: Sosic & Gu use a few dozen for large n.
  const std::uint32_t c = n < 200 ? n / 4 : 50;
  const std::uint64_t max_tries = static_cast<std::uint64_t>(3.08 * n);
  std::uint32_t placed = 0;
  for (std::uint64_t t = 0; t < max_tries && placed < n - c; ++t) {
    const std::uint32_t j = placed + rng.below(n - placed);
    const std::uint32_t row = rows[j];
    const std::uint64_t s = board.sum(placed, row), d = board.diff(placed, row);
    if (counts.get(s) != 0 || counts.get(d) != 0) continue;
    counts.inc(s);
    counts.inc(d);
    rows[j] = rows[placed];
    rows[placed++] = row;
  }
  stats.conflict_free = placed;
  stats.repaired = n - placed;
  Repair<ArrayCounts> repair{board, rows.data(), counts, rng};
  std::vector<std::uint32_t> last;
  for (std::uint32_t i = placed; i < n; ++i) {
    std::swap(rows[i], rows[i + rng.below(n - i)]);
    repair.place(i);
    last.push_back(i);
  }
  return repair.run(std::move(last), repair_step_limit(n), stop, stats);
}

AttemptOutcome minconflict_attempt(const AttemptOptions& o, Permutation& rows,
                                   const StopSignal& stop, AttemptStats& stats) {
  // No clever start: a random permutation, then the same attacked-queen swaps.
  const Board board(o.n, o.modular);
  Rng rng(o.seed);
  random_permutation(rows, o.n, rng);
  ArrayCounts counts(board.diagonals());
  Repair<ArrayCounts> repair{board, rows.data(), counts, rng};
  for (std::uint32_t i = 0; i < o.n; ++i) repair.place(i);
  std::vector<std::uint32_t> attacked;
  for (std::uint32_t i = 0; i < o.n; ++i)
    if (repair.attacked(i)) attacked.push_back(i);
  stats.conflict_free = o.n - attacked.size();
  stats.repaired = attacked.size();
  return repair.run(std::move(attacked), repair_step_limit(o.n), stop, stats);
}

AttemptOutcome swap_attempt(const AttemptOptions& o, Permutation& rows, const StopSignal& stop,
                            AttemptStats& stats) {
  // Random-pair swap hill climbing: any pair, kept if the collisions drop; give up after L
  // consecutive failed tries.
  const std::uint32_t n = o.n;
  const Board board(n, o.modular);
  Rng rng(o.seed);
  random_permutation(rows, n, rng);
  ArrayCounts counts(board.diagonals());
  Repair<ArrayCounts> repair{board, rows.data(), counts, rng};
  for (std::uint32_t i = 0; i < n; ++i) repair.place(i);
  const std::uint64_t limit = o.max_tries ? o.max_tries : default_swap_max_tries(n);
  std::uint64_t failed = 0, steps = 0;
  while (repair.collisions > 0) {
    const std::uint32_t i = rng.below(n);
    std::uint32_t j = rng.below(n - 1);
    j += (j >= i);
    if (repair.try_swap(i, j))
      failed = 0;
    else if (++failed >= limit) {
      stats.swaps_tried += steps;
      return AttemptOutcome::failed;
    }
    if (++steps % kPollEvery == 0 && stop.should_stop()) {
      stats.swaps_tried += steps;
      return AttemptOutcome::stopped;
    }
  }
  stats.swaps_tried += steps;
  return AttemptOutcome::solved;
}

void modular_construction(std::uint32_t n, std::uint64_t seed, Permutation& rows) {
  auto gcd = [](std::uint64_t a, std::uint64_t b) { return std::gcd(a, b); };
  Rng rng(seed);
  std::uint64_t a = 2;  // always valid when gcd(n, 6) = 1; try a random one first
  for (int t = 0; t < 64 && n > 4; ++t) {
    const std::uint64_t cand = 2 + rng.below(n - 3);
    if (gcd(cand, n) == 1 && gcd(cand - 1, n) == 1 && gcd(cand + 1, n) == 1) {
      a = cand;
      break;
    }
  }
  const std::uint64_t b = n > 1 ? rng.below(n) : 0;
  rows.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) rows[i] = static_cast<std::uint32_t>((a * i + b) % n);
}

}  // namespace nq::detail
