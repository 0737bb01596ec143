// The parts of a settled half: a part's placements (Part), the walk over a part's rows
// (PartWalk, enumerate_part) and the two sub-parts a bottom part is joined from (SubParts).
//
// Per-ISA: included (through kernels/src/join/join.hpp) by each build's source (join_scalar.cpp,
// join_avx2.cpp, join_avx512.cpp) with NQ_KERNEL_NAMESPACE defined (and NQ_JOIN_AVX2 or
// NQ_JOIN_AVX512 in those builds); its code goes into that namespace, so only headers are
// included here, at file scope.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/src/join/half.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// A settled half (every row's half fixed by the subproblem: no row has squares in both, as in
// the row-split plan) is enumerated by meeting in the middle inside the half. Its rows are cut
// into a top and a bottom part; the bottom part's placements are made on their own (from two
// sub-parts, make_bottom) and bucketed by the columns they use, and the top part is walked
// depth first, each top placement joined with the bottom bucket holding exactly the half's other
// columns, a candidate pair kept when their diagonals are disjoint. Each check is a few branch-free
// operations, against about six search nodes per placement for a plain search over the half's rows.
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

#ifdef NQ_JOIN_AVX2
// For each 4-bit mask, the VPERMD permutation that moves the 64-bit lanes it holds to the front,
// in order.
struct Compress4 {
  alignas(32) std::int32_t lanes[16][8] = {};
  constexpr Compress4() {
    for (int mask = 0; mask < 16; ++mask)
      for (int lane = 0, to = 0; lane < 4; ++lane)
        if (mask >> lane & 1) {
          lanes[mask][2 * to] = 2 * lane;
          lanes[mask][2 * to + 1] = 2 * lane + 1;
          ++to;
        }
  }
};
inline constexpr Compress4 kCompress4{};
#endif

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
#elif defined(NQ_JOIN_AVX2)
  // As the AVX-512 form, 4 candidates a compare: AVX2 has no compress, so the kept lanes move
  // to the front by VPERMD with a permutation looked up by the 4-bit keep mask (kCompress4),
  // and the range's last lanes are masked loads.
  std::uint64_t* at[S];
  for (int s = 0; s < S; ++s) at[s] = out[s];
  __m256i tt[T], ti[T][S];
  for (int i = 0; i < T; ++i) {
    tt[i] = _mm256_set1_epi64x(static_cast<long long>(t_test[i]));
    for (int s = 0; s < S; ++s) ti[i][s] = _mm256_set1_epi64x(static_cast<long long>(t_in[s][i]));
  }
  const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3), zero = _mm256_setzero_si256();
  for (std::uint32_t j = lo; j < hi; j += 4) {
    const __m256i in_range = _mm256_cmpgt_epi64(_mm256_set1_epi64x(hi - j), lane);
    const __m256i c = _mm256_maskload_epi64(reinterpret_cast<const long long*>(test + j), in_range);
    __m256i v[S];
    for (int s = 0; s < S; ++s)
      v[s] = _mm256_maskload_epi64(reinterpret_cast<const long long*>(in[s] + j), in_range);
    for (int i = 0; i < T; ++i) {
      const __m256i miss =
          _mm256_and_si256(in_range, _mm256_cmpeq_epi64(_mm256_and_si256(c, tt[i]), zero));
      const unsigned keep = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(miss)));
      const __m256i to_front =
          _mm256_load_si256(reinterpret_cast<const __m256i*>(kCompress4.lanes[keep]));
      const int kept = std::popcount(keep);
      for (int s = 0; s < S; ++s) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(at[s]),
                            _mm256_permutevar8x32_epi32(_mm256_or_si256(v[s], ti[i][s]), to_front));
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
// and a counting sort. Two upper placements go against each load of lower ones (join_sub<2>).
// Both timed against the walk and against one at a time: perf/results/log.md.
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

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
