// The settled half: a half whose every row is fixed to it, enumerated by meeting in the middle
// (make_bottom buckets the bottom part by columns, SettledHalf walks the top part against it),
// streamed in chunks of bounded size; HalfScratch keeps the bottom part across subproblems.
//
// Per-ISA: included (through kernels/src/join/join.hpp) by each build's source (join_scalar.cpp,
// join_avx2.cpp, join_avx512.cpp) with NQ_KERNEL_NAMESPACE defined (and NQ_JOIN_AVX2 or
// NQ_JOIN_AVX512 in those builds); its code goes into that namespace, so only headers are
// included here, at file scope.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/src/join/parts.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// A half's bucketed bottom part, kept for the next subproblem: subproblems that follow each
// other in the row-split plan mostly share a half's bottom rows (the plan is in colex order of
// E), and then only the top part is walked again. How often a bottom part is made again:
// docs/count.md, "The row-split plan and the join kernel".
struct HalfScratch {
  std::vector<Part> bottom;  // a sub-part's placements, before they are bucketed
  SubParts sub;
  SortedParts sorted;  // at least start[2^k] entries (the buckets' ends)
  std::vector<std::uint32_t> start;
  // What `sorted` and `start` were built for.
  bool valid = false;
  Mask half = 0;
  int k = 0, top_rows = 0, first_east = 0, last_west = 0, window = 0;
  int rows[kMaxN] = {};
  Mask squares[kMaxN] = {};
  bool same_bottom(const Board& b, Mask h, int kk, int t, const int* row_of, const Mask* sq) const {
    if (!valid || half != h || k != kk || top_rows != t || first_east != b.first_east ||
        last_west != b.last_west || window != b.window)
      return false;
    for (int j = t; j < kk; ++j)
      if (rows[j] != row_of[j] || squares[j] != sq[j]) return false;
    return true;
  }
  void remember(const Board& b, Mask h, int kk, int t, const int* row_of, const Mask* sq) {
    valid = true;
    half = h;
    k = kk;
    top_rows = t;
    first_east = b.first_east;
    last_west = b.last_west;
    window = b.window;
    for (int j = t; j < kk; ++j) {
      rows[j] = row_of[j];
      squares[j] = sq[j];
    }
  }
};

// The bottom part of rows row_of[0..count) (count >= 1) of a half of k columns, into hs.sorted
// and hs.start (bucketed by packed columns), from its two sub-parts (SubParts, parts.hpp). Returns
// false (hs.sorted partly written) past `limit` placements, or when the sub-parts have more than
// limit / 4 in all. Then hs.bottom and hs.sub hold at most limit / 4 placements, and hs.sorted
// at most limit + limit / 4 + 8 (a last lower bucket's worth past the limit, and the vector
// stores' slack): the bound of join_scratch_bytes (join_limits.hpp).
inline bool make_bottom(const int* row_of, const Mask* squares, int count, Mask half, int k,
                        const std::uint64_t (*bits)[kMaxN], std::size_t limit, HalfScratch& hs) {
  const int upper = count / 2;
  const DiagonalWindow clash_window(row_of[0], half), meet_window(row_of[upper], half);
  SubParts& sub = hs.sub;
  const std::uint32_t buckets = 1u << k;
  std::size_t room = limit / 4;
  auto make = [&](int first, int rows, std::vector<std::uint32_t>& start) {
    hs.bottom.clear();
    if (rows == 0)
      hs.bottom.push_back({0, 0, 0, 0});
    else if (!enumerate_part(row_of + first, squares + first, rows, half, bits + first, room,
                             hs.bottom))
      return false;
    const std::size_t n = hs.bottom.size(), base = sub.meet.size();
    if (n > room) return false;  // rows == 0 with no room
    room -= n;
    for (std::vector<std::uint64_t>* v : {&sub.meet, &sub.clash, &sub.pattern}) v->resize(base + n);
    counting_sort(
        n, buckets, start, [&](std::size_t i) { return hs.bottom[i].cols; },
        [&](std::size_t i, std::uint32_t at) {
          const Part& q = hs.bottom[i];
          sub.meet[base + at] = meet_window(q.anti, q.main);
          sub.clash[base + at] = clash_window(q.anti, q.main);
          sub.pattern[base + at] = q.pattern;
        });
    return true;
  };
  for (std::vector<std::uint64_t>* v : {&sub.meet, &sub.clash, &sub.pattern}) v->clear();
  if (!make(0, upper, sub.upper_start)) return false;
  const auto lower_base = static_cast<std::uint32_t>(sub.meet.size());
  if (!make(upper, count - upper, sub.lower_start)) return false;
  std::vector<std::uint64_t>& clash = hs.sorted.clash;
  std::vector<std::uint64_t>& pattern = hs.sorted.pattern;
  const std::size_t most = limit + limit / 4 + 8;
  hs.start.resize(buckets + 1);
  std::size_t n = 0;
  for (std::uint32_t s = 0; s < buckets; ++s) {
    hs.start[s] = static_cast<std::uint32_t>(n);
    if (std::popcount(s) != count) continue;
    for (std::uint32_t s1 = s;; s1 = (s1 - 1) & s) {  // every subset of s
      if (std::popcount(s1) == upper) {
        const std::uint32_t u0 = sub.upper_start[s1], u1 = sub.upper_start[s1 + 1];
        const std::uint32_t l0 = lower_base + sub.lower_start[s ^ s1];
        const std::uint32_t l1 = lower_base + sub.lower_start[(s ^ s1) + 1];
        if (u0 != u1 && l0 != l1)
          for (std::uint32_t u = u0; u < u1;) {
            if (n > limit) return false;
            // Two upper ones at a time where both are left and their output fits (always one).
            const bool two = u + 1 < u1 && n + 2 * (l1 - l0) + 8 <= most;
            const std::size_t need = n + (two ? 2 : 1) * (l1 - l0) + 8;  // at most `most`
            if (clash.size() < need) {
              const std::size_t grown = std::min(most, std::max(need, 2 * clash.size()));
              clash.resize(grown);
              pattern.resize(grown);
            }
            const std::uint64_t *um = sub.meet.data() + u, *uc = sub.clash.data() + u,
                                *up = sub.pattern.data() + u;
            n += two ? join_sub<2>(sub, l0, l1, um, uc, up, clash.data() + n, pattern.data() + n)
                     : join_sub<1>(sub, l0, l1, um, uc, up, clash.data() + n, pattern.data() + n);
            u += two ? 2 : 1;
          }
      }
      if (s1 == 0) break;
    }
  }
  if (n > limit) return false;
  hs.start[buckets] = static_cast<std::uint32_t>(n);
  return true;
}

// One settled half as a resumable stream of its placements' crossing bits.
struct SettledHalf {
  int k = 0;    // the half's rows (= its columns)
  int top = 0;  // rows in the top part; the bottom part has the other k - top
  Mask half = 0;
  int row_of[kMaxN] = {};
  Mask squares[kMaxN] = {};
  std::uint64_t bits[kMaxN][kMaxN] = {};  // crossing bits of (row j of the half, column c)
  // The top part's placements are joined a batch at a time (kJoinTopBatch of them, or fewer),
  // each batch in the order of the buckets its placements meet: a bucket's bottom placements are
  // then read once for all of the batch's tops that meet it, not once per top in the walk's
  // order (the two halves' bottom parts take 1.4 MB at n = 22, more than a 1 MB L2 cache;
  // perf/results/log.md).
  //   Where the stream stands, as a plain value, so that a copy taken before next() makes that
  // chunk again later (sampling): the walk where its batch begins, and how far into the batch.
  struct Walk {
    PartWalk top;
    std::size_t joined = 0;        // the batch's top placements joined so far
    std::uint64_t batch = 0;       // its batch's number (of `made`); 0: not made yet
    bool over = true;              // every top placement joined
    std::uint64_t candidates = 0;  // bottom placements examined since rewind()
  };
  Walk walk;
  bool done() const { return walk.over; }
  std::uint64_t candidates() const { return walk.candidates; }
  const HalfScratch* parts = nullptr;
  // A top placement of the batch: its diagonals (DiagonalWindow), its crossing bits, and the
  // bottom placements [lo, hi) of its bucket.
  struct Top {
    std::uint64_t clash, pattern;
    std::uint32_t lo, hi;
  };
  std::vector<Top> walked, batch;  // the batch in the walk's order, then in bucket order
  std::vector<std::uint32_t> batch_key, batch_start;
  PartWalk after;          // the walk past the batch
  std::uint64_t made = 0;  // batches made so far; the one in `batch` is the last

  // Reads the half's rows from b and readies its bottom part in hs (reused when the previous
  // subproblem had the same bottom rows). A bottom part of more than parts_limit placements
  // moves its first row to the top part. Returns false when the half has no placement at all
  // (a row of it without a square of the half, or too few rows).
  bool setup(const Board& b, Mask h, HalfScratch& hs, std::size_t parts_limit) {
    half = h;
    k = 0;
    for (int i = 0; i < b.rows; ++i)
      if (b.allowed[i] & h) row_of[k++] = i;
    if (k != std::popcount(h) || k == 0) return false;
    for (int j = 0; j < k; ++j) {
      squares[j] = b.allowed[row_of[j]] & h;
      for (int c = 0; c < kMaxN; ++c) bits[j][c] = crossing_bits(b, row_of[j], c);
    }
    parts = &hs;
    // The top part is walked on every call, the bottom one mostly reused: so the bottom takes
    // the most rows, k/2 - 1 of k up to 11 rows a half (bottom parts are made from sub-parts,
    // so a larger one costs little), k/2 from 12. Each choice was timed against its neighbours
    // at n = 17 to 23, one thread and whole counts (perf/results/log.md); 12 rows and more were
    // not measured.
    top = k >= 12 ? k / 2 : std::max(1, k / 2 - 1);
    if (hs.valid && hs.top_rows > top && hs.same_bottom(b, h, k, hs.top_rows, row_of, squares))
      top = hs.top_rows;  // the previous subproblem's bottom, moved down for its size
    for (; top < k; ++top) {
      if (hs.same_bottom(b, h, k, top, row_of, squares)) return true;
      hs.valid = false;
      if (!make_bottom(row_of + top, squares + top, k - top, h, k, bits + top, parts_limit, hs))
        continue;  // too large: one row more in the top part
      hs.remember(b, h, k, top, row_of, squares);
      return true;
    }
    // Every row in the top part: one empty bottom placement, in the one bucket.
    hs.valid = false;
    hs.start.assign(2, 0);
    hs.start[1] = 1;
    for (std::vector<std::uint64_t>* v : {&hs.sorted.clash, &hs.sorted.pattern}) v->assign(1, 0);
    return true;
  }

  // Restarts the walk at the first top placement.
  void rewind() {
    walk = Walk{};
    walk.top.start(squares[0]);
    walk.over = false;
  }

  // Makes the batch that begins where walk.top stands: the next `most` top placements whose
  // bucket is not empty, sorted by bucket.
  void make_batch(std::size_t most) {
    const HalfScratch& hs = *parts;
    const std::uint32_t all = top == k ? 0 : (1u << k) - 1;
    const DiagonalWindow window(top == k ? 0 : row_of[top], half);
    walked.clear();
    batch_key.clear();
    after = walk.top;
    after.run(row_of, squares, top, bits,
              [&](std::uint64_t a, std::uint64_t m, std::uint64_t p, Mask cols) {
                if (walked.size() == most) return false;
                const std::uint32_t want = all & ~packed_columns(cols, half);
                const std::uint32_t lo = hs.start[want], hi = hs.start[want + 1];
                if (lo != hi) {
                  walked.push_back({window(a, m), p, lo, hi});
                  batch_key.push_back(want);
                }
                return true;
              });
    batch.resize(walked.size());
    counting_sort(
        walked.size(), all + 1, batch_start, [&](std::size_t i) { return batch_key[i]; },
        [&](std::size_t i, std::uint32_t at) { batch[at] = walked[i]; });
    walk.batch = ++made;
  }

  // The next chunk: writes the crossing bits of up to `capacity` placements to out (grown as
  // needed, never past capacity + 8) and returns how many. Sets `done` once the walk is over;
  // returns 0 only then. capacity must hold the largest bucket (parts_limit of setup), and be the
  // same on every call for one walk: a batch holds at most as many top placements as a chunk
  // holds placements (so that the small chunks of the tests cross batches too).
  std::size_t next(std::vector<std::uint64_t>& out, std::size_t capacity) {
    const HalfScratch& hs = *parts;
    std::size_t n = 0;
    while (!walk.over) {
      if (walk.batch == 0 || walk.batch != made) make_batch(std::min(kJoinTopBatch, capacity));
      while (walk.joined < batch.size()) {
        const Top& t = batch[walk.joined];
        const std::uint32_t size = t.hi - t.lo;
        // Two tops of one bucket in a row are joined with it at once, when both fit (then they
        // would fit one after the other too: the chunks end where they did); four at once did
        // no better (nq_bench_join; perf/results/log.md).
        const int tops = walk.joined + 1 < batch.size() && batch[walk.joined + 1].lo == t.lo &&
                                 n + 2 * std::size_t{size} <= capacity
                             ? 2
                             : 1;
        if (n + size > capacity) return n;  // it starts the next chunk
        if (out.size() < n + tops * size + 8)
          out.resize(std::min(capacity + 8, std::max(2 * out.size(), n + tops * size + 8)));
        walk.candidates += tops * size;
        const std::uint64_t clash[2] = {t.clash, batch[walk.joined + tops - 1].clash};
        const std::uint64_t pattern[2] = {t.pattern, batch[walk.joined + tops - 1].pattern};
        n += tops == 2 ? join_bucket<2>(hs.sorted.clash.data(), hs.sorted.pattern.data(), t.lo,
                                        t.hi, clash, pattern, out.data() + n)
                       : join_bucket<1>(hs.sorted.clash.data(), hs.sorted.pattern.data(), t.lo,
                                        t.hi, clash, pattern, out.data() + n);
        walk.joined += static_cast<std::size_t>(tops);
      }
      if (after.done) {
        walk.over = true;
      } else {
        walk.top = after;
        walk.joined = 0;
        walk.batch = 0;
      }
    }
    return n;
  }
};

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
