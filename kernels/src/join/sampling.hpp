// Sampling: sample_join counts a random set of `pieces` chunk pairs of a settled subproblem and
// times them (the cost model's and the tuning tools' samples): chunk starts, drawn pieces.
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

#include "base/splitmix.hpp"
#include "kernels/src/join/driver.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

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
  const std::size_t west_chunk = west_chunk_size(chunk, r.east_chunks);
  r.west_chunks = chunk_starts(w, z, west_chunk, scratch.west_starts);
  r.west_seconds = clock() - t1;
  std::vector<std::uint64_t> picked;
  draw_pieces(r.east_chunks * r.west_chunks, pieces, seed, picked);
  const int bits = 2 * b.window;
  for (const std::uint64_t piece : picked) {
    e.walk = scratch.east_starts[piece / r.west_chunks];
    const std::size_t na = e.next(a, chunk);
    w.walk = scratch.west_starts[piece % r.west_chunks];
    const std::size_t nz = w.next(z, west_chunk);
    const double t = clock();
    r.solutions += count_disjoint(a.data(), na, z.data(), nz, bits, scratch.sieve);
    r.pair_seconds += clock() - t;
    ++r.pieces;
  }
  return r;
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail

namespace nq::NQ_KERNEL_NAMESPACE {

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
