// The split-board join kernel, written once; each ISA's file includes it inside its own
// namespace and target region (the simdjson pattern, as search.hpp).
//
// Backtracking grows about 7x per row; this kernel meets in the middle instead. The free
// columns of a subproblem are cut into a west and an east block. In a solution each open row
// holds its queen in one of the two blocks, so a solution is a pair of half-board placements:
// an east one (rows E, one queen per east column, no two attacking) and a west one on exactly
// the other rows. Columns and rows are then settled by construction; the only thing left to
// check between the halves is the diagonals, and only those that cross the cut can be shared:
// an east queen's anti-diagonal (row + column) is at least m, the first east column, and a
// west queen's is at most R - 1 + (m' the last west column), so only L = R - (m - m') of them
// can meet, and the same for the other direction. A half-board is therefore kept as
// (E, a 2L-bit pattern), and the count is
//     sum over E of #{(east a, west b) with rows(a) = E, rows(b) = ~E, a & b = 0}.
// How the two sides are enumerated depends on the subproblem. When it settles every row's half
// (the row-split plan: one E per subproblem, engine/count/plan.hpp), each half is enumerated by
// meeting in the middle again (join_settled_half: top part x bottom part, joined by columns).
// Otherwise (a front-end prefix, a random board) a depth-first walk over the rows, in which
// each row takes a queen of this half or leaves it to the other, enumerates a half for every E
// at once, and the leaves are bucketed by E with a counting sort on its colex rank.
//
// The pairs are counted with bit slices (count_disjoint): for the smaller side, slice j is the
// bit set of its members that leave diagonal j free; a member b of the other side meets
// AND_{j in b} slice_j, whose popcount is its number of partners: 512 pairs per vector AND,
// 7 diagonals per AND through subset tables, and a sieve on shared diagonals for large sides.
// The idea of east/west halves matched by bit slices is the one of E. Kluev's public counter;
// this code is our own.
//
// The cost moves from search nodes (~7^R) to half-board placements plus pair tests done 512
// at a time, which is why this kernel only pays off for many open rows (kJoinFromN in
// kernels.hpp, and the README's measurements).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/prefault.hpp"
#include "base/splitmix.hpp"
#include "kernels/kernels.hpp"
#include "kernels/subproblem.hpp"

namespace nq::NQ_KERNEL_NAMESPACE {

namespace join_detail {

// What an enumeration returns when a half has more than kJoinMaxLeaves placements: the
// subproblem is then counted by the search instead, so the kernel's memory stays bounded.
inline constexpr std::uint64_t kOverflow = ~std::uint64_t{0};

// C(n, k) for n, k <= 32, for the colex rank of a row set.
struct Binomials {
  std::uint32_t c[kMaxN + 1][kMaxN + 1] = {};
  constexpr Binomials() {
    for (int n = 0; n <= kMaxN; ++n) {
      c[n][0] = 1;
      for (int k = 1; k <= n; ++k) c[n][k] = c[n - 1][k - 1] + (k <= n - 1 ? c[n - 1][k] : 0);
    }
  }
};
inline constexpr Binomials kBinomials{};

// The colex rank of a k-subset of {0..31}: sum over its j-th smallest element e of C(e, j+1).
inline std::uint32_t colex_rank(std::uint32_t set) {
  std::uint32_t rank = 0;
  for (int j = 1; set; ++j) {
    const int e = std::countr_zero(set);
    set &= set - 1;
    rank += kBinomials.c[e][j];
  }
  return rank;
}

// One half-board placement: the colex rank of the east row set it stands for, and which of the
// 2L crossing diagonals it occupies.
struct Leaf {
  std::uint64_t pattern;
  std::uint32_t rank;
};

// What both halves share: the subproblem's per-row free squares and the crossing window.
struct Board {
  int rows = 0;
  std::uint32_t all_rows = 0;
  Mask allowed[kMaxN] = {};  // per row: free squares, before any queen of the open rows
  int first_east = 0;        // m: the lowest east column
  int last_west = 0;         // m': the highest west column
  int window = 0;            // L
  // The rows whose half is not settled by the subproblem itself (squares in both halves):
  // only they vary between leaves, so buckets are ranked on them alone. A row set E is ranked
  // by the colex rank of E's open rows, numbered among the open rows.
  std::uint32_t open_rows = 0;
};

// The crossing diagonals of square (row, c) as pattern bits: its anti-diagonal row + c - m
// (bit 0..L-1) and its main diagonal row - c + m' (bit L..2L-1), where they cross the cut.
inline std::uint64_t crossing_bits(const Board& b, int row, int c) {
  std::uint64_t p = 0;
  const int anti = row + c - b.first_east, main = row - c + b.last_west;
  if (static_cast<unsigned>(anti) < static_cast<unsigned>(b.window)) p |= 1ull << anti;
  if (static_cast<unsigned>(main) < static_cast<unsigned>(b.window)) p |= 1ull << (b.window + main);
  return p;
}

// The bits of x at the positions of mask, packed to the bottom (BMI2's PEXT in the AVX-512
// build, a loop elsewhere).
inline std::uint64_t extract_bits(std::uint64_t x, std::uint64_t mask) {
#ifdef NQ_JOIN_AVX512
  return _pext_u64(x, mask);
#else
  std::uint64_t packed = 0;
  for (std::uint64_t out = 1; mask; mask &= mask - 1, out <<= 1)
    if (x & mask & (0 - mask)) packed |= out;
  return packed;
#endif
}

// A counting sort of n items into `buckets` by key(i): start[k] is where bucket k begins
// (start has buckets + 1 entries), and place(i, at) puts item i at position `at`.
template <class Key, class Place>
void counting_sort(std::size_t n, std::uint32_t buckets, std::vector<std::uint32_t>& start, Key key,
                   Place place) {
  start.assign(buckets + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++start[key(i) + 1];
  for (std::uint32_t k = 0; k < buckets; ++k) start[k + 1] += start[k];
  // Fill with a moving cursor per bucket, then restore the starts.
  for (std::size_t i = 0; i < n; ++i) place(i, start[key(i)]++);
  for (std::uint32_t k = buckets; k > 0; --k) start[k] = start[k - 1];
  start[0] = 0;
}

// Enumerates the placements of one half (columns `half`, one queen each) over the open rows,
// appending a Leaf per complete one. `east` says which side's row set is ranked directly (the
// west ranks the complement of its rows). Returns the queens placed (the kernel's nodes).
inline std::uint64_t enumerate_half(const Board& b, Mask half, bool east, std::vector<Leaf>& out) {
  const int need = std::popcount(half);
  const int rows = b.rows;
  // A row may be left to the other half only if the other half has a square in it, and the
  // rows below must still be able to take this half's remaining queens: capacity[i] counts
  // the rows from i down that have a square in this half.
  bool may_skip[kMaxN];
  int capacity[kMaxN + 1];
  capacity[rows] = 0;
  for (int i = rows - 1; i >= 0; --i) {
    may_skip[i] = (b.allowed[i] & ~half) != 0;
    capacity[i] = capacity[i + 1] + ((b.allowed[i] & half) != 0);
  }
  struct Frame {
    Mask cols, ld, rd, avail;
    std::uint32_t row_set;
    std::uint64_t pattern;
    int placed;
    bool skip_tried;
  };
  Frame stack[kMaxN + 1];
  std::uint64_t nodes = 0;
  int d = 0;
  if (capacity[0] < need) return 0;
  stack[0] = {0, 0, 0, b.allowed[0] & half, 0, 0, 0, false};
  auto enter = [&](Frame& n, int row) {
    n.skip_tried = false;
    n.avail = n.placed < need && row < rows ? b.allowed[row] & half & ~(n.cols | n.ld | n.rd) : 0;
  };
  for (;;) {
    Frame& f = stack[d];
    if (d == rows) {
      if (out.size() >= kJoinMaxLeaves) return kOverflow;
      const std::uint32_t east_rows = east ? f.row_set : (b.all_rows & ~f.row_set);
      // Only ever called with open rows (count_join handles the settled case itself).
      out.push_back({f.pattern,
                     colex_rank(static_cast<std::uint32_t>(extract_bits(east_rows, b.open_rows)))});
      --d;
      continue;
    }
    if (f.avail) {
      const Mask bit = f.avail & (0u - f.avail);
      f.avail ^= bit;
      ++nodes;
      // Enough rows left below for the queens still to place?
      if (need - f.placed - 1 > capacity[d + 1]) continue;
      const int c = std::countr_zero(bit);
      const std::uint64_t p = f.pattern | crossing_bits(b, d, c);
      Frame& n = stack[d + 1];
      n.cols = f.cols | bit;
      n.ld = (f.ld | bit) << 1;
      n.rd = (f.rd | bit) >> 1;
      n.row_set = f.row_set | (1u << d);
      n.pattern = p;
      n.placed = f.placed + 1;
      enter(n, d + 1);
      ++d;
      continue;
    }
    if (!f.skip_tried && may_skip[d] && need - f.placed <= capacity[d + 1]) {
      // Leave this row to the other half.
      f.skip_tried = true;
      Frame& n = stack[d + 1];
      n.cols = f.cols;
      n.ld = f.ld << 1;
      n.rd = f.rd >> 1;
      n.row_set = f.row_set;
      n.pattern = f.pattern;
      n.placed = f.placed;
      enter(n, d + 1);
      ++d;
      continue;
    }
    if (d == 0) break;
    --d;
  }
  return nodes;
}

// A settled half (every row's half fixed by the subproblem: no row has squares in both, as in
// the row-split plan) is enumerated by meeting in the middle inside the half. Its rows are cut
// into a top and a bottom part; the bottom part's placements are made on their own (from two
// sub-parts, make_bottom) and bucketed by the columns they use, and the top part is walked
// depth first, each top placement joined with the bottom bucket holding exactly the half's other
// columns, a candidate pair kept when their diagonals are disjoint. Each check is a few branch-free
// operations, against about six search nodes per placement for a plain search over the half's rows
// (measured: the join alone took 1.3x less time at n = 18).
//
// The half comes out as a stream: the walk stops when the next top placement's bucket would
// not fit in the caller's chunk, and resumes there on the next call. So a half of any size
// (about 1e8 placements at n = 28) goes through bounded memory: the bottom part (at most
// kJoinMaxParts placements: a larger one moves a row to the top part) and one chunk.
//
// One part's placement.
struct Part {
  std::uint64_t anti, main, pattern;  // diagonals (row + col, row - col + 31), crossing bits
  std::uint64_t cols;                 // columns used, packed among the half's
};
// The bottom parts once bucketed, as arrays (the join streams through them 8 at a time): each
// one's diagonals where the top part can meet them (`clash`, DiagonalWindow) and crossing bits.
struct SortedParts {
  std::vector<std::uint64_t> clash, pattern;
};

// The diagonals a top and a bottom part of a half can share, as one word. The top part's rows
// all lie above the bottom part's, and the half's columns span at most 32, so the anti-diagonals
// both can occupy are at most 31 (from the bottom part's first row and the half's first column
// on), and the same for the main diagonals: anti-diagonals in the low 32 bits, main ones in the
// high 32. The clash test then takes one word a placement instead of two.
struct DiagonalWindow {
  int anti_from = 0, main_from = 0;  // the first diagonal of each kind in the window
  // For the bottom part starting at row `first_bottom` of a half with columns `half`.
  DiagonalWindow(int first_bottom, Mask half)
      : anti_from(first_bottom + std::countr_zero(half)),
        main_from(first_bottom - (31 - std::countl_zero(half)) + 31) {}
  std::uint64_t operator()(std::uint64_t anti, std::uint64_t main) const {
    return ((anti >> anti_from) & 0xffffffffull) | ((main >> main_from) << 32);
  }
};

// The placements of a half's rows row_of[0..count) (squares[j] free in row j, bits[j][c] the
// crossing bits of column c in it), depth first, one queen per row, no two attacking: a plain
// value that can stop and go on where it stopped (and be copied to come back there later).
struct PartWalk {
  Mask cols[kMaxN + 1] = {}, ld[kMaxN + 1] = {}, rd[kMaxN + 1] = {}, avail[kMaxN + 1] = {};
  std::uint64_t anti[kMaxN + 1] = {}, main[kMaxN + 1] = {}, pattern[kMaxN + 1] = {};
  int depth = 0;
  bool done = true;

  void start(Mask first_row_squares) {
    cols[0] = ld[0] = rd[0] = 0;
    anti[0] = main[0] = pattern[0] = 0;
    avail[0] = first_row_squares;
    depth = 0;
    done = false;
  }
  // Calls at(anti, main, pattern, cols) for each placement from where the walk stands: its
  // diagonals (row + col, row - col + 31), crossing bits and columns. at returns false to stop
  // the walk before that placement, which the next run() meets again. Sets `done` at the end.
  template <class At>
  void run(const int* row_of, const Mask* squares, int count, const std::uint64_t (*bits)[kMaxN],
           At&& at) {
    int d = depth;
    for (;;) {
      const Mask a = avail[d];
      if (a == 0) {
        if (d == 0) {
          done = true;
          break;
        }
        --d;
        continue;
      }
      const Mask bit = a & (0u - a);
      const int c = std::countr_zero(bit), row = row_of[d];
      const std::uint64_t na = anti[d] | 1ull << (row + c), nm = main[d] | 1ull << (row - c + 31);
      const std::uint64_t np = pattern[d] | bits[d][c];
      const Mask nc = cols[d] | bit;
      if (d + 1 == count) {
        if (!at(na, nm, np, nc)) break;
        avail[d] = a ^ bit;
        continue;
      }
      avail[d] = a ^ bit;
      const int gap = row_of[d + 1] - row;
      const Mask nl = (ld[d] | bit) << gap, nr = (rd[d] | bit) >> gap;
      const Mask next = squares[d + 1] & ~(nc | nl | nr);
      if (next == 0) continue;
      ++d;
      cols[d] = nc;
      ld[d] = nl;
      rd[d] = nr;
      anti[d] = na;
      main[d] = nm;
      pattern[d] = np;
      avail[d] = next;
    }
    depth = d;
  }
};

// A half's columns packed to the bottom bits (the bucket key of a part's columns).
inline Mask packed_columns(Mask cols, Mask half) {
  const int low = std::countr_zero(half);
  return std::has_single_bit((half >> low) + 1) ? cols >> low
                                                : static_cast<Mask>(extract_bits(cols, half));
}

// Placements of rows row_of[0..count) (squares[j] free in row j), appended to `out`.
// Returns false (and stops) past `limit` placements.
inline bool enumerate_part(const int* row_of, const Mask* squares, int count, Mask half,
                           const std::uint64_t (*bits)[kMaxN], std::size_t limit,
                           std::vector<Part>& out) {
  PartWalk walk;
  walk.start(squares[0]);
  bool full = false;
  walk.run(row_of, squares, count, bits,
           [&](std::uint64_t a, std::uint64_t m, std::uint64_t p, Mask cols) {
             if (out.size() >= limit) return !(full = true);
             out.push_back({a, m, p, packed_columns(cols, half)});
             return true;
           });
  return !full;
}

// The candidates [lo, hi) for T placements at once (each candidate read once for all T): for
// each placement i, every candidate j whose `test` word misses t_test[i] is written, as
// in[s][j] | t_in[s][i], to out[s] for each of the S streams s; returns how many in all. Each
// out[s] must have room for T (hi - lo) + 8. It and its two forms below are always inlined:
// left to itself, GCC 12 called the two-part forms out of the loops that had inlined them.
template <int T, int S>
[[gnu::always_inline]] inline std::uint32_t join_candidates(const std::uint64_t* test,
                                                            const std::uint64_t* const (&in)[S],
                                                            std::uint32_t lo, std::uint32_t hi,
                                                            const std::uint64_t* t_test,
                                                            const std::uint64_t* const (&t_in)[S],
                                                            std::uint64_t* const (&out)[S]) {
#ifdef NQ_JOIN_AVX512
  std::uint64_t* at[S];  // where each stream's next output goes
  for (int s = 0; s < S; ++s) at[s] = out[s];
  __m512i tt[T], ti[T][S];
  for (int i = 0; i < T; ++i) {
    tt[i] = _mm512_set1_epi64(static_cast<long long>(t_test[i]));
    for (int s = 0; s < S; ++s) ti[i][s] = _mm512_set1_epi64(static_cast<long long>(t_in[s][i]));
  }
  for (std::uint32_t j = lo; j < hi; j += 8) {
    const __mmask8 in_range =
        hi - j >= 8 ? __mmask8{0xff} : static_cast<__mmask8>((1u << (hi - j)) - 1);
    const __m512i c = _mm512_maskz_loadu_epi64(in_range, test + j);
    __m512i v[S];
    for (int s = 0; s < S; ++s) v[s] = _mm512_maskz_loadu_epi64(in_range, in[s] + j);
    for (int i = 0; i < T; ++i) {
      const __mmask8 keep = _mm512_mask_testn_epi64_mask(in_range, c, tt[i]);
      const int kept = std::popcount(static_cast<unsigned>(keep));
      // Compress in a register and store all 8 lanes (out has room): a compressing store to
      // memory is microcoded and slow on AMD's Zen 4 and 5.
      for (int s = 0; s < S; ++s) {
        _mm512_storeu_si512(at[s],
                            _mm512_maskz_compress_epi64(keep, _mm512_or_si512(v[s], ti[i][s])));
        at[s] += kept;
      }
    }
  }
  return static_cast<std::uint32_t>(at[0] - out[0]);
#else
  std::uint32_t n = 0;
  for (int i = 0; i < T; ++i)
    for (std::uint32_t j = lo; j < hi; ++j) {
      for (int s = 0; s < S; ++s) out[s][n] = t_in[s][i] | in[s][j];
      n += (t_test[i] & test[j]) == 0;
    }
  return n;
#endif
}

// The candidates bottom[lo..hi) for T top parts at once: for each top part i, writes
// t_pattern[i] | pattern of each candidate whose diagonals (DiagonalWindow) miss t_clash[i] to
// dst, returns how many in all. dst must have room for T (hi - lo) + 8.
template <int T>
[[gnu::always_inline]] inline std::uint32_t join_bucket(
    const std::uint64_t* clash, const std::uint64_t* pattern, std::uint32_t lo, std::uint32_t hi,
    const std::uint64_t* t_clash, const std::uint64_t* t_pattern, std::uint64_t* dst) {
  return join_candidates<T, 1>(clash, {pattern}, lo, hi, t_clash, {t_pattern}, {dst});
}

// A bottom part is made from two sub-parts, the placements of its upper rows and those of its
// lower rows, each bucketed by its packed columns: the bottom bucket of columns S is every pair
// of an upper placement on some S1 in S and a lower one on S \ S1 whose diagonals miss each
// other, made in bucket order (make_bottom). So a bottom placement costs a share of one vector
// test instead of a few nodes of a depth-first walk (each a coin toss for the branch predictor)
// and a counting sort. Whole counts on 2 threads, alternated with the walk, medians of six:
// n = 16 0.922, 17 0.883, 18 0.884; nq_bench_join (its runs make a bottom part more often
// than a count does), both cores at once and then swapped, 3 rounds, medians of 6: n = 18
// 0.804, 19 0.910, 20 0.945, 21 long 0.997, 22 long 0.981. Two upper placements against each
// load of lower ones (join_sub<2>), against one: whole counts n = 16 0.955, 17 0.938, 18 0.987
// (medians of eight, alternated); nq_bench_join n = 19 0.991, 20 1.000 (medians of 6).
//   The sub-parts, upper then lower in one set of arrays: their diagonals where the other
// sub-part's can meet them (`meet`, DiagonalWindow from the lower part's first row), in the
// bottom part's window (`clash`) and crossing bits.
struct SubParts {
  std::vector<std::uint64_t> meet, clash, pattern;
  std::vector<std::uint32_t> upper_start, lower_start;  // lower_start from the first lower one
};

// For T upper sub-parts at once (meets um, clashes uc, patterns up; each lower one read once
// for all T): the lower ones [lo, hi) whose diagonals miss each, combined (clash and pattern
// ORed) and written to dc and dp; returns how many in all. dc and dp need room for
// T (hi - lo) + 8.
template <int T>
[[gnu::always_inline]] inline std::uint32_t join_sub(const SubParts& sub, std::uint32_t lo,
                                                     std::uint32_t hi, const std::uint64_t* um,
                                                     const std::uint64_t* uc,
                                                     const std::uint64_t* up, std::uint64_t* dc,
                                                     std::uint64_t* dp) {
  return join_candidates<T, 2>(sub.meet.data(), {sub.clash.data(), sub.pattern.data()}, lo, hi, um,
                               {uc, up}, {dc, dp});
}

// A half's bucketed bottom part, kept for the next subproblem: subproblems that follow each
// other in the row-split plan mostly share a half's bottom rows (the plan is in colex order of
// E), and then only the top part is walked again. Counted on one thread: the west and east
// bottom parts were made 1,194 and 1,828 times for n = 18's 12,283 subproblems, 1,897 and 3,139
// times for n = 20's 46,508.
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
// and hs.start (bucketed by packed columns), from its two sub-parts (SubParts above). Returns
// false (hs.sorted partly written) past `limit` placements, or when the sub-parts have more than
// limit / 4 in all. Then hs.bottom and hs.sub hold at most limit / 4 placements, and hs.sorted
// at most limit + limit / 4 + 8 (a last lower bucket's worth past the limit, and the vector
// stores' slack): the bound of join_scratch_bytes (kernels.hpp).
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
  // order (the two halves' bottom parts take 1.4 MB at n = 22, more than the 1 MB L2 cache of
  // the machine measured). nq_bench_join, one thread, against the walk's order (7 paired rounds,
  // medians of the per-round ratios): n = 19 0.982, 20 0.986, 21's long runs 0.973, 22's 0.974;
  // whole counts on 2 threads, n = 19 and 20 about 0.99, n = 21 0.962.
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
    // the most rows. Measured at n = 17, 18, 20 (one thread, plan order): top (k+1)/2 -> k/2
    // cut the time by a quarter; k/2 - 1 gained again at n = 17 and 20. From 11 rows a half,
    // k/2 again (a bottom part of a row less, made again for a fraction of the subproblems, for
    // a longer top walk on all of them): over runs of 40 to 120 consecutive subproblems, one
    // thread, alternated, 3 to 4% less time at n = 21 and 22, the same within the noise at
    // n = 23; k/2 at 9 and 10 rows was slower, by 3% in whole counts at n = 18 and 11% over
    // runs at n = 20. Since bottom parts come from sub-parts (make_bottom), a larger one costs
    // less, and 11 rows take k/2 - 1 again: n = 21 whole counts on 2 threads, alternated,
    // 132.95 and 132.97 s against 138.48 and 138.59 (0.960); nq_bench_join at n = 22, pairs on
    // both cores, 0.980 and 0.994 on the long runs and 1.009 on the short ones (medians of 4).
    // From 12 rows it stays k/2 (not measured; n = 23's west half has 11 rows, and takes
    // k/2 - 1, not measured there either).
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
        // would fit one after the other too: the chunks end where they did): 1 to 4% less time
        // than one at a time at n = 18 to 22 (nq_bench_join); four at once did no better.
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

// W words (64 W members) as one vector: a zmm register for W = 8 in the AVX-512 build.
typedef std::uint64_t Words4 __attribute__((vector_size(32)));
typedef std::uint64_t Words8 __attribute__((vector_size(64)));
template <int W>
struct WordsOf;
template <>
struct WordsOf<4> {
  using type = Words4;
};
template <>
struct WordsOf<8> {
  using type = Words8;
};
template <int W>
using Words = typename WordsOf<W>::type;

// Per-lane popcounts. The AVX-512 build (NQ_JOIN_AVX512) has VPOPCNTQ; elsewhere, per lane.
// sums += per-lane popcounts of v (by reference: vector arguments by value would change the
// ABI in the baseline build).
template <int W>
inline void add_lane_popcounts(Words<W>& sums, const Words<W>& v) {
#ifdef NQ_JOIN_AVX512
  if constexpr (W == 8) {
    sums += reinterpret_cast<Words<W>>(_mm512_popcnt_epi64(reinterpret_cast<__m512i>(v)));
    return;
  }
  if constexpr (W == 4) {
    sums += reinterpret_cast<Words<W>>(_mm256_popcnt_epi64(reinterpret_cast<__m256i>(v)));
    return;
  }
#endif
  for (int i = 0; i < W; ++i) sums[i] += static_cast<std::uint64_t>(std::popcount(v[i]));
}

// Transpose of a 64 x 64 bit matrix: bit j of in[i] goes to bit i of out[j] (out may be in).
#ifdef NQ_JOIN_AVX512
// An 8 x 8 transpose of 64-bit lanes across eight registers (lane m of t[c] and lane c of
// t[m] trade places), in three steps: pairs, pairs of pairs, halves.
inline void transpose_lanes(__m512i* t) {
  __m512i s[8], q[8];
  for (int p = 0; p < 8; p += 2) {
    s[p] = _mm512_unpacklo_epi64(t[p], t[p + 1]);
    s[p + 1] = _mm512_unpackhi_epi64(t[p], t[p + 1]);
  }
  const __m512i even = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i odd = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int p : {0, 1, 4, 5}) {
    q[p] = _mm512_permutex2var_epi64(s[p], even, s[p + 2]);
    q[p + 2] = _mm512_permutex2var_epi64(s[p], odd, s[p + 2]);
  }
  for (int p = 0; p < 4; ++p) {
    t[p] = _mm512_shuffle_i64x2(q[p], q[p + 4], 0x44);
    t[p + 4] = _mm512_shuffle_i64x2(q[p], q[p + 4], 0xee);
  }
}
// With GFNI and VBMI, on eight zmm registers (register m, lane l holds in[8m + l]), in 8 x 8
// blocks: VPERMB gathers in each lane the bytes of one column block of the register's eight
// rows, GF2P8AFFINEQB transposes each lane's 8 x 8 bits, the lanes trade places across the
// registers (an 8 x 8 transpose of 64-bit lanes) and VPERMB puts the bytes of each row
// together. About 50 vector operations against about 230 for the block swaps (six steps of
// shifts, masks and shuffles) before it: a 64 x 64 transpose takes about a quarter of their
// time.
//   Byte permutations: `gather` makes lane c's byte 7 - q byte c of lane q (the rows reversed,
// as the affine step wants them); `rows` makes lane i's byte m byte i of lane m.
struct BytePermutations {
  alignas(64) std::uint8_t gather[64] = {}, rows[64] = {};
  constexpr BytePermutations() {
    for (int c = 0; c < 8; ++c)
      for (int q = 0; q < 8; ++q) {
        gather[8 * c + 7 - q] = static_cast<std::uint8_t>(8 * q + c);
        rows[8 * c + q] = static_cast<std::uint8_t>(8 * q + c);
      }
  }
};
inline constexpr BytePermutations kBytePermutations{};
inline void transpose64(const std::uint64_t* in, std::uint64_t* out) {
  const __m512i gather = _mm512_load_si512(kBytePermutations.gather);
  const __m512i rows = _mm512_load_si512(kBytePermutations.rows);
  // GF2P8AFFINEQB(x, A), lane by lane: bit k of the result's byte i is the parity of x's byte i
  // AND A's byte 7 - k. With x's byte i = 1 << i that is bit i of A's byte 7 - k: A's 8 x 8 bits
  // transposed.
  const __m512i unit = _mm512_set1_epi64(0x8040201008040201ll);
  __m512i t[8];
  for (int m = 0; m < 8; ++m)
    t[m] = _mm512_gf2p8affine_epi64_epi8(
        unit, _mm512_permutexvar_epi8(gather, _mm512_loadu_si512(in + 8 * m)), 0);
  // Lane c of t[m] holds byte m of output rows 8c..8c+7: after the lanes' transpose, lane m of
  // t[c].
  transpose_lanes(t);
  for (int c = 0; c < 8; ++c) _mm512_storeu_si512(out + 8 * c, _mm512_permutexvar_epi8(rows, t[c]));
}
#else
// The recursive block swap of Hacker's Delight, 7-3: at step j, the j x j blocks off the
// diagonal of every 2j x 2j block trade places.
inline void transpose64(const std::uint64_t* in, std::uint64_t* out) {
  if (in != out) std::copy(in, in + 64, out);
  std::uint64_t m = 0x00000000ffffffffull;
  for (int j = 32; j != 0; j >>= 1, m ^= m << j) {
    for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
      const std::uint64_t t = ((out[k] >> j) ^ out[k | j]) & m;
      out[k] ^= t << j;
      out[k | j] ^= t;
    }
  }
}
#endif

// Chunk tables: for each group of kChunkBits diagonals and each subset of them, the AND of their
// slices, so a member of the small side costs a fixed chunks_of(bits) ANDs, without a
// branch per occupied diagonal. 7 bits: the tables of a 512-member block (128 entries of 64
// bytes per chunk, 5 chunks for the 34 diagonals of n = 18) take 40 KB, inside the 48 KB L1 of
// the machines measured then (the notes called them Zen 5); against 6 bits (6 chunks, 24 KB) the
// pair counting took 5% less time at n = 18, 19 and 20 (one thread, CPU time over sampled
// subproblems). A 32 KB L1 is overflowed at n = 22 (40 KB) by an 8-bit last chunk; 7-bit
// chunks only (a fifth load, 32 KB) take the same time within the noise on such a CPU, and fit.
inline constexpr int kChunkBits = 7;
inline constexpr int kChunkValues = 1 << kChunkBits;
// Table entries are 64 bytes apart for W = 4 too (half of each unused), so that one set of
// offsets serves both widths.
inline constexpr std::size_t kEntryBytes = 64;
inline constexpr std::size_t kTableBytes = kEntryBytes * kChunkValues;

// The last chunk takes 8 diagonals where that saves a chunk (bits = 7 k + 1): its table has 256
// entries, and 4 chunks take the 40 KB of 5. At n = 22, 46% of the pair work (weighted by pairs,
// nq_bench_join) has 29 diagonals left after the sieve's cuts; with 4 chunks instead of 5 the
// long runs of n = 22 took 8 to 13% less time (one thread, alternated: 2,999 and 2,976 ms
// against 3,455 and 3,239), the short ones 9 to 10%, n = 18 to 20 2 to 4%, n = 21 the same.
inline constexpr int kLastChunkBits = kChunkBits + 1;
inline int chunks_of(int bits) {
  return bits > 1 && bits % kChunkBits == 1 ? bits / kChunkBits
                                            : (bits + kChunkBits - 1) / kChunkBits;
}
// The diagonals of chunk k (of `chunks`) when the patterns have `bits` of them.
inline int chunk_width(int bits, int chunks, int k) {
  return k + 1 < chunks ? kChunkBits : bits - kChunkBits * k;
}

// Each pattern's table offsets, once per pattern: out[chunks i + k] is the byte offset of its
// chunk k's entry in table k ((p >> 7k) & 127, times the entry size). Computed in the visit
// loop instead, they took two shifts and an AND per chunk on every block a pattern visits.
//   One pattern's: made in 64-bit words of four offsets and stored with one copy. The bits of
// chunk k, in word k / 4, go to offset k % 4's bits 6 and up (times kEntryBytes); the last chunk
// runs to the pattern's end (8 bits at most, those past it are 0). The AVX-512 build makes a
// word with one PDEP, whose mask offsets_deposit gives.
static_assert(kEntryBytes == 64 && 4 * kChunkBits == 28);
constexpr std::uint64_t chunk_mask(int chunks, int k) {
  return (k + 1 < chunks ? std::uint64_t{kChunkValues} : std::uint64_t{1} << kLastChunkBits) - 1;
}
constexpr std::uint64_t offsets_deposit(int chunks, int w) {
  std::uint64_t mask = 0;
  for (int k = 4 * w; k < std::min(chunks, 4 * w + 4); ++k)
    mask |= chunk_mask(chunks, k) << (16 * (k % 4) + 6);
  return mask;
}
// Chunk k's byte offset in its table for the packed pattern p (the scalar form of the above).
template <int kChunks>
constexpr std::uint64_t chunk_offset(std::uint64_t p, int k) {
  return (p >> (kChunkBits * k) & chunk_mask(kChunks, k)) * kEntryBytes;
}
template <int kChunks>
void pattern_offsets(std::uint64_t p, std::uint16_t* out) {
  std::uint64_t words[(kChunks + 3) / 4] = {};
  for (int w = 0; 4 * w < kChunks; ++w) {
#ifdef NQ_JOIN_AVX512
    words[w] = _pdep_u64(p >> (4 * kChunkBits * w), offsets_deposit(kChunks, w));
#else
    for (int k = 4 * w; k < std::min(kChunks, 4 * w + 4); ++k)
      words[w] |= chunk_offset<kChunks>(p, k) << (16 * (k % 4));
#endif
  }
  std::memcpy(out, words, 2 * kChunks);
}
// Each pattern's bits under `keep` (all of them: ~0), packed, then its offsets: one pass, where
// the packed patterns would be stored and read again (the pair counter reads only the offsets).
template <int kChunks>
void chunk_offsets_fixed(const std::uint64_t* p, std::size_t n, std::uint64_t keep,
                         std::uint16_t* out) {
  if (keep == ~0ull)
    for (std::size_t i = 0; i < n; ++i, out += kChunks) pattern_offsets<kChunks>(p[i], out);
  else
    for (std::size_t i = 0; i < n; ++i, out += kChunks)
      pattern_offsets<kChunks>(extract_bits(p[i], keep), out);
}
// Calls f(std::integral_constant<int, c>{}) for c = chunks, 1..9 (ceil(62 / kChunkBits): the
// most diagonals a pattern has): a run-time chunk count made a template argument, so that the
// loops over the chunks unroll.
template <class F>
void with_chunks(int chunks, F&& f) {
  [&]<int... C>(std::integer_sequence<int, C...>) {
    (void)((chunks == C + 1 ? (f(std::integral_constant<int, C + 1>{}), true) : false) || ...);
  }
  (std::make_integer_sequence<int, 9>{});
}

// Spare offsets after the last member's: match_chunks reads a member's in whole 64-bit words.
inline constexpr std::size_t kOffsetsSlack = 3;

inline void chunk_offsets(const std::uint64_t* p, std::size_t n, std::uint64_t keep, int chunks,
                          std::uint16_t* out) {
  with_chunks(chunks, [&](auto c) { chunk_offsets_fixed<c()>(p, n, keep, out); });
}

// sums += popcounts of (lanes AND over k of table k's entry at offsets k), for each of the n
// members of the small side (lanes: the block's members that the visit may meet). The chunk count
// is a template argument so the loop unrolls (no per-chunk branch).
template <int W, int kChunks>
void match_chunks_fixed(const char* table, const std::uint16_t* offsets, std::size_t n,
                        const Words<W>& lanes, Words<W>& sums) {
  using V = Words<W>;
  V local = sums;  // in a register: the compiler cannot tell `sums` from the tables
  const V start = lanes;
  // Unrolled by 4 (nq_bench_join, one thread, alternated with the rolled loop: 10% less time
  // at n = 20, 14% on the long runs of n = 21, 0 to 8% on those of n = 22; by 2: a little
  // less; by 8, or two members a step into two sums: no better).
#pragma GCC unroll 4
  for (std::size_t i = 0; i < n; ++i) {
    // A member's offsets in 64-bit words (4 a word), shifted out of registers: one load for
    // four, where one load each made the loads the limit (Zen 5: 1.13x at n = 20). The offsets
    // have 3 spare entries at the end for the last member's words (kOffsetsSlack).
    std::uint64_t words[(kChunks + 3) / 4];
    std::memcpy(words, offsets + i * kChunks, sizeof words);
    V acc = start;
    for (int k = 0; k < kChunks; ++k)
      acc &= *reinterpret_cast<const V*>(table + kTableBytes * k +
                                         (words[k / 4] >> (16 * (k % 4)) & 0xffff));
    add_lane_popcounts<W>(local, acc);
  }
  sums = local;
}
template <int W>
void match_chunks(const char* table, int chunks, const std::uint16_t* offsets, std::size_t n,
                  const Words<W>& lanes, Words<W>& sums) {
  with_chunks(chunks, [&](auto c) { match_chunks_fixed<W, c()>(table, offsets, n, lanes, sums); });
}
// The same from the members' patterns (their bits under `keep`, packed: ~0 for all of them),
// each chunk's offset made on the way: for a call with one block, where the offsets would be
// made, stored and read once (the unsieved path from 512 sliced members on still makes them:
// whole counts on 2 threads, alternated with offsets for every call, medians of 10 and 16:
// n = 16 0.916 and 0.952, 17 0.991 and 0.986, 18 0.991; up to 1024 or 2048 members, no better).
template <int W, int kChunks, bool kPack>
void match_patterns_fixed(const char* table, const std::uint64_t* patterns, std::uint64_t keep,
                          std::size_t n, const Words<W>& lanes, Words<W>& sums) {
  using V = Words<W>;
  V local = sums;
  const V start = lanes;
#pragma GCC unroll 4
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t p = kPack ? extract_bits(patterns[i], keep) : patterns[i];
    V acc = start;
    for (int k = 0; k < kChunks; ++k)
      acc &= *reinterpret_cast<const V*>(table + kTableBytes * k + chunk_offset<kChunks>(p, k));
    add_lane_popcounts<W>(local, acc);
  }
  sums = local;
}
template <int W>
void match_patterns(const char* table, int chunks, const std::uint64_t* patterns,
                    std::uint64_t keep, std::size_t n, const Words<W>& lanes, Words<W>& sums) {
  with_chunks(chunks, [&](auto c) {
    if (keep == ~0ull)
      match_patterns_fixed<W, c(), false>(table, patterns, keep, n, lanes, sums);
    else
      match_patterns_fixed<W, c(), true>(table, patterns, keep, n, lanes, sums);
  });
}

// Pairs (a in big, b in small) with a & b == 0, by bit slices over `big`, in blocks of 64 W
// members: a block's slices (bits vectors) stay in L1 while every member of the small side
// visits them, one vector AND per chunk of diagonals. The chunk tables are always built: the
// sieve's visits come as chunk offsets, and an unsieved call has at least 32 small-side members
// (count_disjoint tests fewer pair by pair).
// A run of patterns that visits the slices, with their chunk offsets, and the lanes of the
// block it may meet (the first W words of `lanes`; nullptr: every member). The sieve's runs
// come as offsets only (patterns nullptr, in every run of the call).
struct Range {
  const std::uint64_t* patterns;
  const std::uint16_t* offsets;
  std::size_t size;
  const std::uint64_t* lanes = nullptr;
  std::uint64_t keep = ~0ull;  // with patterns and no offsets: their bits that the slices have
};

template <int W>
std::uint64_t count_disjoint_sliced(const std::uint64_t* big, std::size_t nbig, const Range* visit,
                                    std::size_t visits, int bits,
                                    std::vector<std::uint64_t>& storage, bool narrow_visits) {
  using V = Words<W>;
  constexpr std::size_t kMembers = 64 * W;
  const int chunks = chunks_of(bits);
  storage.resize(static_cast<std::size_t>(bits) * W +
                 static_cast<std::size_t>(chunks + 1) * kTableBytes / 8 + 8);
  V* slices = reinterpret_cast<V*>((reinterpret_cast<std::uintptr_t>(storage.data()) + 63) &
                                   ~std::uintptr_t{63});  // 64-byte aligned
  char* table = reinterpret_cast<char*>(slices + bits);
  auto entry = [&](int k, int v) -> V& {
    return *reinterpret_cast<V*>(table + kTableBytes * static_cast<std::size_t>(k) +
                                 kEntryBytes * static_cast<std::size_t>(v));
  };
  V sums = {};
  Words<4> half_sums = {};  // visits of half the block's lanes (W = 8)
  for (std::size_t b0 = 0; b0 < nbig; b0 += kMembers) {
    const std::size_t count = std::min(kMembers, nbig - b0);
    // `member`: the block's lanes that hold a member; slice j: the members that leave diagonal
    // j free (every member, less those that occupy it).
    V member;
    for (int w = 0; w < W; ++w) {
      const std::size_t lo = static_cast<std::size_t>(w) * 64;
      const std::size_t in = count > lo ? std::min<std::size_t>(64, count - lo) : 0;
      member[w] = in == 64 ? ~0ull : (1ull << in) - 1;
    }
    // Transpose each 64 members' patterns (64 x 64 bits): row j then lists the members that
    // occupy diagonal j, about 6 operations a member against one per occupied diagonal.
    alignas(64) std::uint64_t rows[W][64];
    for (int w = 0; w < W; ++w) {
      const std::size_t lo = static_cast<std::size_t>(w) * 64;
      // 64 members in place, or the last few and zeros (copied into the matrix's own words)
      const std::uint64_t* in = rows[w];
      if (lo + 64 <= count)
        in = big + b0 + lo;
      else
        for (std::size_t t = 0; t < 64; ++t) rows[w][t] = lo + t < count ? big[b0 + lo + t] : 0;
      transpose64(in, rows[w]);
    }
    // Slice j's word w is row j of matrix w, less the lanes without a member. In the AVX-512
    // build with W = 8, eight slices at a time: an 8 x 8 transpose of rows 8c..8c+7 of the eight
    // matrices (the word-by-word copy took about as long as the bit transposes themselves).
#ifdef NQ_JOIN_AVX512
    if constexpr (W == 8) {
      for (int c = 0; 8 * c < bits; ++c) {
        __m512i t[8];
        for (int w = 0; w < 8; ++w) t[w] = _mm512_load_si512(rows[w] + 8 * c);
        transpose_lanes(t);
        for (int i = 0; i < 8 && 8 * c + i < bits; ++i)
          slices[8 * c + i] = member & ~reinterpret_cast<V>(t[i]);
      }
    } else
#endif
      for (int w = 0; w < W; ++w)
        for (int j = 0; j < bits; ++j) slices[j][w] = member[w] & ~rows[w][j];
    // (Through a reference: a vector return value would change the ABI in the baseline build.)
    auto lanes_of = [&](const Range& r, V& lanes) -> const V& {
      lanes = member;
      if (r.lanes != nullptr)
        for (int w = 0; w < W; ++w) lanes[w] &= r.lanes[w];
      return lanes;
    };
    V lanes;
    for (int k = 0; k < chunks; ++k) {
      for (int w = 0; w < W; ++w) entry(k, 0)[w] = ~0ull;
      // Doubling: the entries with diagonal t as their highest are those below, ANDed with
      // slice t (a load, an AND and a store each). Filled each from the entry without its
      // lowest bit, the tables took 10% of this function's time at n = 22; by doubling 4.4%,
      // and nq_bench_join (one thread, alternated) 5 to 9% less at n = 18 to 22.
      for (int t = 0, width = chunk_width(bits, chunks, k); t < width; ++t) {
        const V slice = slices[kChunkBits * k + t];
        for (int v = 0, half = 1 << t; v < half; ++v) entry(k, half + v) = entry(k, v) & slice;
      }
    }
    for (std::size_t r = 0; r < visits; ++r) {
      const V& meet = lanes_of(visit[r], lanes);
      if (visit[r].offsets == nullptr) {
        match_patterns<W>(table, chunks, visit[r].patterns, visit[r].keep, visit[r].size, meet,
                          sums);
        continue;
      }
      if constexpr (W == 8) {
        // A visit whose lanes all lie in one half of the block (38 to 45% of the visits at
        // n = 20 to 22) reads only that half of each table entry: 256-bit loads, one operation
        // each on Zen 4, which splits a 512-bit one in two, and the loop is bound by its loads.
        // There it takes about 5% less time at n = 20 to 22; where loads are 512 bits wide
        // (Zen 5, Intel) it gains nothing or loses, the test being a branch that goes either
        // way (perf/results/log.md). So the AVX-512 build does it only where the CPU splits its
        // wide loads (cpu_splits_wide_loads); the baseline build always, as before (its vectors are
        // SSE2's 128 bits, so half an entry is half the operations).
        if (narrow_visits) {
          const std::uint64_t low = meet[0] | meet[1] | meet[2] | meet[3];
          const std::uint64_t high = meet[4] | meet[5] | meet[6] | meet[7];
          if (low == 0 || high == 0) {
            const int h = low == 0 ? 4 : 0;
            const Words<4> part = {meet[h], meet[h + 1], meet[h + 2], meet[h + 3]};
            match_chunks<4>(table + 8 * h, chunks, visit[r].offsets, visit[r].size, part,
                            half_sums);
            continue;
          }
        }
      }
      match_chunks<W>(table, chunks, visit[r].offsets, visit[r].size, meet, sums);
    }
  }
  std::uint64_t total = 0;
  for (int w = 0; w < W; ++w) total += sums[w];
  for (int w = 0; w < 4; ++w) total += half_sums[w];
  return total;
}

// Scratch for the sieve below.
struct SieveScratch {
  std::vector<std::uint64_t> a, slices;  // a: the sliced side, packed and sorted
  std::vector<std::uint16_t> offsets;    // the visiting side's chunk offsets
  std::vector<std::uint32_t> a_start, b_start;
  std::vector<std::uint32_t> counts;  // sieve_sort's histograms and cursors
  std::vector<Range> visit;
  std::vector<std::uint64_t> lanes;       // the visits' lanes, 8 words each
  std::vector<std::uint64_t> pairs;       // cuts_by_pairs' bit sets of sampled pairs
  std::vector<std::uint32_t> part_start;  // the groups' starts among the members one vl meets
  // The group (key) that has each layout key (the cut diagonals' bits in the order the blocks
  // want).
  std::vector<std::uint32_t> group_at;
  // Whether a visit of half a block reads half-entries (count_disjoint_sliced).
#ifdef NQ_JOIN_AVX512
  bool narrow_visits = cpu_splits_wide_loads();
#else
  bool narrow_visits = true;
#endif
};

// Word w of the 512-bit mask with bits [from, to) set (w within them).
inline std::uint64_t lane_word(std::size_t from, std::size_t to, std::size_t w) {
  const std::size_t a = std::max(from, w * 64) - w * 64, b = std::min(to, w * 64 + 64) - w * 64;
  return (b == 64 ? ~0ull : (1ull << b) - 1) & ~((1ull << a) - 1);
}

// The most diagonals the sieve below cuts (2^kMaxCuts groups a side).
inline constexpr int kMaxCuts = 12;

// Counting-sorts patterns by their bits under `cut` (2^c groups): place(x, at) stores the
// pattern's bits under `keep` (x, packed to the bottom) at position `at` of the sorted order.
// The groups come in the order of their keys, or of `order` (order[i]: the i-th group), and
// start[i] is where the i-th begins.
// The histogram is four interleaved ones, so that runs of one key do not wait on each other's
// increments. Each key is extracted twice (a PEXT each time): kept from the first pass to the
// second, the keys took a store and a load a pattern, and nq_bench_join (both cores at once and
// then swapped, 3 rounds, medians of 6) took n = 18 0.979, 19 0.951, 20 0.969 of that time
// without them.
template <class Place>
void sieve_sort(const std::uint64_t* p, std::size_t n, std::uint64_t cut, std::uint64_t keep, int c,
                std::vector<std::uint32_t>& start, std::vector<std::uint32_t>& counts, Place place,
                const std::uint32_t* order = nullptr) {
  static_assert(kMaxCuts <= 16);
  const std::uint32_t groups = 1u << c;
  // Four histograms, then four cursors, of `groups` entries each (in the scratch: 2^12 groups
  // would take 128 KB of stack). Only the histograms start at zero; the cursors are set below.
  counts.resize(8 * std::size_t{groups});
  std::fill(counts.begin(), counts.begin() + 4 * std::ptrdiff_t{groups}, 0u);
  std::uint32_t* count[4];
  std::uint32_t* cursor[4];
  for (std::size_t k = 0; k < 4; ++k) {
    count[k] = counts.data() + k * groups;
    cursor[k] = counts.data() + (4 + k) * groups;
  }
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (std::size_t k = 0; k < 4; ++k) ++count[k][extract_bits(p[i + k], cut)];
  for (; i < n; ++i) ++count[0][extract_bits(p[i], cut)];
  // The scatter keeps the four streams too: stream k (the items i = k mod 4) fills its own part
  // of each group, after the parts of the streams before it. With one cursor per group, items
  // of one key in a row (the common case: patterns come in enumeration order) each waited for
  // the previous one's cursor store (a store-to-load forwarding chain).
  start.resize(groups + 1);
  start[0] = 0;
  for (std::uint32_t pos = 0; pos < groups; ++pos) {
    const std::uint32_t g = order != nullptr ? order[pos] : pos;
    std::uint32_t at = start[pos];
    for (std::size_t k = 0; k < 4; ++k) {
      cursor[k][g] = at;
      at += count[k][g];
    }
    start[pos + 1] = at;
  }
  // The tail items (past the last multiple of four) were counted in stream 0. Its part of each
  // group comes first, so stream 0 alone can also place every item of the group in a row.
  //   From 2^10 groups it does (one cursor a group): the four streams' parts of the groups are then
  // small, and their 4 x 2^c places being written at once (a cache line each) more than the caches
  // hold beside the output. nq_bench_join, one thread, paired rounds: one cursor from 2^11 groups
  // took n = 22's long runs about 3% less time than four streams at every size, from 2^10 3 to 6%
  // less again; n = 18 to 21 the same (from 2^8, n = 21 took 1.5% more).
  const std::size_t body = c >= 10 ? 0 : n & ~std::size_t{3};
  for (i = 0; i < body; i += 4)
    for (std::size_t k = 0; k < 4; ++k)
      place(extract_bits(p[i + k], keep), cursor[k][extract_bits(p[i + k], cut)]++);
  for (; i < n; ++i) place(extract_bits(p[i], keep), cursor[0][extract_bits(p[i], cut)]++);
}

// occ[j] += how many of p[0], p[step], p[2 step], ... (below n) have bit j. The AVX-512 build
// counts all 64 bits at once in byte counters (a pattern's bits as a byte mask, subtracted),
// emptied every 255 patterns: 3 operations a pattern, against one increment per bit (about a
// dozen, a store-forwarding chain) in the loop.
inline void add_occupancy(const std::uint64_t* p, std::size_t n, std::size_t step,
                          std::uint64_t* occ) {
#ifdef NQ_JOIN_AVX512
  __m512i counters = _mm512_setzero_si512();
  int held = 0;
  auto empty = [&] {
    alignas(64) std::uint8_t bytes[64];
    _mm512_store_si512(bytes, counters);
    for (int j = 0; j < 64; ++j) occ[j] += bytes[j];
    counters = _mm512_setzero_si512();
    held = 0;
  };
  for (std::size_t i = 0; i < n; i += step) {
    counters = _mm512_sub_epi8(counters, _mm512_movm_epi8(p[i]));
    if (++held == 255) empty();
  }
  empty();
#else
  for (std::size_t i = 0; i < n; i += step)
    for (std::uint64_t x = p[i]; x; x &= x - 1) ++occ[std::countr_zero(x)];
#endif
}

// The sieve chooses its cuts by cuts_by_pairs from this many pairs (na nb): the member visits of
// n = 22's long runs in nq_bench_join 10% fewer, n = 21's 8%, and their time 3 to 6% less (one
// thread, alternated, medians of five rounds). Applied to every call, n = 19 and 20 took 12% and
// 5% more time: their calls are smaller, and there the choice costs more than it saves.
inline constexpr double kCutsByPairsFrom = 3e9;

// The sieve's c cut diagonals (count_disjoint below), chosen on sampled pairs: evenly spaced
// samples of up to 256 members a side, and their pairs. The first cut is the diagonal that the
// most of those pairs both occupy; the pairs it rules out are dropped, and each further cut is
// the diagonal most shared among the pairs left. Chosen by each diagonal's own occupancy, the
// cuts overlap (two diagonals that the same pairs occupy rule out the same pairs twice): over
// nq_bench_join's runs, the pairs left after the cuts (counted on other samples of 1024 a side,
// weighted by na nb) were 0.0527, 0.0717 and 0.0273 of all at n = 20, 21 and 22 by occupancy,
// 0.0487, 0.0643 and 0.0237 chosen this way, 0.0473, 0.0621 and 0.0228 with 1024 a side.
//   The pairs are bit sets: row i holds the sampled b members still paired with a's member i,
// column j those on diagonal j, so a row and a diagonal take one 256-bit AND and popcount.
inline std::uint64_t cuts_by_pairs(const std::uint64_t* a, std::size_t na, const std::uint64_t* b,
                                   std::size_t nb, std::uint64_t shared, int c,
                                   std::vector<std::uint64_t>& scratch) {
  constexpr std::size_t kSample = 256, kWords = kSample / 64;
  using V = Words<kWords>;
  const std::size_t sa = (na + kSample - 1) / kSample, sb = (nb + kSample - 1) / kSample;
  const std::size_t ka = (na + sa - 1) / sa, kb = (nb + sb - 1) / sb;  // at most kSample
  // Scratch: 64 columns, ka rows and 64 counters, each kWords words (V, 32-byte aligned).
  scratch.resize((64 + ka + 64) * kWords + 4);
  V* column = reinterpret_cast<V*>((reinterpret_cast<std::uintptr_t>(scratch.data()) + 31) &
                                   ~std::uintptr_t{31});
  V* row = column + 64;
  V* count = row + ka;
  for (int j = 0; j < 64; ++j) column[j] = V{};
  for (std::size_t k = 0; k < kb; ++k)
    for (std::uint64_t m = b[k * sb] & shared; m != 0; m &= m - 1)
      column[std::countr_zero(m)][k / 64] |= 1ull << (k % 64);
  V every{};  // each row starts with every sampled b member
  for (std::size_t w = 0; w * 64 < kb; ++w) every[w] = lane_word(0, kb, w);
  for (std::size_t i = 0; i < ka; ++i) row[i] = every;
  std::uint64_t cut = 0;
  for (int step = 0; step < c; ++step) {
    const std::uint64_t open = shared & ~cut;
    for (std::uint64_t m = open; m != 0; m &= m - 1) count[std::countr_zero(m)] = V{};
    for (std::size_t i = 0; i < ka; ++i)
      for (std::uint64_t m = a[i * sa] & open; m != 0; m &= m - 1) {
        const int j = std::countr_zero(m);
        add_lane_popcounts<kWords>(count[j], row[i] & column[j]);
      }
    int best = -1;
    std::uint64_t best_count = 0;
    for (std::uint64_t m = open; m != 0; m &= m - 1) {
      const int j = std::countr_zero(m);
      std::uint64_t total = 0;
      for (std::size_t w = 0; w < kWords; ++w) total += count[j][w];
      if (best < 0 || total > best_count) {
        best = j;
        best_count = total;
      }
    }
    cut |= 1ull << best;
    for (std::size_t i = 0; i < ka; ++i)
      if (a[i * sa] >> best & 1) row[i] &= ~column[best];
  }
  return cut;
}

// Pairs (x in a, y in b) with x & y == 0. The smaller side is sliced, the larger one visits
// the slices: the pair work is the same either way, and the transposes are then the fewest.
//
// Large sides first go through a sieve (Kluev's counter has one too): c diagonals that both
// sides occupy often are cut out, each side is grouped by its occupancy of them, and a group u
// of the sliced side only meets the groups v of the other side with u & v = 0. With both sides
// on a cut diagonal about half the time, that skips a quarter of the pairs per cut diagonal, and
// the patterns get c bits shorter. The sliced side's blocks of 512 run across its groups (a
// group of a block's own would leave a third of the lanes empty at n = 20): a block skips the
// groups v that meet a cut diagonal all its members occupy, and masks the lanes of the members
// that meet v.
inline std::uint64_t count_disjoint(const std::uint64_t* a, std::size_t na, const std::uint64_t* b,
                                    std::size_t nb, int bits, SieveScratch& sc) {
  if (na == 0 || nb == 0) return 0;
  if (na > nb) {
    std::swap(a, b);
    std::swap(na, nb);
  }
  if (na < 32) {  // too few for slices: test every pair
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < na; ++i) {
      const std::uint64_t x = a[i];
      for (std::size_t j = 0; j < nb; ++j) total += (b[j] & x) == 0;
    }
    return total;
  }
  // Diagonals that only one side occupies never clash: they are dropped from both sides (a
  // pass over each), which takes a chunk off the pair work when it brings the pattern under a
  // multiple of kChunkBits. At n = 20 one side leaves 3 to 5 of the 38 crossing diagonals
  // empty in most subproblems (the ones far from its corner of the window).
  std::uint64_t any_a = 0, any_b = 0;
  for (std::size_t i = 0; i < na; ++i) any_a |= a[i];
  for (std::size_t j = 0; j < nb; ++j) any_b |= b[j];
  const std::uint64_t shared = any_a & any_b;
  if (shared == 0) return static_cast<std::uint64_t>(na) * nb;
  const int useful = std::popcount(shared);
  // Cut diagonals (the sieve below): it costs a few dozen operations per pattern (occupancy
  // counts, two counting sorts) and saves pair work, which grows as na * nb, so it is chosen by
  // both sizes: from 512 sliced members and 1e7 pairs, one cut per doubling of the sliced side
  // past 64 members a group, at most kMaxCuts. Measured with nq_bench_join (one thread, the two
  // builds side by side), against the former rule (from 1024 members and 3e7 pairs, 256 a
  // group, when a block held one group only): 1.07x at n = 18, 1.10x at 19, 1.20x at 20. More
  // than 8 cuts (at most 12) where the sides share 38 diagonals or more: n = 22 1.2x
  // (nq_bench_join), n = 20 as with 8 (whole counts). Without that condition n = 20 was 4%
  // slower; from 40 shared diagonals n = 22 lost most of its gain; 14 cuts were slower at n = 22,
  // and 32 a group slower at n = 18 to 20. From 36 shared diagonals where a call has 1e10 pairs
  // or more (n = 21's largest calls and some of n = 22's): their member visits in nq_bench_join
  // 18% and 11% fewer; n = 20's calls are smaller, and took 2 to 3% more time with 36 at every
  // size. One cut more where it leaves 7k + 1 diagonals instead of 7k + 2 (a chunk fewer)
  // measured the same at n = 21 and 22: it applies to 5% of their sieved pairs, the rest keep
  // 26 to 29 diagonals, 4 chunks (perf/results/log.md).
  int c = 0;
  const double pairs = static_cast<double>(na) * static_cast<double>(nb);
  if (na >= 512 && pairs >= 1e7) {
    const int most = useful >= 38 || (useful >= 36 && pairs >= 1e10) ? kMaxCuts : 8;
    while (c < most && (na >> (c + 1)) >= 64) ++c;
  }
  c = std::min(c, useful - 1);
  if (c <= 0) {
    // The larger side visits through its chunk offsets only (nb >= 32: the tables are built),
    // made from its patterns as they are, packed on the way.
    std::uint64_t keep = ~0ull;
    if (chunks_of(useful) < chunks_of(bits)) {
      sc.a.resize(na);
      for (std::size_t i = 0; i < na; ++i) sc.a[i] = extract_bits(a[i], shared);
      a = sc.a.data();
      keep = shared;
      bits = useful;
    }
    Range all{b, nullptr, nb, nullptr, keep};  // one block (na <= 512): no offsets
    if (na > 512) {
      sc.offsets.resize(nb * static_cast<std::size_t>(chunks_of(bits)) + kOffsetsSlack);
      chunk_offsets(b, nb, keep, chunks_of(bits), sc.offsets.data());
      all = Range{nullptr, sc.offsets.data(), nb};
    }
    if (na <= 256)
      return count_disjoint_sliced<4>(a, na, &all, 1, bits, sc.slices, sc.narrow_visits);
    return count_disjoint_sliced<8>(a, na, &all, 1, bits, sc.slices, sc.narrow_visits);
  }
  // The cuts. From kCutsByPairsFrom pairs, on sampled pairs (cuts_by_pairs); below, by each
  // diagonal's occupancy, from an evenly spaced sample of 1024 members per side (the product
  // of the two sides' counts: rough frequencies are enough, and exact counts cost as much as
  // the sieve saves). The occupancies also order the key's bits (layout keys, below).
  std::uint64_t cut = 0;
  std::uint64_t occ_a[64] = {}, occ_b[64] = {};
  add_occupancy(a, na, std::max<std::size_t>(1, na / 1024), occ_a);
  add_occupancy(b, nb, std::max<std::size_t>(1, nb / 1024), occ_b);
  if (pairs >= kCutsByPairsFrom) {
    cut = cuts_by_pairs(a, na, b, nb, shared, c, sc.pairs);
  } else {
    for (int k = 0; k < c; ++k) {
      int best = -1;
      double best_score = -1;
      for (int j = 0; j < bits; ++j) {
        const double score = static_cast<double>(occ_a[j]) * static_cast<double>(occ_b[j]);
        if ((shared >> j & 1) && !(cut >> j & 1) && score > best_score) {
          best = j;
          best_score = score;
        }
      }
      cut |= 1ull << best;
    }
  }
  const std::uint64_t keep = shared & ~cut;
  // The visiting side is only read through its chunk offsets, which its sort stores: against
  // a sort and then a pass for the offsets, n = 21 and 22's long runs in nq_bench_join took 1.5
  // to 4.5% less time (with the offsets made by shifts and masks, not PDEP, n = 18 to 21 took 2
  // to 8% more).
  const int rest = useful - c;
  const std::size_t chunks = static_cast<std::size_t>(chunks_of(rest));
  sc.offsets.resize(nb * chunks + kOffsetsSlack);
  with_chunks(chunks_of(rest), [&](auto k) {
    constexpr int kChunks = k();
    sieve_sort(b, nb, cut, keep, c, sc.b_start, sc.counts,
               [out = sc.offsets.data()](std::uint64_t x, std::uint32_t at) {
                 pattern_offsets<kChunks>(x, out + std::size_t{at} * kChunks);
               });
  });
  const std::uint32_t groups = 1u << c;
  // The sliced side, in group order, is cut into blocks of 512 (the last one of 256 when it
  // fits): a block may hold members of several groups, so that every lane holds a member. Its
  // members' cut diagonals are sliced too (lanes[j]: the members that leave cut diagonal j
  // free), and a group v of the other side visits the block when it misses the diagonals that
  // all the block's members occupy, with the lanes whose members miss v's. Here groups are
  // numbered, and ordered, by their layout keys (below); sc.group_at finds the visiting side's.
  //   blocks(starts, low, vl): the blocks of the sliced members that the groups v of the other
  // side whose key bits under `low` are vl can meet (group u at [starts[u], starts[u + 1]) of
  // them: all of sc.a for vl = 0, else only the groups u that miss vl, in order) against those
  // groups v. For vl != 0 a block's members are gathered from sc.a into a buffer of 512 (in L1)
  // as its groups are met, instead of a copy of all of them for each vl: the profile's memmove
  // kept its 3% of n = 22 (its cost is reading sc.a, which the gather does too), and the copy's
  // 8 bytes a placement of scratch are gone.
  auto blocks = [&](const std::uint32_t* starts, std::uint32_t low, std::uint32_t vl) {
    const std::size_t n = starts[groups];
    std::uint64_t sum = 0;
    std::uint32_t first = 0;  // the first group that reaches into the block
    alignas(64) std::uint64_t gathered[512];
    for (std::size_t lo = 0; lo < n; lo += 512) {
      const std::size_t count = std::min<std::size_t>(512, n - lo), hi = lo + count;
      alignas(64) std::uint64_t lanes[kMaxCuts][8];
      for (int j = 0; j < c; ++j) std::fill(lanes[j], lanes[j] + 8, 0ull);
      std::uint32_t all_of = groups - 1, any_of = 0;  // the cut diagonals all / some members use
      while (starts[first + 1] <= lo) ++first;
      for (std::uint32_t u = first; u < groups && starts[u] < hi; ++u) {
        const std::size_t from = std::max<std::size_t>(starts[u], lo) - lo;
        const std::size_t to = std::min<std::size_t>(starts[u + 1], hi) - lo;
        if (from == to) continue;
        all_of &= u;
        any_of |= u;
        if (vl != 0)
          std::memcpy(gathered + from, sc.a.data() + sc.a_start[u] + (lo + from - starts[u]),
                      (to - from) * sizeof(std::uint64_t));
        // The group's lanes, a word at a time, into the cut diagonals it leaves free (with the
        // range's masks made again for each cut diagonal, the blocks' setup took 6.6% of
        // nq_bench_join's time at n = 22; 3.7% since).
        const std::uint32_t lacks = ~u & (groups - 1);
        for (std::size_t w = from / 64; w * 64 < to; ++w) {
          const std::uint64_t m = lane_word(from, to, w);
          for (std::uint32_t js = lacks; js != 0; js &= js - 1) lanes[std::countr_zero(js)][w] |= m;
        }
      }
      sc.visit.clear();
      const std::uint32_t free = (groups - 1) & ~all_of & ~low;
      // The visiting groups v = vh | vl, vh every subset of `free` in ascending order, with the
      // lanes of the block's members that miss v's cut diagonals (meet). Each subset's lanes are
      // its parent's (the subset without its lowest bit) ANDed with one cut diagonal's: in
      // ascending order the parent is the last subset made with one bit fewer, so the lanes are
      // a stack by popcount, one AND a visiting group instead of one per cut diagonal it holds.
      // At most one visit a subset, each with its 8 words of lanes, stored in place (appended
      // to a vector, each visit's 64 bytes were a call to memmove). nq_bench_join, one thread
      // each on the two cores at once and then swapped, 8 rounds, against the per-diagonal ANDs
      // and a copy of the members for each vl: n = 18 0.990, 20 0.988, 21 long 0.989, 22 long
      // 0.976 (medians of 16).
      const std::size_t most = std::size_t{8} << std::popcount(free);
      if (sc.lanes.size() < most) sc.lanes.resize(most);
      std::uint64_t* lanes_out = sc.lanes.data();
      alignas(64) std::uint64_t meet[kMaxCuts + 1][8];
      std::fill(meet[0], meet[0] + 8, ~0ull);
      for (std::uint32_t m = vl & any_of; m != 0; m &= m - 1)
        for (int w = 0; w < 8; ++w) meet[0][w] &= lanes[std::countr_zero(m)][w];
      for (std::uint32_t vh = 0;; vh = (vh - free) & free) {
        const int depth = std::popcount(vh);
        if (vh != 0)
          for (int w = 0, j = std::countr_zero(vh); w < 8; ++w)
            meet[depth][w] = meet[depth - 1][w] & lanes[j][w];
        const std::uint32_t v = sc.group_at[vh | vl];
        const std::uint32_t b0 = sc.b_start[v], b1 = sc.b_start[v + 1];
        if (b0 != b1) {
          std::uint64_t any = 0;
          for (int w = 0; w < 8; ++w) any |= meet[depth][w];
          if (any != 0) {
            sc.visit.push_back({nullptr, sc.offsets.data() + b0 * chunks, b1 - b0, lanes_out});
            std::copy(meet[depth], meet[depth] + 8, lanes_out);
            lanes_out += 8;
          }
        }
        if (vh == free) break;
      }
      if (sc.visit.empty()) continue;
      const std::uint64_t* sliced = vl == 0 ? sc.a.data() + lo : gathered;
      sum += count <= 256
                 ? count_disjoint_sliced<4>(sliced, count, sc.visit.data(), sc.visit.size(), rest,
                                            sc.slices, sc.narrow_visits)
                 : count_disjoint_sliced<8>(sliced, count, sc.visit.data(), sc.visit.size(), rest,
                                            sc.slices, sc.narrow_visits);
    }
    return sum;
  };
  // A block's members share about its first log2(blocks) key bits; on the low ones they differ,
  // and a visiting group that occupies such a cut diagonal finds its lanes masked (two lanes in
  // three were, at n = 20). So the low `cl` key bits are settled beforehand: for each value vl
  // of a visiting group's low bits, the sliced members whose low bits miss vl are taken apart
  // (each member once per such vl, gathered a block at a time) and only those groups visit them.
  // Measured with nq_bench_join against blocks alone: 1.13x at n = 19, 1.15x at n = 20; one low bit
  // fewer or more, or more cuts (up to 12), did no better at n = 19 to 21.
  //   A low bit settled saves lanes in proportion to the visiting side and costs copies in
  // proportion to the sliced one. At odd n the visiting side is often 2 to 16 times the sliced
  // one (the east half holds a queen more; weighted by pairs, in nq_bench_join 56 and 65% of
  // the pair work at n = 19 and 21 had nb >= 4 na, against 5 to 12% at n = 18, 20 and 22), so
  // a low bit more is settled per doubling of nb / na, at most 3, once nb reaches 2^17 members:
  // nq_bench_join, one thread, alternated, 7 to 10% less time on the long runs of n = 21 (1,637
  // against 1,753 ms over three rounds; 1,602 and 1,640 against 1,781 and 1,763); n = 19
  // (smaller sides) lost 6 to 9% when every size took it, and is unchanged with the floor; the
  // even n, whose sides are balanced, unchanged.
  //   Where the sides share 38 diagonals or more (up to 12 cuts: n = 22), one low bit more: the
  // member visits of n = 22's long runs in nq_bench_join 13% fewer, the copies 56% more, and
  // their time 4 to 5% less (one thread, alternated, five to eight rounds, medians); n = 18
  // lost 7% when it applied at every size.
  int high = 0;
  for (std::size_t k = na / 512; k > 1; k >>= 1) ++high;
  int lopsided = 0;
  if (nb >= (std::size_t{1} << 17))
    for (std::size_t q = nb / na; q > 1 && lopsided < 3; q >>= 1) ++lopsided;
  const int cl = std::clamp(c - high + lopsided + (useful >= 38 ? 1 : 0), 0, c);
  // Which cut diagonal is which bit of the key the blocks see (its layout key): the settled
  // low bits are the diagonals the sliced side occupies most (fewer of its members miss a low
  // value, so the copies are smaller), and the others rise with the visiting side's occupancy (the
  // highest bits part the sliced side into the longest runs, and the diagonal most visitors
  // occupy then keeps them from the most blocks). The sliced side is laid out in the order of
  // its groups' layout keys, and every group number in `blocks` is one; a key is still one PEXT,
  // and only the 2^c groups are renumbered (the visiting side keeps the order of its keys).
  // This order makes 3 to 7% fewer member visits and blocks at n = 18 to 21; through a
  // per-member table it cost more than that saved. Against the key's own order, whole counts and
  // nq_bench_join took from 14% less time to 3% more, most of them a few percent less
  // (perf/results/log.md).
  {
    int order[kMaxCuts];  // the cut diagonals' key bits, by layout key bit
    int diagonal[kMaxCuts];
    int m = 0;
    for (std::uint64_t x = cut; x != 0; x &= x - 1) diagonal[m++] = std::countr_zero(x);
    for (int i = 0; i < c; ++i) order[i] = i;
    // Insertion sorts of at most kMaxCuts bits (std::sort's tail loop trips GCC 12's
    // -Warray-bounds on an array this short).
    auto sort_by = [&](int from, auto before) {
      for (int i = from + 1; i < c; ++i)
        for (int j = i; j > from && before(order[j], order[j - 1]); --j)
          std::swap(order[j], order[j - 1]);
    };
    sort_by(0, [&](int x, int y) { return occ_a[diagonal[x]] > occ_a[diagonal[y]]; });
    sort_by(cl, [&](int x, int y) { return occ_b[diagonal[x]] < occ_b[diagonal[y]]; });
    // By doubling: a layout key's group is that of the key without its lowest bit, with that
    // bit's key bit.
    sc.group_at.resize(groups);
    sc.group_at[0] = 0;
    for (std::uint32_t l = 1; l < groups; ++l)
      sc.group_at[l] = sc.group_at[l & (l - 1)] | 1u << order[std::countr_zero(l)];
  }
  sc.a.resize(na);
  sieve_sort(
      a, na, cut, keep, c, sc.a_start, sc.counts,
      [out = sc.a.data()](std::uint64_t x, std::uint32_t at) { out[at] = x; }, sc.group_at.data());
  const std::uint32_t low = (1u << cl) - 1;
  // vl = 0 meets every sliced member: counted in place, without a gather.
  std::uint64_t total = blocks(sc.a_start.data(), low, 0);
  sc.part_start.resize(groups + 1);
  for (std::uint32_t vl = 1; vl <= low; ++vl) {
    std::uint32_t at = 0;
    for (std::uint32_t u = 0; u < groups; ++u) {
      sc.part_start[u] = at;
      if ((u & vl) == 0) at += sc.a_start[u + 1] - sc.a_start[u];
    }
    sc.part_start[groups] = at;
    total += blocks(sc.part_start.data(), low, vl);
  }
  return total;
}

// Per-thread scratch: leaves of both halves and their bucketed patterns, reused across calls.
//
// The settled path's buffers are reserved once per thread at the sizes a row-split plan of
// this n reaches (join_scratch_sizes) and faulted in with one call (prefault.hpp), instead of
// growing by doubling page fault by page fault. On this project's VMs a fresh page costs about
// 10 us and the faults of two threads do not overlap: grown on demand, the buffers cost a few
// milliseconds per thread at n = 16 (the ten or so subproblems that first met a larger half
// took 0.3 to 0.6 ms each instead of 0.01 to 0.03), serialised between the threads.
struct Scratch {
  std::vector<Leaf> east, west;
  std::vector<std::uint64_t> east_sorted, west_sorted;  // the settled path's chunks
  SieveScratch sieve;
  std::vector<std::uint32_t> east_start, west_start;
  HalfScratch east_half, west_half;
  SettledHalf east_walk, west_walk;
  std::vector<SettledHalf::Walk> east_starts, west_starts;  // sampling's chunk starts
  JoinWatch watch;                                          // the calling thread's (kernels.hpp)
  // Placements per chunk of a settled half, and the largest bottom part: kJoinMaxLeaves and
  // kJoinMaxParts, smaller in tests (set_join_limits) so that small boards take every path.
  std::size_t chunk = kJoinMaxLeaves, parts_limit = kJoinMaxParts;
  int prepared_for = 0;  // the board size the buffers were reserved for

  void prepare(int n) {
    if (n <= prepared_for) return;
    prepared_for = n;
    const JoinScratchSizes size = join_scratch_sizes(n);
    const std::size_t buckets = (std::size_t{1} << ((n + 1) / 2)) + 1;
    auto reserve = [](auto& v, std::size_t count) {
      v.reserve(count);
      prefault_for_writing(v.data(), v.capacity() * sizeof(v[0]));
    };
    for (std::vector<std::uint64_t>* out : {&east_sorted, &west_sorted})
      reserve(*out, std::min(2 * size.leaves, chunk) + 16);  // SettledHalf::next grows it
    // count_disjoint_sliced's storage at its widest: 2 kMaxN diagonals, W = 8.
    reserve(sieve.slices, 2 * kMaxN * 8 + (chunks_of(2 * kMaxN) + 1) * kTableBytes / 8 + 8);
    reserve(sieve.offsets, size.leaves * chunks_of(2 * (n - 1)) + kOffsetsSlack);
    reserve(sieve.a, size.leaves);
    reserve(sieve.lanes, std::size_t{8} << kMaxCuts);
    reserve(sieve.part_start, (std::size_t{1} << kMaxCuts) + 1);
    reserve(sieve.a_start, (std::size_t{1} << kMaxCuts) + 1);
    reserve(sieve.b_start, (std::size_t{1} << kMaxCuts) + 1);
    reserve(sieve.group_at, std::size_t{1} << kMaxCuts);
    reserve(sieve.visit, std::size_t{1} << kMaxCuts);
    reserve(sieve.counts, std::size_t{8} << kMaxCuts);
    for (HalfScratch* hs : {&east_half, &west_half}) {
      reserve(hs->bottom, size.parts / 4 + 1);
      for (std::vector<std::uint64_t>* v : {&hs->sub.meet, &hs->sub.clash, &hs->sub.pattern})
        reserve(*v, size.parts / 4 + 1);
      reserve(hs->sorted.clash, size.parts + size.parts / 4 + 8);
      reserve(hs->sorted.pattern, size.parts + size.parts / 4 + 8);
      reserve(hs->start, buckets);
      reserve(hs->sub.upper_start, buckets);
      reserve(hs->sub.lower_start, buckets);
    }
    // The batches of top placements, at most kJoinTopBatch, reserved at the largest half's
    // placements (a half has far fewer top placements than placements: about 13,000 against
    // 80,000 to 390,000 at n = 22); a batch that needs more grows them.
    const std::size_t tops = std::min(kJoinTopBatch, size.leaves);
    for (SettledHalf* half : {&east_walk, &west_walk}) {
      reserve(half->walked, tops);
      reserve(half->batch, tops);
      reserve(half->batch_key, tops);
      reserve(half->batch_start, buckets);
    }
  }
};

// The calling thread's scratch (count_join, and prepare_join to ready it ahead of time).
inline Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}
// The cross-check's own (kernels.hpp, count_join_check): chunks and bottom parts a quarter of
// the count's, so that a large subproblem is cut and paired at other places than in the count
// it checks.
inline Scratch& check_scratch() {
  thread_local Scratch scratch = [] {
    Scratch s;
    s.chunk = kJoinMaxLeaves / 4;
    s.parts_limit = kJoinMaxParts / 4;
    return s;
  }();
  return scratch;
}

inline void bucket(const std::vector<Leaf>& leaves, std::uint32_t buckets,
                   std::vector<std::uint32_t>& start, std::vector<std::uint64_t>& sorted) {
  sorted.resize(leaves.size());
  counting_sort(
      leaves.size(), buckets, start, [&](std::size_t i) { return leaves[i].rank; },
      [&](std::size_t i, std::uint32_t at) { sorted[at] = leaves[i].pattern; });
}

// The pairs of a subproblem whose every row's half is settled: the east half's chunks against
// the west half's. When the west half fits in one chunk it is made once; otherwise it is made
// again for every east chunk (making a half costs far less than pairing it). `nodes` gets the
// candidates each half examined, once per half. After every pair of chunks the thread's watch
// (kernels.hpp, JoinWatch) hears of the pairs examined, and may stop the count (its result is
// then partial, and the caller drops it).
inline std::uint64_t count_settled(const Board& b, Mask east, Mask west, Scratch& scratch,
                                   std::uint64_t& nodes) {
  SettledHalf& e = scratch.east_walk;
  SettledHalf& w = scratch.west_walk;
  const std::size_t chunk = std::max(scratch.chunk, scratch.parts_limit);
  std::vector<std::uint64_t>& a = scratch.east_sorted;
  std::vector<std::uint64_t>& z = scratch.west_sorted;
  nodes = 0;
  if (!e.setup(b, east, scratch.east_half, scratch.parts_limit) ||
      !w.setup(b, west, scratch.west_half, scratch.parts_limit))
    return 0;
  e.rewind();
  std::size_t na = e.next(a, chunk);
  if (na == 0) {  // no east placement: the west half is not made
    nodes = e.candidates();
    return 0;
  }
  const int bits = 2 * b.window;
  const JoinWatch watch = scratch.watch;
  w.rewind();
  std::size_t nz = w.next(z, chunk);
  const bool west_whole = w.done();  // one chunk holds the whole west half: made once
  std::uint64_t solutions = 0, west_candidates = 0;
  for (bool first = true;; first = false) {
    if (!west_whole && !first) {
      w.rewind();
      nz = w.next(z, chunk);
    }
    for (;;) {
      solutions += count_disjoint(a.data(), na, z.data(), nz, bits, scratch.sieve);
      if (watch.poll && watch.poll(watch.context, static_cast<std::uint64_t>(na) * nz)) {
        nodes = e.candidates() + (first ? w.candidates() : west_candidates);
        return solutions;  // stopped
      }
      if (w.done() || west_whole) break;
      nz = w.next(z, chunk);
    }
    if (first) west_candidates = w.candidates();
    if (e.done()) break;
    na = e.next(a, chunk);
    if (na == 0) break;
  }
  nodes = e.candidates() + west_candidates;
  return solutions;
}

// A walk's chunk starts: walks the half once from the top, keeping the state each chunk began
// in (so that any chunk can be made again), and returns how many chunks it made.
inline std::size_t chunk_starts(SettledHalf& half, std::vector<std::uint64_t>& out,
                                std::size_t chunk, std::vector<SettledHalf::Walk>& starts) {
  starts.clear();
  half.rewind();
  for (;;) {
    const SettledHalf::Walk at = half.walk;
    if (half.next(out, chunk) == 0) break;
    starts.push_back(at);
    if (half.done()) break;
  }
  return starts.size();
}

// `pieces` distinct numbers of [0, total), drawn uniformly (Floyd's algorithm), ascending; all
// of them when pieces >= total.
inline void draw_pieces(std::uint64_t total, std::uint64_t pieces, std::uint64_t seed,
                        std::vector<std::uint64_t>& out) {
  out.clear();
  if (pieces >= total) {
    for (std::uint64_t i = 0; i < total; ++i) out.push_back(i);
    return;
  }
  SplitMix64 next{seed};
  for (std::uint64_t j = total - pieces; j < total; ++j) {
    const std::uint64_t t = next() % (j + 1);
    out.push_back(std::find(out.begin(), out.end(), t) == out.end() ? t : j);
  }
  std::sort(out.begin(), out.end());
}

// sample_join (kernels.hpp) on a settled subproblem.
template <class Clock>
JoinSample sample_settled(const Board& b, Mask east, Mask west, Scratch& scratch,
                          std::uint64_t pieces, std::uint64_t seed, Clock clock) {
  JoinSample r;
  r.settled = true;
  SettledHalf& e = scratch.east_walk;
  SettledHalf& w = scratch.west_walk;
  const std::size_t chunk = std::max(scratch.chunk, scratch.parts_limit);
  std::vector<std::uint64_t>& a = scratch.east_sorted;
  std::vector<std::uint64_t>& z = scratch.west_sorted;
  const double t0 = clock();
  if (!e.setup(b, east, scratch.east_half, scratch.parts_limit) ||
      !w.setup(b, west, scratch.west_half, scratch.parts_limit)) {
    r.setup_seconds = clock() - t0;
    return r;
  }
  if (pieces == 0) {  // only the bottom parts readied (for the next subproblem to reuse)
    r.setup_seconds = clock() - t0;
    return r;
  }
  r.east_chunks = chunk_starts(e, a, chunk, scratch.east_starts);
  const double t1 = clock();
  r.setup_seconds = t1 - t0;
  if (r.east_chunks == 0) return r;
  r.west_chunks = chunk_starts(w, z, chunk, scratch.west_starts);
  r.west_seconds = clock() - t1;
  std::vector<std::uint64_t> picked;
  draw_pieces(r.east_chunks * r.west_chunks, pieces, seed, picked);
  const int bits = 2 * b.window;
  for (const std::uint64_t piece : picked) {
    e.walk = scratch.east_starts[piece / r.west_chunks];
    const std::size_t na = e.next(a, chunk);
    w.walk = scratch.west_starts[piece % r.west_chunks];
    const std::size_t nz = w.next(z, chunk);
    const double t = clock();
    r.solutions += count_disjoint(a.data(), na, z.data(), nz, bits, scratch.sieve);
    r.pair_seconds += clock() - t;
    ++r.pieces;
  }
  return r;
}

}  // namespace join_detail

// The join's view of a subproblem: its board, halves and crossing window.
enum class Shape { kOther, kEmpty, kJoin };  // not for the join; no solution; the join's
inline Shape board_of(const Subproblem& s, join_detail::Board& b, Mask& east, Mask& west) {
  const int rows = s.rows;
  const Mask free_cols = s.full & ~s.cols;
  if (rows < 4 || std::popcount(free_cols) != rows) return Shape::kOther;
  b.rows = rows;
  b.all_rows = rows == 32 ? ~0u : (1u << rows) - 1;
  for (int i = 0; i < rows; ++i) {
    b.allowed[i] = open_row_squares(s, i);
    if (b.allowed[i] == 0) return Shape::kEmpty;
  }
  west = join_west_columns(s);
  east = free_cols & ~west;
  b.last_west = 31 - std::countl_zero(west);
  b.first_east = std::countr_zero(east);
  b.window = rows - (b.first_east - b.last_west);
  int forced_east = 0;
  for (int i = 0; i < rows; ++i) {
    const bool in_east = (b.allowed[i] & east) != 0, in_west = (b.allowed[i] & west) != 0;
    if (in_east && in_west) b.open_rows |= 1u << i;
    forced_east += in_east && !in_west;
  }
  const int open_east = std::popcount(east) - forced_east;
  if (open_east < 0 || open_east > std::popcount(b.open_rows)) return Shape::kEmpty;
  return Shape::kJoin;
}

// Completions of `s` by the join, or `fallback(s)` when the subproblem does not suit it
// (fewer than 2 open rows per half, or free columns that do not match the open rows).
template <class Fallback>
Tally count_join(const Subproblem& s, Fallback&& fallback,
                 join_detail::Scratch& scratch = join_detail::thread_scratch()) {
  using namespace join_detail;
  Board b;
  Mask east = 0, west = 0;
  const Shape shape = board_of(s, b, east, west);
  if (shape == Shape::kOther) return fallback(s);
  if (shape == Shape::kEmpty) return {0, 0};
  Tally t;
  if (b.open_rows == 0) {  // one bucket: the subproblem names the east rows
    scratch.prepare(std::popcount(s.full));
    t.solutions = count_settled(b, east, west, scratch, t.nodes);
    return t;
  }
  // The general path: rows open to both halves, a bucket per east row set.
  int forced_east = 0;
  for (int i = 0; i < s.rows; ++i)
    forced_east += (b.allowed[i] & east) != 0 && (b.allowed[i] & west) == 0;
  const int open = std::popcount(b.open_rows);
  const int open_east = std::popcount(east) - forced_east;
  const int bits = 2 * b.window;
  const std::uint32_t buckets = kBinomials.c[open][open_east];
  if (buckets > kJoinMaxLeaves) return fallback(s);  // the bucket table would not be bounded
  scratch.east.clear();
  scratch.west.clear();
  const std::uint64_t east_nodes = enumerate_half(b, east, true, scratch.east);
  if (east_nodes == kOverflow) return fallback(s);
  const std::uint64_t west_nodes = enumerate_half(b, west, false, scratch.west);
  if (west_nodes == kOverflow) return fallback(s);
  t.nodes = east_nodes + west_nodes;
  bucket(scratch.east, buckets, scratch.east_start, scratch.east_sorted);
  bucket(scratch.west, buckets, scratch.west_start, scratch.west_sorted);
  for (std::uint32_t k = 0; k < buckets; ++k) {
    const std::uint32_t e0 = scratch.east_start[k], e1 = scratch.east_start[k + 1];
    const std::uint32_t w0 = scratch.west_start[k], w1 = scratch.west_start[k + 1];
    t.solutions += count_disjoint(scratch.east_sorted.data() + e0, e1 - e0,
                                  scratch.west_sorted.data() + w0, w1 - w0, bits, scratch.sieve);
  }
  return t;
}

// sample_join (kernels.hpp): part of a settled subproblem's count, timed by `clock`.
template <class Clock>
JoinSample sample_join(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed, Clock clock) {
  using namespace join_detail;
  Board b;
  Mask east = 0, west = 0;
  if (board_of(s, b, east, west) != Shape::kJoin || b.open_rows != 0) return {};
  Scratch& scratch = thread_scratch();
  scratch.prepare(std::popcount(s.full));
  return sample_settled(b, east, west, scratch, pieces, seed, clock);
}

}  // namespace nq::NQ_KERNEL_NAMESPACE
