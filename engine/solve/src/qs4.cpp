// The local searches (QS4 and its variants), one attempt (one seed) at a time.
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
//     row blocks of the same sizes. An M-queens solution (found by this same QS4, untiled)
//     deals the row blocks to the column blocks, so that no two blocks sit on one block
//     diagonal. A tile is kBlocksPerTile consecutive column blocks with the row blocks dealt
//     to them; during the start-up a tile's columns draw rows only from the tile's rows. A
//     tile touches its own rows and kBlocksPerTile short windows of each diagonal direction,
//     instead of random probes into hundreds of MB. (With one row block per column block,
//     many columns fail inside their block: they cannot escape crowded diagonals; the more
//     blocks a tile, the fewer fail.)
//   - The diagonals are bitsets (one bit, not one int, per diagonal: 32x less memory), and a
//     try tests 64 rows at once: a word of the tile's free-row bitmap ANDed with the 64
//     consecutive diagonal bits of those rows in each direction (both directions are indexed
//     so that they run with the row). Near the end of a tile, where a random row almost never
//     fits, a column still finds one if any of the words it looks at holds one.
//   - A column's two random words are drawn, and their diagonal words prefetched, while the
//     column before it is placed.
//   - Tiles whose diagonal windows share a 64-bit word are in conflict; a greedy colouring of
//     that interval graph gives groups of tiles that touch disjoint words, and each group is
//     placed in parallel (tbb::parallel_for), with no atomics. Every tile draws from its own
//     random stream, so the result does not depend on the number of threads.
//   - Columns that fit no free row of their tile (of the words tried) go, with the rows left
//     over, to one global QS4 pass over the leftovers; what that pass cannot place is the
//     "last c queens" of QS4, placed at random and repaired.
//   - The repair keeps the bitsets and a small hash map for the few diagonals holding more
//     than one queen (SparseCounts), so the start-up's memory is reused without conversion.
//     Small boards (kDenseRepairUpTo) are repaired on a counter per diagonal instead.
// Memory: 4 bytes per column for the permutation and 4 bits per column for the diagonals.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <numeric>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "base/prefault.hpp"
#include "base/splitmix.hpp"
#include "engine/solve/src/local_search.hpp"

namespace nq::detail {

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t k) {
  return splitmix64(seed ^ splitmix64(k + 0x632be59bd9b4e019ULL));
}

bool StopSignal::should_stop() const {
  if (cancel && cancel->load(std::memory_order_relaxed)) return true;
  if (abort && abort->load(std::memory_order_relaxed)) return true;
  if (winner && winner->load(std::memory_order_relaxed) < attempt) return true;
  if (has_deadline && std::chrono::steady_clock::now() >= deadline) {
    if (timed_out) timed_out->store(true, std::memory_order_relaxed);
    return true;
  }
  return false;
}

bool fault_in(ZeroedWords& words, const StopSignal& stop) {
  constexpr std::size_t kChunkWords = std::size_t{8} << 20;  // 64 MiB
  // Small arrays (heap memory, the many restarts of small boards) fault in unnoticed.
  if (words.size() * sizeof(std::uint64_t) < HugePageAllocator<std::uint64_t>::kAdviseFrom)
    return true;
  for (std::size_t at = 0; at < words.size(); at += kChunkWords) {
    if (stop.should_stop()) return false;
    prefault_for_writing(words.data() + at, std::min(kChunkWords, words.size() - at) * 8);
  }
  return true;
}

std::uint64_t default_swap_max_tries(std::uint32_t n) {
  // QS4 names L = n^2 or 3n. n^2 lets small boards escape plateaus; it is capped so that
  // a failed attempt at large n does not run for hours, and never below 3n.
  const std::uint64_t nn = std::uint64_t{n} * n;
  return std::max<std::uint64_t>(3ULL * n, std::min<std::uint64_t>(nn, 10'000'000ULL));
}

namespace {

constexpr std::uint32_t kBlockSize = 512;  // columns (and rows) per start-up block
constexpr std::uint32_t kBlockedFrom = 4 * kBlockSize;
constexpr std::uint32_t kBlocksPerTile = 32;  // row blocks a tile draws from
// From n = 2^29 on, tiles of 64 blocks: half the leftovers for the serial pass, at the price of
// more colour groups, which still hold enough tiles a group to keep the threads busy there (not
// below 2^29). A function of n alone, so that the thread count does not change the result.
constexpr std::uint32_t kBlocksPerWideTile = 64;
constexpr std::uint32_t kWideTilesFrom = 1u << 29;
// A column whose two random words hold no fitting row scans up to this many more words with
// a free row: most of what scanning every word would place, at a fraction of its time.
constexpr std::uint32_t kScanWords = 16;
constexpr std::uint32_t kWindowReach = 2;  // words window() reads past a diagonal's word
constexpr int kLeftoverBatch = 8;
constexpr int kLeftoverTriesPerColumn = 256;  // the global pass over the leftovers
constexpr std::uint64_t kPollEvery = 4096;    // steps between StopSignal polls (a power of 2)
// Elements of a plain O(n) pass (filling, shuffling, scanning arrays of gigabytes) between polls.
constexpr std::uint64_t kPollEveryElements = std::uint64_t{1} << 20;
// Tiles the colouring of the start-up plan handles between polls (a second of it at n = 10^9).
constexpr std::uint32_t kPollEveryTiles = 1024;
// Deals the start-up plan tries (each an untiled QS4 attempt of n / 512 queens, which all but
// never fails) before the attempt gives up.
constexpr std::uint64_t kDealAttempts = 64;
// Up to this n the repair counts on one 32-bit counter per diagonal (at most 512 KiB), above it on
// the start-up's bitsets and a hash map of the few crowded diagonals (SparseCounts).
constexpr std::uint32_t kDenseRepairUpTo = 1u << 15;

// Diagonal indices. Both directions live in one index space: "sum" diagonals (i + row) in
// [0, span) and "difference" diagonals (row - i + n - 1) in [span, 2 span), span a multiple of
// 64 so that no bitset word holds both. Both indices grow with the row, so the diagonals of 64
// consecutive rows in one column are 64 consecutive bits of each direction (place_tile tests
// them a word at a time). Modular boards wrap: both taken mod n.
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
    return span + (toroidal ? (row + n - i) % n : row + n - 1 - i);
  }
  std::uint64_t diagonals() const { return 2 * span; }
  // Bitset words to allocate: window() reads up to two words past the last diagonal.
  std::uint64_t bitset_words() const { return diagonals() / 64 + 4; }
};

// One counter per diagonal: the textbook layout (32-bit counters, 16 bytes per column). The
// counters come zeroed from the system (ZeroedWords), not from a zeroing pass: at n = 10^9 that
// pass wrote 16 GB before the search could look at a stop signal.
struct ArrayCounts {
  ZeroedWords words;
  std::uint32_t* count;
  explicit ArrayCounts(std::uint64_t diagonals)
      : words((diagonals + 1) / 2), count(reinterpret_cast<std::uint32_t*>(words.data())) {}
  std::uint32_t get(std::uint64_t d) const { return count[d]; }
  std::uint32_t inc(std::uint64_t d) { return count[d]++; }  // returns the count before
  std::uint32_t dec(std::uint64_t d) { return count[d]--; }
};

// A bit per diagonal plus a hash map for the counts above one: after the QS4 start-up only a
// handful of diagonals hold two queens, so this is a bitset in all but name. Invariant: a
// diagonal is in `extra` only if its bit is set, and extra[d] = count - 1.
struct SparseCounts {
  ZeroedWords bits;
  std::unordered_map<std::uint64_t, std::uint32_t> extra;

  explicit SparseCounts(std::size_t words) : bits(words) {}

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
    std::uint64_t steps = 0, visited = 0;
    while (collisions > 0) {
      if (work.empty()) {
        ++stats.rescans;
        for (std::uint32_t i = 0; i < n; ++i) {
          if (i % kPollEveryElements == 0 && stop.should_stop()) return AttemptOutcome::stopped;
          if (attacked(i)) work.push_back(i);
        }
      }
      next.clear();
      for (std::uint32_t i : work) {
        // Polled per queen of the list, attacked or not: at n = 4 * 10^6 most of a pass's list
        // is queens that an earlier swap has freed.
        if (++visited % kPollEvery == 0 && stop.should_stop()) return AttemptOutcome::stopped;
        if (!attacked(i)) continue;
        std::uint32_t j = rng.below(n - 1);
        j += (j >= i);
        if (try_swap(i, j) && attacked(j)) next.push_back(j);
        if (attacked(i)) next.push_back(i);
        if (collisions == 0) break;
        ++steps;
        if (steps > step_limit) {
          return AttemptOutcome::failed;
        }
      }
      std::sort(next.begin(), next.end());
      next.erase(std::unique(next.begin(), next.end()), next.end());
      work.swap(next);
    }
    return AttemptOutcome::solved;
  }
};

// "A small multiple of n", with a floor for small boards where restarts are cheap.
std::uint64_t repair_step_limit(std::uint32_t n) {
  return 8ULL * n + 1000;
}

// Min-conflict starts from a random permutation, where about half the queens are attacked:
// its repair needs far more steps than QS4's few dozen leftovers.
std::uint64_t minconflict_step_limit(std::uint32_t n) {
  return 64ULL * n + 1000;
}

// Rows not used yet, kept Fisher-Yates style: rows[used, size) are free. Every QS4 start-up
// (the plain one, the leftover pass, the last queens) draws a random free row and takes it.
struct FreeRows {
  std::uint32_t* rows;
  std::uint32_t size;
  std::uint32_t used = 0;

  bool empty() const { return used == size; }
  // The index of a uniformly random free row.
  std::uint32_t draw(Rng& rng) const { return used + rng.below(size - used); }
  // Marks the free row at index j used (moves it to rows[used]) and returns it.
  std::uint32_t take(std::uint32_t j) {
    const std::uint32_t row = rows[j];
    rows[j] = rows[used];
    rows[used++] = row;
    return row;
  }
};

// rows = 0, 1, ..., n - 1; false if `stop` fired first (a pass over gigabytes at large n).
bool identity(Permutation& rows, std::uint32_t n, const StopSignal& stop) {
  rows.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i % kPollEveryElements == 0 && stop.should_stop()) return false;
    rows[i] = i;
  }
  return true;
}

// Fisher-Yates: a uniformly random permutation of 0..n-1; false if `stop` fired first.
bool random_permutation(Permutation& rows, std::uint32_t n, Rng& rng, const StopSignal& stop) {
  if (!identity(rows, n, stop)) return false;
  for (std::uint32_t i = 0; i + 1 < n; ++i) {
    if (i % kPollEveryElements == 0 && stop.should_stop()) return false;
    std::swap(rows[i], rows[i + rng.below(n - i)]);
  }
  return true;
}

// Puts every queen of `repair` on its board: false if `stop` fired first.
template <class R>
bool place_all(R& repair, std::uint32_t n, const StopSignal& stop) {
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i % kPollEveryElements == 0 && stop.should_stop()) return false;
    repair.place(i);
  }
  return true;
}

// The start-up plan. Column block b covers columns [col_start[b], +size[b]) and owns the rows
// [row_start[b], +size[b]). A tile is kBlocksPerTile consecutive column blocks together with
// the row blocks they own: a tile's columns draw from all of its rows, which lie in
// kBlocksPerTile places on the board, so a column can pick among several diagonal windows and
// avoid the crowded ones (with one row block per column block many more columns fail inside
// their block), while a tile still touches only a few KiB.
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

AttemptOutcome qs4_search(const AttemptOptions& o, bool tiled, Permutation& rows,
                          const StopSignal& stop, AttemptStats& stats);

// `tiled` false: one tile holding the whole board (the start-up of plain QS4, with bitsets).
// Returns `stopped` when `stop` fired, `failed` when no deal was found, else `solved` (`plan` is
// made).
AttemptOutcome plan_blocks(const Board& board, Rng& rng, bool tiled, const StopSignal& stop,
                           BlockPlan& plan) {
  const std::uint32_t n = board.n;
  const std::uint32_t m = tiled && n >= kBlockedFrom ? n / kBlockSize : 1;
  // At least four tiles, so that the colour groups have members to run in parallel.
  const std::uint32_t per_tile = n >= kWideTilesFrom ? kBlocksPerWideTile : kBlocksPerTile;
  plan.blocks_per_tile = std::max(1u, std::min(per_tile, m / 4));
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
  // the deal puts at most one block on each block diagonal. It is found by this same QS4, but
  // untiled (one tile: m = n / 512 is at most 4 million, a fraction of a second): a tiled deal
  // has coarse structure of its own (its row blocks dealt by a still smaller solution) that
  // shows through as many more columns failing in their tiles, and a longer leftover pass.
  std::vector<std::uint32_t> order(m);  // order[k]: the column block that gets row block k
  if (m >= 4) {
    Permutation deal;
    AttemptOutcome dealt = AttemptOutcome::failed;
    for (std::uint64_t k = 0; k < kDealAttempts && dealt == AttemptOutcome::failed; ++k) {
      AttemptStats ignored;
      const AttemptOptions sub{m, mix_seed(rng.next(), k), false, false, 0};
      dealt = qs4_search(sub, false, deal, stop, ignored);
    }
    if (dealt != AttemptOutcome::solved) return dealt;
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
    return AttemptOutcome::solved;
  }
  // The bitset words each tile touches: per direction, one interval per row block (tile
  // order, so tile t owns entries [t * blocks_per_tile, ...)). Word indices fit 32 bits
  // (n <= 2e9: at most 2^27 words); 12-byte entries keep the scans below in few cache lines.
  struct Interval {
    std::uint32_t first, last, tile;
  };
  std::vector<Interval> spans[2];
  std::uint64_t longest = 1;
  for (std::uint32_t t = 0; t < tiles; ++t) {
    if (t % kPollEveryTiles == 0 && stop.should_stop()) return AttemptOutcome::stopped;
    const std::uint64_t c0 = plan.col_start[plan.first_block(t)];
    std::uint64_t width = 0;
    for (std::uint32_t b = plan.first_block(t); b < plan.end_block(t); ++b) width += plan.size[b];
    const std::uint64_t c1 = c0 + width - 1;
    for (std::uint32_t b = plan.first_block(t); b < plan.end_block(t); ++b) {
      const std::uint64_t r0 = plan.row_start[b], r1 = r0 + plan.size[b] - 1;
      const Interval sum{static_cast<std::uint32_t>(board.sum(c0, r0) >> 6),
                         static_cast<std::uint32_t>(board.sum(c1, r1) >> 6) + kWindowReach, t};
      const Interval diff{static_cast<std::uint32_t>(board.diff(c1, r0) >> 6),
                          static_cast<std::uint32_t>(board.diff(c0, r1) >> 6) + kWindowReach, t};
      spans[0].push_back(sum);
      spans[1].push_back(diff);
      longest = std::max<std::uint64_t>(
          {longest, sum.last - sum.first + 1u, diff.last - diff.first + 1u});
    }
  }
  // Buckets of width `longest` by first word: overlapping intervals lie in adjacent buckets.
  // Each direction's intervals are stored bucket by bucket in one array (a counting sort), so
  // that the three buckets around an interval lie side by side: at n = 10^9 (4 million
  // intervals) a vector per bucket made the colouring 8 s of cache misses.
  const std::uint64_t buckets = board.diagonals() / 64 / longest + 3;
  std::vector<std::uint32_t> bucket_start[2];
  std::vector<Interval> by_bucket[2];
  for (int dir = 0; dir < 2; ++dir) {
    std::vector<std::uint32_t>& start = bucket_start[dir];
    start.assign(buckets + 1, 0);
    for (const Interval& it : spans[dir]) ++start[it.first / longest + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    by_bucket[dir].resize(spans[dir].size());
    for (const Interval& it : spans[dir]) by_bucket[dir][fill[it.first / longest]++] = it;
  }
  // Greedy colouring in tile order: the smallest colour no coloured neighbour has. Tiles after
  // t are not coloured yet (colour -1); taken[c] == t marks colour c as used around tile t.
  std::vector<int> colour(tiles, -1);
  std::vector<std::uint32_t> taken;
  for (std::uint32_t t = 0; t < tiles; ++t) {
    if (t % kPollEveryTiles == 0 && stop.should_stop()) return AttemptOutcome::stopped;
    const std::uint32_t k0 = plan.first_block(t);
    const std::uint32_t k1 = plan.end_block(t);
    for (int dir = 0; dir < 2; ++dir)
      for (std::uint32_t k = k0; k < k1; ++k) {
        const Interval mine = spans[dir][k];
        const std::uint64_t home = mine.first / longest;
        // A bucket lists its intervals in tile order (the counting sort is stable), so the
        // coloured tiles (those before t) come first: stop at the first tile t or later.
        for (std::uint64_t h = (home == 0 ? 0 : home - 1); h <= home + 1; ++h) {
          const Interval* it = by_bucket[dir].data() + bucket_start[dir][h];
          const Interval* end = by_bucket[dir].data() + bucket_start[dir][h + 1];
          for (; it != end && it->tile < t; ++it) {
            if (it->first > mine.last || mine.first > it->last) continue;
            const auto c = static_cast<std::size_t>(colour[it->tile]);
            if (c >= taken.size()) taken.resize(c + 1, UINT32_MAX);
            taken[c] = t;
          }
        }
      }
    std::size_t c = 0;
    while (c < taken.size() && taken[c] == t) ++c;
    colour[t] = static_cast<int>(c);
    if (c >= plan.colour_groups.size()) plan.colour_groups.resize(c + 1);
    plan.colour_groups[c].push_back(t);
  }
  return AttemptOutcome::solved;
}

inline bool test_bit(const std::uint64_t* bits, std::uint64_t d) {
  return (bits[d >> 6] >> (d & 63)) & 1;
}
inline void set_bit(std::uint64_t* bits, std::uint64_t d) {
  bits[d >> 6] |= std::uint64_t{1} << (d & 63);
}

// Bits first .. first + 63 of a bitset (bit k of the result: index first + k); reads two words.
inline std::uint64_t window(const std::uint64_t* bits, std::uint64_t first) {
  const std::uint64_t* w = bits + (first >> 6);
  return static_cast<std::uint64_t>(((static_cast<u128>(w[1]) << 64) | w[0]) >> (first & 63));
}

// Which of the rows base .. base + 63 have both diagonals free in column c (bit k: row
// base + k). Rows past the board's end come out as garbage: callers mask with free rows.
inline std::uint64_t free_diagonals(const Board& board, const std::uint64_t* bits, std::uint32_t c,
                                    std::uint32_t base) {
  if (!board.toroidal)
    return ~window(bits, board.sum(c, base)) & ~window(bits, board.diff(c, base));
  std::uint64_t free = 0;  // wrapped diagonals are not consecutive bits (n <= 23 only)
  for (std::uint32_t k = 0; k < 64 && base + k < board.n; ++k)
    free |= std::uint64_t{!test_bit(bits, board.sum(c, base + k)) &&
                          !test_bit(bits, board.diff(c, base + k))}
            << k;
  return free;
}

// A set bit of x != 0 drawn uniformly with 32 random bits: the position of set bit number
// (draw * popcount(x)) >> 32, counting from bit 0. Broadword (Vigna, "Broadword implementation
// of rank/select queries", 2008): byte counts by SWAR, their prefix sums by one multiply, the
// byte by comparing all eight prefixes at once; no popcount instruction (not in the baseline
// x86-64 the project builds for, and the libgcc call was a visible share of the start-up).
inline unsigned random_set_bit(std::uint64_t x, std::uint32_t draw) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  std::uint64_t bytes = x - ((x >> 1) & 0x5555555555555555ULL);
  bytes = (bytes & 0x3333333333333333ULL) + ((bytes >> 2) & 0x3333333333333333ULL);
  bytes = (bytes + (bytes >> 4)) & 0x0F0F0F0F0F0F0F0FULL;  // byte i: set bits in byte i
  const std::uint64_t upto = bytes * kOnes;                // byte i: set bits in bytes 0..i
  const auto k = static_cast<unsigned>((std::uint64_t{draw} * (upto >> 56)) >> 32);
  const std::uint64_t before = upto << 8;  // byte i: set bits in bytes below i
  // Bytes whose "before" is at most k form a prefix; the last of them holds bit number k.
  const std::uint64_t at_most = ((k * kOnes) | kHigh) - before;
  const auto byte = static_cast<unsigned>(63 - std::countl_zero(at_most & kHigh)) / 8;
  unsigned in_byte = k - static_cast<unsigned>((before >> (8 * byte)) & 0xFF);
  std::uint64_t rest = (x >> (8 * byte)) & 0xFF;
  for (; in_byte > 0; --in_byte) rest &= rest - 1;
  return 8 * byte + static_cast<unsigned>(std::countr_zero(rest));
}

// One thread's scratch memory for place_tile, reused from tile to tile.
struct TileScratch {
  std::vector<std::uint64_t> free_rows;  // a word per 64 rows of a row block: 1 = row free
  std::vector<std::uint32_t> base;       // the row of bit 0 of each word
  std::vector<std::uint32_t> live;       // the words with a free row left (in live[0, count))
  std::vector<std::uint32_t> live_at;    // where each word sits in `live`
};

// Places the columns of tile t on the tile's rows, conflict-free. A try tests 64 rows at once:
// a word of the tile's free-row bitmap, ANDed with the 64 consecutive diagonal bits of those
// rows in each direction (Board indexes both directions so that they run with the row). A
// column tries two random words with a free row (their loads overlap), then up to kScanWords
// more from a random one on, and takes a row drawn uniformly from the first word that fits.
// Near the end of a tile, where a try of one random row almost always fails, this keeps the
// leftovers fewer than tries of one row do. Unfilled columns and unused rows are the leftovers.
void place_tile(const Board& board, const BlockPlan& plan, std::uint32_t t, std::uint64_t seed,
                std::uint32_t* rows, std::uint64_t* bits, TileScratch& scratch,
                std::vector<std::uint32_t>& left_cols, std::vector<std::uint32_t>& left_rows) {
  std::vector<std::uint64_t>& free_rows = scratch.free_rows;
  std::vector<std::uint32_t>& base = scratch.base;
  std::vector<std::uint32_t>& live = scratch.live;
  std::vector<std::uint32_t>& live_at = scratch.live_at;
  free_rows.clear();
  base.clear();
  std::uint32_t width = 0;
  for (std::uint32_t b = plan.first_block(t); b < plan.end_block(t); ++b) {
    width += plan.size[b];
    for (std::uint32_t k = 0; k < plan.size[b]; k += 64) {
      const std::uint32_t count = std::min(64u, plan.size[b] - k);
      free_rows.push_back(count == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1);
      base.push_back(plan.row_start[b] + k);
    }
  }
  const auto words = static_cast<std::uint32_t>(free_rows.size());
  live.resize(words);
  live_at.resize(words);
  std::iota(live.begin(), live.end(), 0u);
  std::iota(live_at.begin(), live_at.end(), 0u);
  std::uint32_t live_count = words;
  const std::uint32_t c0 = plan.col_start[plan.first_block(t)];
  Rng rng(mix_seed(seed, t + 1ULL));

  // Puts column c on a row drawn uniformly from `fits` (the candidates in word w); `draw` is 32
  // random bits.
  auto take = [&](std::uint32_t c, std::uint32_t w, std::uint64_t fits, std::uint32_t draw) {
    const unsigned bit = random_set_bit(fits, draw);
    const std::uint32_t row = base[w] + bit;
    set_bit(bits, board.sum(c, row));
    set_bit(bits, board.diff(c, row));
    rows[c] = row;
    free_rows[w] &= ~(std::uint64_t{1} << bit);
    if (free_rows[w] == 0) {
      const std::uint32_t last = live[--live_count];
      live[live_at[w]] = last;
      live_at[last] = live_at[w];
    }
  };
  // Each column draws two random words (the two halves of one 64-bit number, by Lemire's
  // multiply-shift) and, if one fits, a row in it (the halves of a second number). The words
  // of column c + 1 are drawn while column c is placed and their diagonal bits prefetched: a
  // try's loads then hit the cache (the tile's diagonal windows are about 130 KiB, beyond L1).
  // The word is looked up again at use, as `live` may have changed in between.
  auto pick = [&](std::uint32_t half) { return live[(std::uint64_t{half} * live_count) >> 32]; };
  std::uint64_t next_words = rng.next();
  for (std::uint32_t k = 0; k < width; ++k) {
    const std::uint32_t c = c0 + k;
    const std::uint64_t words_draw = next_words;
    next_words = rng.next();
    for (int h = 0; h < 2; ++h) {
      const std::uint32_t v = pick(static_cast<std::uint32_t>(next_words >> (32 * h)));
      __builtin_prefetch(bits + (board.sum(c + 1, base[v]) >> 6));
      __builtin_prefetch(bits + (board.diff(c + 1, base[v]) >> 6));
    }
    const std::uint32_t w[2] = {pick(static_cast<std::uint32_t>(words_draw >> 32)),
                                pick(static_cast<std::uint32_t>(words_draw))};
    const std::uint64_t fits[2] = {free_rows[w[0]] & free_diagonals(board, bits, c, base[w[0]]),
                                   free_rows[w[1]] & free_diagonals(board, bits, c, base[w[1]])};
    const std::uint64_t row_draw = rng.next();
    if (fits[0]) {
      take(c, w[0], fits[0], static_cast<std::uint32_t>(row_draw >> 32));
      continue;
    }
    if (fits[1]) {
      take(c, w[1], fits[1], static_cast<std::uint32_t>(row_draw));
      continue;
    }
    // Up to kScanWords words with a free row, from a random one on.
    bool ok = false;
    const std::uint32_t first = static_cast<std::uint32_t>(
        (std::uint64_t{static_cast<std::uint32_t>(row_draw)} * live_count) >> 32);
    for (std::uint32_t i = 0; i < live_count && i < kScanWords && !ok; ++i) {
      const std::uint32_t at = first + i < live_count ? first + i : first + i - live_count;
      const std::uint32_t v = live[at];
      const std::uint64_t f = free_rows[v] & free_diagonals(board, bits, c, base[v]);
      if (f) {
        take(c, v, f, static_cast<std::uint32_t>(row_draw >> 32));
        ok = true;
      }
    }
    if (!ok) left_cols.push_back(c);
  }
  for (std::uint32_t v = 0; v < words; ++v)
    for (std::uint64_t f = free_rows[v]; f; f &= f - 1)
      left_rows.push_back(base[v] + static_cast<std::uint32_t>(std::countr_zero(f)));
}

AttemptOutcome qs4_search(const AttemptOptions& o, bool tiled, Permutation& rows,
                          const StopSignal& stop, AttemptStats& stats) {
  const std::uint32_t n = o.n;
  const Board board(n, o.modular);
  Rng rng(o.seed);
  rows.resize(n);
  SparseCounts counts(board.bitset_words());
  BlockPlan plan;
  if (const AttemptOutcome planned = plan_blocks(board, rng, tiled, stop, plan);
      planned != AttemptOutcome::solved)
    return planned;
  const std::size_t m = plan.tiles();
  std::vector<std::vector<std::uint32_t>> left_cols(m), left_rows(m);

  // Phase 1: the blocks, one colour group after another, each group in parallel.
  for (const auto& group : plan.colour_groups) {
    auto body = [&](const tbb::blocked_range<std::size_t>& range) {
      thread_local TileScratch scratch;
      for (std::size_t g = range.begin(); g != range.end(); ++g) {
        const std::uint32_t b = group[g];
        place_tile(board, plan, b, o.seed, rows.data(), counts.bits.data(), scratch, left_cols[b],
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
  std::vector<std::uint32_t> cols, pool_rows;
  std::size_t leftover = 0;
  for (std::size_t b = 0; b < m; ++b) leftover += left_cols[b].size();
  cols.reserve(leftover);
  pool_rows.reserve(leftover);
  for (std::size_t b = 0; b < m; ++b) {
    cols.insert(cols.end(), left_cols[b].begin(), left_cols[b].end());
    pool_rows.insert(pool_rows.end(), left_rows[b].begin(), left_rows[b].end());
  }
  left_cols = {};
  left_rows = {};
  std::vector<std::uint32_t> last;  // QS4's "last c queens"
  FreeRows pool{pool_rows.data(), static_cast<std::uint32_t>(pool_rows.size())};
  std::uint64_t* bits = counts.bits.data();
  // These tries are random probes into the whole board (the pool and both bitsets), so they
  // go in batches of kLeftoverBatch independent candidates, prefetched before they are read:
  // the cache misses of a batch overlap instead of following one another.
  for (std::size_t k = 0; k < cols.size(); ++k) {
    if (k % kPollEvery == kPollEvery - 1 && stop.should_stop()) return AttemptOutcome::stopped;
    const std::uint32_t c = cols[k];
    bool ok = false;
    for (int round = 0; round < kLeftoverTriesPerColumn / kLeftoverBatch && !ok; ++round) {
      if (pool.empty()) break;
      std::uint32_t j[kLeftoverBatch], row[kLeftoverBatch];
      std::uint64_t sum[kLeftoverBatch], diff[kLeftoverBatch];
      for (int q = 0; q < kLeftoverBatch; ++q) {
        j[q] = pool.draw(rng);
        __builtin_prefetch(&pool.rows[j[q]]);
      }
      for (int q = 0; q < kLeftoverBatch; ++q) {
        row[q] = pool.rows[j[q]];
        sum[q] = board.sum(c, row[q]);
        diff[q] = board.diff(c, row[q]);
        __builtin_prefetch(&bits[sum[q] >> 6]);
        __builtin_prefetch(&bits[diff[q] >> 6]);
      }
      for (int q = 0; q < kLeftoverBatch; ++q) {
        if (test_bit(bits, sum[q]) || test_bit(bits, diff[q])) continue;
        set_bit(bits, sum[q]);
        set_bit(bits, diff[q]);
        rows[c] = pool.take(j[q]);
        ok = true;
        break;
      }
    }
    if (!ok) last.push_back(c);
  }
  stats.conflict_free = n - last.size();
  stats.repaired = last.size();

  // Phase 3: the last queens on the remaining rows at random, then the QS4 repair. A small
  // board is repaired on one counter per diagonal, made from the bitsets: there the last queens
  // are a large share of the board, many diagonals hold two or more, and the hash map's
  // inserts and erases were most of the time (solve --n 8 --solutions 92: 1,390 attempts).
  auto repair_on = [&](auto& on) {
    Repair<std::remove_reference_t<decltype(on)>> repair{board, rows.data(), on, rng};
    for (std::uint32_t c : last) {
      rows[c] = pool.take(pool.draw(rng));
      repair.place(c);
    }
    return repair.run(std::move(last), repair_step_limit(n), stop, stats);
  };
  if (n > kDenseRepairUpTo) return repair_on(counts);
  ArrayCounts dense(board.diagonals());
  for (std::uint64_t d = 0; d < board.diagonals(); ++d) dense.count[d] = test_bit(bits, d);
  return repair_on(dense);
}

}  // namespace

AttemptOutcome qs4_attempt(const AttemptOptions& o, Permutation& rows, const StopSignal& stop,
                           AttemptStats& stats) {
  return qs4_search(o, true, rows, stop, stats);
}

AttemptOutcome qs4_plain_attempt(const AttemptOptions& o, Permutation& rows, const StopSignal& stop,
                                 AttemptStats& stats) {
  // The textbook QS4, as the public programs write it: one pass of Fisher-Yates over the whole
  // permutation with int counters per diagonal, every try a random access.
  const std::uint32_t n = o.n;
  const Board board(n, o.modular);
  Rng rng(o.seed);
  if (!identity(rows, n, stop)) return AttemptOutcome::stopped;
  ArrayCounts counts(board.diagonals());
  if (!fault_in(counts.words, stop)) return AttemptOutcome::stopped;
  // c, the queens left to the random phase: Sosic & Gu use a few dozen for large n.
  const std::uint32_t c = n < 200 ? n / 4 : 50;
  const std::uint64_t max_tries = static_cast<std::uint64_t>(3.08 * n);
  // The permutation is its own pool: column `free.used` is the one being placed.
  FreeRows free{rows.data(), n};
  for (std::uint64_t t = 0; t < max_tries && free.used < n - c; ++t) {
    if (t % kPollEvery == 0 && stop.should_stop()) return AttemptOutcome::stopped;
    const std::uint32_t j = free.draw(rng);
    const std::uint32_t row = rows[j];
    const std::uint64_t s = board.sum(free.used, row), d = board.diff(free.used, row);
    if (counts.get(s) != 0 || counts.get(d) != 0) continue;
    counts.inc(s);
    counts.inc(d);
    free.take(j);
  }
  stats.conflict_free = free.used;
  stats.repaired = n - free.used;
  Repair<ArrayCounts> repair{board, rows.data(), counts, rng};
  std::vector<std::uint32_t> last;
  while (!free.empty()) {
    const std::uint32_t i = free.used;
    free.take(free.draw(rng));
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
  if (!random_permutation(rows, o.n, rng, stop)) return AttemptOutcome::stopped;
  ArrayCounts counts(board.diagonals());
  if (!fault_in(counts.words, stop)) return AttemptOutcome::stopped;
  Repair<ArrayCounts> repair{board, rows.data(), counts, rng};
  if (!place_all(repair, o.n, stop)) return AttemptOutcome::stopped;
  std::vector<std::uint32_t> attacked;
  for (std::uint32_t i = 0; i < o.n; ++i) {
    if (i % kPollEveryElements == 0 && stop.should_stop()) return AttemptOutcome::stopped;
    if (repair.attacked(i)) attacked.push_back(i);
  }
  stats.conflict_free = o.n - attacked.size();
  stats.repaired = attacked.size();
  return repair.run(std::move(attacked), minconflict_step_limit(o.n), stop, stats);
}

AttemptOutcome swap_attempt(const AttemptOptions& o, Permutation& rows, const StopSignal& stop,
                            AttemptStats& /*stats: nothing to report*/) {
  // Random-pair swap hill climbing: any pair, kept if the collisions drop; give up after L
  // consecutive failed tries.
  const std::uint32_t n = o.n;
  const Board board(n, o.modular);
  Rng rng(o.seed);
  if (!random_permutation(rows, n, rng, stop)) return AttemptOutcome::stopped;
  ArrayCounts counts(board.diagonals());
  if (!fault_in(counts.words, stop)) return AttemptOutcome::stopped;
  Repair<ArrayCounts> repair{board, rows.data(), counts, rng};
  if (!place_all(repair, n, stop)) return AttemptOutcome::stopped;
  const std::uint64_t limit = o.max_tries ? o.max_tries : default_swap_max_tries(n);
  std::uint64_t failed = 0, steps = 0;
  while (repair.collisions > 0) {
    const std::uint32_t i = rng.below(n);
    std::uint32_t j = rng.below(n - 1);
    j += (j >= i);
    if (repair.try_swap(i, j))
      failed = 0;
    else if (++failed >= limit) {
      return AttemptOutcome::failed;
    }
    if (++steps % kPollEvery == 0 && stop.should_stop()) {
      return AttemptOutcome::stopped;
    }
  }
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
