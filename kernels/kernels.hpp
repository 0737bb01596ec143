// The counting kernels and their run-time dispatch.
//
// Every kernel has the same batch interface: count the completions of each subproblem of a
// span and write one Tally per subproblem. The batch lets lane-parallel kernels refill lanes
// from a queue of subproblems; the scalar kernel simply loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "kernels/subproblem.hpp"

namespace nq {

using BatchFn = void (*)(std::span<const Subproblem> in, std::span<Tally> out);

// Which plan of the front end (engine/count/plan.hpp) a kernel counts: the canonical classes
// (the backtracking kernels), the classic mirror-halved plan (the reference kernel, which has
// no per-row masks), or the row-split plan (the join, one subproblem per east row set).
enum class PlanKind : std::uint8_t { kCanonical, kClassic, kRowSplit };
std::string_view plan_kind_name(PlanKind kind);  // "canonical", "classic", "rowsplit"

// What a long count reports as it goes, and how it is told to stop: poll(context, work) hears how
// much work was just done (the join: after every pair of chunks, the candidate pairs it
// examined), and returns true to stop the count at once (its tally is then partial, and the
// caller must drop it).
struct Watch {
  bool (*poll)(void* context, std::uint64_t work) = nullptr;
  void* context = nullptr;
};

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
  // Makes the calling thread ready to count boards of size n (its scratch allocated and faulted
  // in), so that a worker's start-up is not charged to the first subproblem it counts; null
  // where there is nothing to prepare.
  void (*prepare)(int n) = nullptr;
  // A kernel whose subproblems take seconds to hours on large boards (the join, from
  // watched_from_n): one subproblem counted while it reports its work to `watch` and stops when
  // told to, so that a caller's progress moves and a stop is seen within a subproblem; a caller
  // counts such boards one subproblem at a time through it. Null: the kernel's subproblems are
  // short, and its batches are counted whole.
  void (*count_watched)(const Subproblem& s, Tally& out, const Watch& watch) = nullptr;
  int watched_from_n = 0;
};

// The scalar bitboard kernel: the reference every other kernel must match exactly.
Tally count_one_scalar(const Subproblem& s);

// The split-board join (kernels/src/join/): the same completions, by enumerating the two halves of
// the board and counting the compatible pairs, in AVX-512 (with VBMI and GFNI, for its bit
// transposes) where the CPU has it. Its memory is bounded whatever the board
// (kernels/src/join_limits.hpp).
//
// The join's second opinion on the boards where the search is too slow to check it (from
// kJoinCheckedBySelfFromN; perf/results/log.md): the baseline build, its halves cut into chunks and
// bottom parts a quarter of the count's. It shares the join's method, not its SIMD code or its
// cut points: it catches faults and the AVX-512 paths' errors, and the tests hold the method
// itself against the search.
const Kernel& join_check_kernel();  // "join-check", not in the table (not a --kernel choice)
inline constexpr int kJoinCheckedBySelfFromN = 24;

// The join's scratch memory a thread (its buffers, kept for the thread's life): for an n-board,
// what its largest half-boards and bottom parts need, measured, times `margin` (the memory
// estimate takes 4), and never above join_scratch_limit(), the bound whatever the board.
std::uint64_t join_scratch_bytes_for(int n, double margin);
std::uint64_t join_scratch_limit();
// The join's cut of a subproblem into halves: the columns of its west half (its lowest rows / 2
// free columns); the other free columns are the east half's. The cost model follows it.
Mask join_west_half(const Subproblem& s);

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

// The literature's row ordering and look-ahead (kernels/src/ordered.cpp), on the scalar search
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
