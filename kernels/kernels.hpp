// The counting kernels and their run-time dispatch.
//
// Every kernel has the same batch interface: count the completions of each subproblem of a
// span and write one Tally per subproblem. The batch lets lane-parallel kernels refill lanes
// from a queue of subproblems; the scalar kernel simply loops.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/subproblem.hpp"

namespace nq {

using BatchFn = void (*)(std::span<const Subproblem> in, std::span<Tally> out);

// Which plan of the front end (engine/count/plan.hpp) a kernel counts: the canonical classes
// (the backtracking kernels), the classic mirror-halved plan (the reference kernel, which has
// no per-row masks), or the row-split plan (the join, one subproblem per east row set).
enum class PlanKind : std::uint8_t { kCanonical, kClassic, kRowSplit };
std::string_view plan_kind_name(PlanKind kind);  // "canonical", "classic", "rowsplit"

struct Kernel {
  std::string_view name;         // as typed after --kernel
  std::string_view description;  // a phrase for --kernel's help
  std::string_view needs;        // the CPU features it needs, for error messages
  bool (*supported)();           // can this CPU run it?
  BatchFn count;
  PlanKind plan = PlanKind::kCanonical;
  // The instruction set the kernel runs in on this CPU ("avx512", "avx2", "scalar"): the join
  // chooses its own bit-slice build at run time.
  std::string_view (*isa)() = nullptr;
  // Its Tally::nodes are search-tree nodes, equal to the scalar kernel's for every subproblem
  // (the backtracking kernels). The join's are the queens placed on half-boards, the reference
  // kernel's those of its own whole-board search.
  bool search_nodes = true;
  // Makes the calling thread ready to count boards of size n (its scratch allocated and faulted
  // in), so that a worker's start-up is not charged to the first subproblem it counts; null
  // where there is nothing to prepare.
  void (*prepare)(int n) = nullptr;
};

// The scalar bitboard kernel: the reference every other kernel must match exactly.
void count_scalar(std::span<const Subproblem> in, std::span<Tally> out);
Tally count_one_scalar(const Subproblem& s);

// The lane-parallel kernels (lanes.hpp), one per instruction set. Call them only when the
// matching `*_supported()` says this CPU can run them.
void count_avx2(std::span<const Subproblem> in, std::span<Tally> out);
void count_avx512(std::span<const Subproblem> in, std::span<Tally> out);
bool avx2_supported();
bool avx512_supported();
bool join_avx512_supported();
// Whether this CPU executes a 512-bit load as two 256-bit ones (AMD Zen 4: family 0x19 with
// AVX-512). There the AVX-512 join's pair counter reads half of each table entry when a visit's
// lanes all lie in one half of a block (kernels/join/pair_counter.hpp, count_disjoint_sliced); on
// CPUs whose loads are 512 bits wide (Zen 5, Intel) it reads whole entries, which took less time or
// the same there (perf/results/log.md). Zen 5's mobile parts split 512-bit operations too; none was
// measured, so they read whole entries.
bool cpu_splits_wide_loads();

// The split-board join (kernels/join/): the same completions, by enumerating the two halves of the
// board and counting the compatible pairs. The AVX-512 build needs join_avx512_supported():
// avx512_supported() and VBMI and GFNI (its bit transposes).
// Its memory is bounded whatever the board: a half of a row-split subproblem comes out in chunks
// of at most kJoinChunk placements, paired chunk by chunk, and its bottom part
// (join/settled_half.hpp) holds at most kJoinMaxParts (a larger one gives a row to the top part).
// The general path (subproblems whose rows may take either half) holds at most kJoinMaxLeaves
// placements a half, and hands a subproblem with more to the scalar search. So one thread never
// holds more than kJoinScratchBytes.
inline constexpr std::size_t kJoinMaxLeaves = std::size_t{1} << 20;
// Chunks of 2^23 placements, not 2^20: a chunk pair is then 64 times larger, the pair counter's
// sieve has placements enough for 16 cut diagonals (at least 64 members a group), where a pair
// of 2^20 chunks had 12 and more cuts did not pay, and each chunk is sorted by the sieve 8 times
// less often. From n = 25, where a half is several chunks, that is about half the pair work and
// time (perf/results/log.md); below, halves are smaller than either chunk size.
inline constexpr std::size_t kJoinChunk = std::size_t{1} << 23;
inline constexpr std::size_t kJoinMaxParts = std::size_t{1} << 18;
// A half's top placements are joined with their bottom parts in batches of at most this many.
inline constexpr std::size_t kJoinTopBatch = std::size_t{1} << 15;
// The join's scratch for one thread, in bytes, for halves of up to `leaves` placements and bottom
// parts of up to `parts`: per placement of a chunk (at most kJoinChunk), both halves' chunks (8
// bytes each), the sieve's copy of the sliced side (8) and the visiting side's chunk offsets (at
// most 9 chunks of 2 bytes: 18); per placement of the general path (at most kJoinMaxLeaves), its
// leaves (16) and bucket starts (4) for both halves; per part, both halves' bottom parts (16 a
// placement, for up to 1.25 per part: 20) and the sub-parts they are made from (at most a quarter
// as many: their placements, 32, and bucketed copies, 24: 14); per top placement of a batch, both
// halves' two copies (24 each) and keys (4); and 3 MiB for the bucket starts of the bottom
// parts, their sub-parts and the batches (2^16 + 1 of 4 bytes each, four a half), the slice
// tables and the sieve's group arrays for 2^12 groups. The sieve cuts more diagonals only with
// 64 members a group or more (join/count_disjoint.hpp): up to chunk / 64 groups, at most 2^16
// (kMaxCuts), each with 152 bytes: its starts (three arrays) and layout key (16), visit (40),
// histograms and cursors (32) and lanes (64).
constexpr std::size_t join_scratch_bytes(std::size_t leaves, std::size_t parts) {
  const std::size_t chunk = leaves < kJoinChunk ? leaves : kJoinChunk;
  const std::size_t general = leaves < kJoinMaxLeaves ? leaves : kJoinMaxLeaves;
  const std::size_t groups = chunk / 64 < (std::size_t{1} << 16) ? chunk / 64 : std::size_t{1} << 16;
  return chunk * (2 * 8 + 8 + 18) + general * 2 * (16 + 4) + parts * 2 * (20 + 14) +
         kJoinTopBatch * 2 * (24 + 24 + 4) + (std::size_t{3} << 20) +
         (groups > (std::size_t{1} << 12) ? (groups - (std::size_t{1} << 12)) * 152 : 0);
}
inline constexpr std::size_t kJoinScratchBytes = join_scratch_bytes(kJoinChunk, kJoinMaxParts);
// The largest half-board (placements) and the largest bottom part of one (join/settled_half.hpp)
// over a row-split plan, measured (maxima over every subproblem, `nqcount --n N --threads 1`):
//   n:                16     17     18      19      20
//   half-board:     2956  14270  17506   87052  114142
//   bottom part:    2414  14188  15738   41116   44600
// (odd n: the east half holds the middle column, its queen free in several rows, so it is the
// larger one; remeasured after that plan change, with n = 20's half-board.)
// Outside 16..20 they are extrapolated from the nearest measured size at 2.45x per n. The
// memory estimate bounds the scratch by `margin` 4 (engine/count/memory.cpp); the kernel reserves
// them as they are, once per thread (join/scratch.hpp).
struct JoinScratchSizes {
  std::size_t leaves = 0, parts = 0;
};
inline JoinScratchSizes join_scratch_sizes(int n, double margin = 1.0) {
  constexpr double kLeaves[] = {2956, 14270, 17506, 87052, 114142};
  constexpr double kParts[] = {2414, 14188, 15738, 41116, 44600};
  const int at = std::clamp(n, 16, 20);
  const double scale = margin * std::pow(2.45, n - at);
  auto sized = [&](double measured, std::size_t cap) {
    return static_cast<std::size_t>(
        std::min(static_cast<double>(cap), std::ceil(measured * scale)));
  };
  return {sized(kLeaves[at - 16], kJoinChunk), sized(kParts[at - 16], kJoinMaxParts)};
}
// The join's cut of a subproblem into halves: its lowest rows/2 free columns are the west half,
// the other free columns the east one. The cost estimate (engine/count/cost.cpp) follows the same
// cut.
inline Mask join_west_columns(const Subproblem& s) {
  Mask west = 0, rest = s.full & ~s.cols;
  for (int k = 0; k < s.rows / 2; ++k) {
    const Mask bit = rest & (0u - rest);
    west |= bit;
    rest ^= bit;
  }
  return west;
}
void count_join_scalar(std::span<const Subproblem> in, std::span<Tally> out);
// The join's second opinion on the boards where the search is too slow to check it (from
// kJoinCheckedBySelfFromN: a row-split subproblem takes the search about 250 times as long as
// the join at n = 20 to 22, hours at n = 28): the baseline build, its halves cut into chunks and
// bottom parts a quarter of the count's. It shares the join's method, not its SIMD code or its
// cut points: it catches faults and the AVX-512 paths' errors, and the tests hold the method
// itself against the search.
void count_join_check(std::span<const Subproblem> in, std::span<Tally> out);
const Kernel& join_check_kernel();  // "join-check", not in the table (not a --kernel choice)
inline constexpr int kJoinCheckedBySelfFromN = 24;
void count_join_avx512(std::span<const Subproblem> in, std::span<Tally> out);
void prepare_join_scalar(int n);
void prepare_join_avx512(int n);
// What the join reports while it counts a large subproblem, and how it is told to stop: after
// every pair of chunks (a subproblem from n = 24 on may have thousands), poll(context, pairs)
// hears how many candidate pairs were just examined, and returns true to stop the count at once
// (its tally is then partial, and the caller must drop it).
struct JoinWatch {
  bool (*poll)(void* context, std::uint64_t pairs) = nullptr;
  void* context = nullptr;
};
// The calling thread's watch, in the build the dispatcher runs and in join-check's (below; a
// default JoinWatch: none).
void set_join_watch(const JoinWatch& watch);
void set_join_watch_scalar(const JoinWatch& watch);
void set_join_watch_avx512(const JoinWatch& watch);

// Part of one row-split subproblem's count, for estimates: both halves are walked once, cut
// into chunks as a count cuts them (kJoinChunk placements), and `pieces` of the east x west
// chunk pairs, drawn at random (seeded), are paired (all of them when there are no more). The
// times are `clock()`'s (the caller's: its thread's CPU seconds). A count of the subproblem
// would find about (east_chunks west_chunks / pieces) solutions per solution here, and take
// setup + (west_chunks == 1 ? 1 : east_chunks) west + (east_chunks west_chunks / pieces) pairs
// seconds: it makes the west half once per east chunk unless one chunk holds it. With pieces 0
// only the halves' bottom parts are made (and kept for the next subproblem, as in a count).
struct JoinSample {
  bool settled = false;  // false: not a row-split subproblem, nothing counted
  std::uint64_t east_chunks = 0, west_chunks = 0;
  std::uint64_t pieces = 0;     // chunk pairs counted
  std::uint64_t solutions = 0;  // in the pieces counted
  double setup_seconds = 0;     // the halves' bottom parts and the walk of the east half
  double west_seconds = 0;      // one walk of the west half
  double pair_seconds = 0;      // pairing the pieces (not remaking their chunks)
};
JoinSample sample_join(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                       double (*clock)());
JoinSample sample_join_scalar(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                              double (*clock)());
JoinSample sample_join_avx512(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                              double (*clock)());
// For tests: the calling thread's join chunk (placements of a settled half paired at a time)
// and bottom-part limit, in both builds (0: the defaults, kJoinChunk and kJoinMaxParts).
// Small limits make small boards take the paths that only large boards need otherwise.
void set_join_limits(std::size_t chunk, std::size_t parts);
void set_join_limits_scalar(std::size_t chunk, std::size_t parts);
void set_join_limits_avx512(std::size_t chunk, std::size_t parts);
// The join's pair counter on its own, for tests: pairs (x in a, y in b) with x & y == 0, for
// patterns of `bits` < 64 bits (the AVX-512 one needs join_avx512_supported(); narrow_visits:
// whether it reads half-entries for visits of half a block, as where cpu_splits_wide_loads()).
std::uint64_t count_disjoint_pairs_scalar(std::span<const std::uint64_t> a,
                                          std::span<const std::uint64_t> b, int bits);
std::uint64_t count_disjoint_pairs_avx512(std::span<const std::uint64_t> a,
                                          std::span<const std::uint64_t> b, int bits,
                                          bool narrow_visits);
// The cut diagonals that the pair counter's sieve chooses on sampled pairs for large sides, for
// tests: c of the bits of `shared` (a is the side whose members the sample rows are).
std::uint64_t sieve_cuts_scalar(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                std::uint64_t shared, int c);
std::uint64_t sieve_cuts_avx512(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                std::uint64_t shared, int c);

// The reference kernel as a batch kernel: count_classic for each subproblem of the classic plan
// (no fixed queens, nothing blocked; n is the width of `full`).
void count_reference(std::span<const Subproblem> in, std::span<Tally> out);

// How many batches the kernel `name` has counted in this process: tests use it to prove that
// the kernel a run reports is the one that ran.
std::uint64_t kernel_batches(std::string_view name);

// All kernels this build knows: the backtracking ones in priority order (the first supported
// one is "auto" below kJoinFromN), then the join and the reference kernel.
std::span<const Kernel> all_kernels();
// The kernel `name` names ("auto" picks the best supported). Returns nullptr if unknown;
// `supported()` tells whether this CPU can run it.
const Kernel* find_kernel(std::string_view name);
const Kernel& best_kernel();  // the best backtracking kernel
// What "auto" runs for an n-board: the join from kJoinFromN on, where it is measured to be
// faster (docs/count.md, "The row-split plan and the join kernel"), the best backtracking
// kernel below.
inline constexpr int kJoinFromN = 16;
const Kernel& auto_kernel(int n);

// The literature's row ordering and look-ahead (kernels/ordered.cpp), on the scalar search
// only: rows takes the open rows top to bottom, fewest the open row with the fewest free
// squares; look-ahead prunes a placement that leaves some open row without a free square.
// Same solutions as count_one_scalar; with rows and no look-ahead the same nodes too.
enum class RowOrder { rows, fewest };
Tally count_one_ordered(const Subproblem& s, RowOrder order, bool lookahead);
// The kernel record the engine runs for an order and look-ahead choice (names "scalar",
// "scalar-lookahead", "scalar-fewest", "scalar-fewest-lookahead").
const Kernel& ordered_kernel(RowOrder order, bool lookahead);

// The classic kernel (the table's "reference"): one queen per row over the whole board, no fixed
// queens, no symmetry beyond what the caller does with it. It is kept separate from the kernels
// above so that it stays an independent check. Counts the completions of a board whose first rows
// are already placed (state `cols/ld/rd`, `rows` rows still open).
Tally count_classic(int n, Mask cols, Mask ld, Mask rd, int rows);

}  // namespace nq
