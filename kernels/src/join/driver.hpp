// The drivers: count_join counts a subproblem's completions by the join (settled halves in
// chunks, count_settled; otherwise both halves bucketed by row set and paired per set), or
// hands it to the fallback; board_of is the join's view of a subproblem.
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

#include "kernels/src/join/scratch.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

inline void bucket(const std::vector<Leaf>& leaves, std::uint32_t buckets,
                   std::vector<std::uint32_t>& start, std::vector<std::uint64_t>& sorted) {
  sorted.resize(leaves.size());
  counting_sort(
      leaves.size(), buckets, start, [&](std::size_t i) { return leaves[i].rank; },
      [&](std::size_t i, std::uint32_t at) { sorted[at] = leaves[i].pattern; });
}

// The west half's chunk size against an east half of `east_chunks` chunks (count_settled passes 0
// where it knows only that there are more than one): kJoinWestChunks times the east's where the
// east is one chunk (join_limits.hpp). The count and the sample (sampling.hpp) cut the west alike.
inline std::size_t west_chunk_size(std::size_t chunk, std::size_t east_chunks) {
  return east_chunks == 1 ? kJoinWestChunks * chunk : chunk;
}

// The pairs of a subproblem whose every row's half is settled: the east half's chunks against
// the west half's. When the west half fits in one chunk it is made once; otherwise it is made
// again for every east chunk (making a half costs far less than pairing it). `nodes` gets the
// candidates each half examined, once per half. After every pair of chunks the thread's watch
// (kernels.hpp, Watch) hears of the pairs examined, and may stop the count (its result is
// then partial, and the caller drops it); within a pair of chunks the sieve asks it too.
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
  const Watch watch = scratch.sieve.watch;
  const std::size_t west_chunk = west_chunk_size(chunk, e.done() ? 1 : 0);
  w.rewind();
  std::size_t nz = w.next(z, west_chunk);
  const bool west_whole = w.done();  // one chunk holds the whole west half: made once
  std::uint64_t solutions = 0, west_candidates = 0;
  for (bool first = true;; first = false) {
    if (!west_whole && !first) {
      w.rewind();
      nz = w.next(z, west_chunk);
    }
    for (;;) {
      solutions += count_disjoint(a.data(), na, z.data(), nz, bits, scratch.sieve);
      if (watch.poll && watch.poll(watch.context, static_cast<std::uint64_t>(na) * nz)) {
        nodes = e.candidates() + (first ? w.candidates() : west_candidates);
        return solutions;  // stopped
      }
      if (w.done() || west_whole) break;
      nz = w.next(z, west_chunk);
    }
    if (first) west_candidates = w.candidates();
    if (e.done()) break;
    na = e.next(a, chunk);
    if (na == 0) break;
  }
  nodes = e.candidates() + west_candidates;
  return solutions;
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail

namespace nq::NQ_KERNEL_NAMESPACE {

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

}  // namespace nq::NQ_KERNEL_NAMESPACE
