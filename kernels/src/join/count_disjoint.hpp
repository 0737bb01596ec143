// count_disjoint: the disjoint pairs of two sides' patterns, in named steps: pair by pair for a
// small side, the slices directly, or the sieve (cuts, both sides sorted by them, the sliced
// side's blocks against the visiting groups that can meet them).
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
#include <cstring>
#include <utility>

#include "kernels/src/join/sieve.hpp"

namespace nq::NQ_KERNEL_NAMESPACE::join_detail {

// Step: a side of fewer than 32 members against the other, pair by pair (too few for slices).
[[gnu::always_inline]] inline std::uint64_t count_pairwise(const std::uint64_t* a, std::size_t na,
                                                           const std::uint64_t* b, std::size_t nb) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < na; ++i) {
    const std::uint64_t x = a[i];
    for (std::size_t j = 0; j < nb; ++j) total += (b[j] & x) == 0;
  }
  return total;
}

// Step: the diagonals both sides occupy. Diagonals that only one side occupies never clash:
// they are dropped from both sides (a pass over each), which takes a chunk off the pair work
// when it brings the pattern under a multiple of kChunkBits. At n = 20 one side leaves 3 to 5
// of the 38 crossing diagonals empty in most subproblems (the ones far from its corner of the
// window).
[[gnu::always_inline]] inline std::uint64_t shared_diagonals(const std::uint64_t* a, std::size_t na,
                                                             const std::uint64_t* b,
                                                             std::size_t nb) {
  std::uint64_t any_a = 0, any_b = 0;
  for (std::size_t i = 0; i < na; ++i) any_a |= a[i];
  for (std::size_t j = 0; j < nb; ++j) any_b |= b[j];
  return any_a & any_b;
}

// Step: how many diagonals the sieve cuts (0 or less: no sieve), for na sliced members, `pairs`
// = na nb and `useful` shared diagonals. The sieve (count_disjoint below) costs a few dozen
// operations a pattern (occupancy counts, two counting sorts) and saves pair work, which grows
// as na nb, so both sizes choose: from 512 sliced members and 1e7 pairs, one cut per doubling of
// the sliced side past 64 members a group; at most 8, or 12 where the sides share 38 diagonals
// or more (or 36 in a call of 1e10 pairs or more, as n = 21's largest), or kMaxCuts from 1e12
// pairs (the chunk pairs of n = 25..28, kJoinChunk; no call below n = 23 has that many), there
// one cut per doubling past kJoinGroupMembers (16) members a group: more groups than blocks,
// which the settled low bits sort out. Each bound was timed against its neighbours
// (nq_bench_join, nq_join_chunks; perf/results/log.md).
[[gnu::always_inline]] inline int sieve_cut_count(std::size_t na, double pairs, int useful) {
  int c = 0;
  if (na >= 512 && pairs >= 1e7) {
    const bool chunk_pair = pairs >= 1e12;
    const int most = chunk_pair                                        ? kMaxCuts
                     : useful >= 38 || (useful >= 36 && pairs >= 1e10) ? 12
                                                                       : 8;
    const std::size_t members = chunk_pair ? kJoinGroupMembers : 64;
    while (c < most && (na >> (c + 1)) >= members) ++c;
  }
  return std::min(c, useful - 1);
}

// Step: the pairs without a sieve (na >= 32 sliced members, nb >= na visiting). The larger side
// visits through its chunk offsets only (nb >= 32: the tables are built), made from its
// patterns as they are, packed on the way.
[[gnu::always_inline]] inline std::uint64_t count_unsieved(const std::uint64_t* a, std::size_t na,
                                                           const std::uint64_t* b, std::size_t nb,
                                                           std::uint64_t shared, int useful,
                                                           int bits, SieveScratch& sc) {
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
  if (na <= 256) return count_disjoint_sliced<4>(a, na, &all, 1, bits, sc.slices, sc.narrow_visits);
  return count_disjoint_sliced<8>(a, na, &all, 1, bits, sc.slices, sc.narrow_visits);
}

// Step: the sieve's c cut diagonals among `shared`, and each diagonal's occupancy on both sides
// (occ_a, occ_b: 64 counters each, zero on entry). From kCutsByPairsFrom pairs, on sampled
// pairs (cuts_by_pairs); below, by each diagonal's occupancy, from an evenly spaced sample of
// 1024 members per side (the product of the two sides' counts: rough frequencies are enough,
// and exact counts cost as much as the sieve saves). The occupancies also order the key's bits
// (layout_keys).
[[gnu::always_inline]] inline std::uint64_t choose_cuts(const std::uint64_t* a, std::size_t na,
                                                        const std::uint64_t* b, std::size_t nb,
                                                        std::uint64_t shared, int c, int bits,
                                                        double pairs, std::uint64_t* occ_a,
                                                        std::uint64_t* occ_b, SieveScratch& sc) {
  std::uint64_t cut = 0;
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
  return cut;
}

// A sieved call's shape: c cut diagonals, 2^c groups a side, and the visiting side's chunks of
// its `rest` = useful - c diagonals left.
struct SieveLayout {
  int c;
  std::uint32_t groups;
  std::size_t chunks;
  int rest;
};

// Step: the visiting side, grouped by its cut diagonals (in the order of its keys) into
// sc.b_start, and stored as chunk offsets only (sc.offsets, `chunks` a member). It is only read
// through its chunk offsets, so its sort stores them, instead of a sort and then a pass for the
// offsets (timed: perf/results/log.md).
[[gnu::always_inline]] inline void sort_visitors(const std::uint64_t* b, std::size_t nb,
                                                 std::uint64_t cut, std::uint64_t keep,
                                                 const SieveLayout& l, SieveScratch& sc) {
  sc.offsets.resize(nb * l.chunks + kOffsetsSlack);
  with_chunks(chunks_of(l.rest), [&](auto k) {
    constexpr int kChunks = k();
    sieve_sort(b, nb, cut, keep, l.c, sc.b_start, sc.counts,
               [out = sc.offsets.data()](std::uint64_t x, std::uint32_t at) {
                 pattern_offsets<kChunks>(x, out + std::size_t{at} * kChunks);
               });
  });
}

// Step: the sliced side's blocks against the visiting groups that can meet them.
//   The sliced side, in group order, is cut into blocks of 512 (the last one of 256 when it
// fits): a block may hold members of several groups, so that every lane holds a member. Its
// members' cut diagonals are sliced too (lanes[j]: the members that leave cut diagonal j
// free), and a group v of the other side visits the block when it misses the diagonals that
// all the block's members occupy, with the lanes whose members miss v's. Here groups are
// numbered, and ordered, by their layout keys (layout_keys); sc.group_at finds the visiting
// side's.
//   count_blocks(starts, low, vl): the blocks of the sliced members that the groups v of the
// other side whose key bits under `low` are vl can meet (group u at [starts[u], starts[u + 1])
// of them: all of sc.a for vl = 0, else only the groups u that miss vl, in order) against those
// groups v. For vl != 0 a block's members are gathered from sc.a into a buffer of 512 (in L1)
// as its groups are met, instead of a copy of all of them for each vl, which would read sc.a as
// much and take 8 bytes a placement of scratch.
//   count_block_range counts the blocks from member `begin` to `end` (multiples of 512, or n);
// count_blocks calls it on all of them, or, where the thread has a watch, on runs of
// kPollBlocks blocks with a poll before each: a call inside the blocks' loop slows it even where
// it is never taken (perf/results/log.md).
inline std::uint64_t count_block_range(const SieveLayout& l, const std::uint32_t* starts,
                                       std::uint32_t vl, std::size_t begin, std::size_t end,
                                       std::uint32_t low, SieveScratch& sc) {
  const int c = l.c;
  const std::uint32_t groups = l.groups;
  const std::size_t chunks = l.chunks;
  const int rest = l.rest;
  std::uint64_t sum = 0;
  std::uint32_t first = 0;  // the first group that reaches into the block
  alignas(64) std::uint64_t gathered[512];
  for (std::size_t lo = begin; lo < end; lo += 512) {
    const std::size_t count = std::min<std::size_t>(512, end - lo), hi = lo + count;
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
      // The group's lanes, a word at a time, into the cut diagonals it leaves free (each word's
      // mask made once for all of them).
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
    // to a vector, each visit's 64 bytes would be a call to memmove).
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
    sum += count <= 256 ? count_disjoint_sliced<4>(sliced, count, sc.visit.data(), sc.visit.size(),
                                                   rest, sc.slices, sc.narrow_visits)
                        : count_disjoint_sliced<8>(sliced, count, sc.visit.data(), sc.visit.size(),
                                                   rest, sc.slices, sc.narrow_visits);
  }
  return sum;
}

constexpr std::size_t kPollBlocks = 64;
inline std::uint64_t count_blocks(const SieveLayout& l, const std::uint32_t* starts,
                                  std::uint32_t low, std::uint32_t vl, SieveScratch& sc) {
  const std::size_t n = starts[l.groups];
  const Watch watch = sc.watch;
  if (!watch.poll) return count_block_range(l, starts, vl, 0, n, low, sc);
  std::uint64_t sum = 0;
  for (std::size_t lo = 0; lo < n; lo += kPollBlocks * 512) {
    if (watch.poll(watch.context, 0)) {
      sc.stopped = true;
      return sum;
    }
    sum += count_block_range(l, starts, vl, lo, std::min(n, lo + kPollBlocks * 512), low, sc);
  }
  return sum;
}

// Step: how many low key bits (cl, of c) are settled before the blocks (count_by_low_bits).
// A block's members share about its first log2(blocks) key bits; on the low ones they differ,
// and a visiting group that occupies such a cut diagonal finds its lanes masked (two lanes in
// three were, at n = 20). So the low `cl` key bits are settled beforehand: for each value vl
// of a visiting group's low bits, the sliced members whose low bits miss vl are taken apart
// (each member once per such vl, gathered a block at a time) and only those groups visit them.
//   A low bit settled saves lanes in proportion to the visiting side and costs copies in
// proportion to the sliced one. At odd n the visiting side is often 2 to 16 times the sliced
// one (the east half holds a queen more), so a low bit more is settled per doubling of nb / na,
// at most 3, once nb reaches 2^17 members; and one more where the sides share 38 diagonals or
// more (n = 22). Each rule lost where it applied to every size (perf/results/log.md).
[[gnu::always_inline]] inline int settled_low_bits(std::size_t na, std::size_t nb, int c,
                                                   int useful) {
  int high = 0;
  for (std::size_t k = na / 512; k > 1; k >>= 1) ++high;
  int lopsided = 0;
  if (nb >= (std::size_t{1} << 17))
    for (std::size_t q = nb / na; q > 1 && lopsided < 3; q >>= 1) ++lopsided;
  return std::clamp(c - high + lopsided + (useful >= 38 ? 1 : 0), 0, c);
}

// Step: sc.group_at, the group of each layout key (of 2^c), for c cuts `cut` of which the low cl
// key bits are settled, from the occupancies occ_a and occ_b.
// Which cut diagonal is which bit of the key the blocks see (its layout key): the settled
// low bits are the diagonals the sliced side occupies most (fewer of its members miss a low
// value, so the copies are smaller), and the others rise with the visiting side's occupancy (the
// highest bits part the sliced side into the longest runs, and the diagonal most visitors
// occupy then keeps them from the most blocks). The sliced side is laid out in the order of
// its groups' layout keys, and every group number in count_blocks is one; a key is still one PEXT,
// and only the 2^c groups are renumbered (the visiting side keeps the order of its keys): the
// members renumbered through a per-member table cost more than the order saves
// (perf/results/log.md).
[[gnu::always_inline]] inline void layout_keys(std::uint64_t cut, int c, int cl,
                                               const std::uint64_t* occ_a,
                                               const std::uint64_t* occ_b, SieveScratch& sc) {
  const std::uint32_t groups = 1u << c;
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

// Step: the sliced side, grouped by its cut diagonals in the order of their layout keys
// (sc.group_at) into sc.a (its kept bits) and sc.a_start.
[[gnu::always_inline]] inline void sort_sliced(const std::uint64_t* a, std::size_t na,
                                               std::uint64_t cut, std::uint64_t keep, int c,
                                               SieveScratch& sc) {
  sc.a.resize(na);
  sieve_sort(
      a, na, cut, keep, c, sc.a_start, sc.counts,
      [out = sc.a.data()](std::uint64_t x, std::uint32_t at) { out[at] = x; }, sc.group_at.data());
}

// Step: the sieved pairs, once both sides are sorted: for each value vl of the visiting groups'
// settled low key bits (`low`), the sliced members that miss vl (count_blocks).
[[gnu::always_inline]] inline std::uint64_t count_by_low_bits(const SieveLayout& l,
                                                              std::uint32_t low, SieveScratch& sc) {
  const std::uint32_t groups = l.groups;
  // vl = 0 meets every sliced member: counted in place, without a gather.
  sc.stopped = false;
  std::uint64_t total = count_blocks(l, sc.a_start.data(), low, 0, sc);
  sc.part_start.resize(groups + 1);
  for (std::uint32_t vl = 1; vl <= low && !sc.stopped; ++vl) {
    std::uint32_t at = 0;
    for (std::uint32_t u = 0; u < groups; ++u) {
      sc.part_start[u] = at;
      if ((u & vl) == 0) at += sc.a_start[u + 1] - sc.a_start[u];
    }
    sc.part_start[groups] = at;
    total += count_blocks(l, sc.part_start.data(), low, vl, sc);
  }
  return total;
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
//   The steps, in order: small sides pair by pair, the shared diagonals, the number of cuts;
// without cuts the slices directly; else the cuts, the visiting side's sort, the layout keys,
// the sliced side's sort, and the blocks for each settled low value. The steps are always
// inlined and count_blocks is a function of its own, so that match_patterns stays inlined into
// count_disjoint_sliced (with the steps left to GCC, it is not); chunk_offsets and the visiting
// side's with_chunks are called once per call.
inline std::uint64_t count_disjoint(const std::uint64_t* a, std::size_t na, const std::uint64_t* b,
                                    std::size_t nb, int bits, SieveScratch& sc) {
  if (na == 0 || nb == 0) return 0;
  if (na > nb) {
    std::swap(a, b);
    std::swap(na, nb);
  }
  if (na < 32) return count_pairwise(a, na, b, nb);
  const std::uint64_t shared = shared_diagonals(a, na, b, nb);
  if (shared == 0) return static_cast<std::uint64_t>(na) * nb;
  const int useful = std::popcount(shared);
  const double pairs = static_cast<double>(na) * static_cast<double>(nb);
  const int c = sieve_cut_count(na, pairs, useful);
  if (c <= 0) return count_unsieved(a, na, b, nb, shared, useful, bits, sc);
  std::uint64_t occ_a[64] = {}, occ_b[64] = {};
  const std::uint64_t cut = choose_cuts(a, na, b, nb, shared, c, bits, pairs, occ_a, occ_b, sc);
  const std::uint64_t keep = shared & ~cut;
  const int rest = useful - c;
  const SieveLayout layout{c, 1u << c, static_cast<std::size_t>(chunks_of(rest)), rest};
  sort_visitors(b, nb, cut, keep, layout, sc);
  const int cl = settled_low_bits(na, nb, c, useful);
  layout_keys(cut, c, cl, occ_a, occ_b, sc);
  sort_sliced(a, na, cut, keep, c, sc);
  return count_by_low_bits(layout, (1u << cl) - 1, sc);
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::join_detail
