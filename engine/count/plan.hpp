// The front end's plans: the count split into tasks, each a subproblem (or, in the row-split
// plan, a block of them) that any kernel of the plan's kind counts on its own. How a board splits
// (the D4 classes, the row splits and their splits, Burnside's terms) is in splits.hpp.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "base/types.hpp"
#include "kernels/kernels.hpp"
#include "kernels/subproblem.hpp"

namespace nq {

// The work of one count: tasks, task i standing for subproblems[i] with weight weights[i], or,
// in the row-split plan, for a block of consecutive splits (detail::rowsplit_key, splits.hpp),
// which nothing stores: a worker unranks a task's subproblems when it claims it. A task's index is
// what journals, selections (resume, MPI) and task stats name.
struct Plan {
  int n = 0;
  int split_rows = 0;
  std::uint64_t classes = 0;
  std::vector<Subproblem> subproblems;  // empty in the row-split plan
  std::vector<std::uint8_t> weights;
  u128 sym4 = 0,
       sym2 = 0;  // Burnside's terms (splits.hpp); the classic route fills them by Burnside instead
  PlanKind kind = PlanKind::kCanonical;  // which plan_* made it, and so which kernels count it
  bool classic() const { return kind == PlanKind::kClassic; }    // for count_classic
  bool rowsplit() const { return kind == PlanKind::kRowSplit; }  // the join's
  std::uint64_t splits = 0;  // the row-split plan: splits 0..splits-1 (detail::row_splits)
  std::uint64_t block = 1;   // the row-split plan: splits per task
  // The row-split plan cut finer than a split (block 1): each split's subproblem cut into `pieces`
  // pieces, consecutive tasks, piece p holding the solutions whose first-row queen stands on
  // the p-th, (p + pieces)-th, ... open square of that row (detail::rowsplit_piece).
  std::uint64_t pieces = 1;
  bool stopped = false;  // PlanControl stopped it: incomplete, not to be counted

  // Tasks in the plan.
  std::size_t size() const {
    return rowsplit() ? static_cast<std::size_t>((splits + block - 1) / block * pieces)
                      : subproblems.size();
  }
  // The weight of task i's tally: the row-split plan's tasks report their solutions already
  // weighted (a block holds subproblems of weight 2 and 4), so theirs is 1.
  std::uint64_t weight(std::size_t i) const { return rowsplit() ? 1 : weights[i]; }
  // The splits [first, end) of task i of the row-split plan, and its piece of them (0 of 1 when
  // the plan is not cut finer than a split).
  std::uint64_t first_split(std::size_t i) const { return i / pieces * block; }
  std::uint64_t end_split(std::size_t i) const {
    return std::min(splits, (i / pieces + 1) * block);
  }
  std::uint64_t piece(std::size_t i) const { return i % pieces; }
};

// How a caller bounds and stops the making of a plan, whose Burnside terms are a search of
// their own that takes minutes on a large board. A plan calls `admit` with its kind and its
// number of tasks as soon as that is known, before it allocates them or searches: false stops it
// there. It looks at `cancel` in its long loops and stops soon after it is set. A plan stopped
// either way is incomplete (Plan::stopped) and must not be counted.
struct PlanControl {
  const std::atomic<bool>* cancel = nullptr;
  std::function<bool(PlanKind kind, std::uint64_t tasks)> admit;
  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

// The canonical-class plan, n >= 4.
Plan plan_canonical(int n, int split_rows, const PlanControl& control = {});
// The classic route: left-right mirror halving on the first row (and the second for odd n
// with the first queen in the middle), weight 2; unique by Burnside with whole-board fixed
// counts.
Plan plan_classic(int n, int split_rows, const PlanControl& control = {});

// The join kernel's plan (kernels/src/join/): the columns are cut into a west and an east half
// (odd n: the middle column apart), and a subproblem fixes which rows hold their queen in the
// east half (the rest hold theirs in the west), as per-row blocked squares, so any kernel can
// count it. Odd n: the middle queen's row r is not fixed; a subproblem fixes the west rows W and
// leaves the middle column open in some of the other rows, the middle column going with the east
// half, so the join enumerates the west half once for all those r. The rows' flip and the
// columns' mirror (which swaps the halves, so it maps a row set to its complement) make a group
// of 4 acting on the row splits without changing their counts: one split per orbit, weighted by
// the orbit's size (odd n: a subproblem holds the splits of one weight that share their west
// rows). Unique by Burnside with whole-board fixed counts, as plan_classic. n >= 4. With
// `fixed_counts` false, sym4 and sym2 are left for the caller to add later from
// detail::whole_board_symmetric(n) (splits.hpp) (the runner computes them on one of its workers
// while the count runs).
//
// The plan is lazy: it holds no subproblem, only the number of splits (detail::rowsplit_key) and
// how many consecutive splits make a task (at most kMaxRowSplitTasks tasks, so the scheduler's
// per-task arrays stay bounded whatever n is). With `min_tasks` above kMaxRowSplitTasks the tasks
// are cut finer, to between half and all of that many (rowsplit_block; blocks are whole numbers of
// splits), and past one split a task into pieces of a split (rowsplit_pieces): the granularity of a
// cluster's run (cluster_plan_tasks), where each split's arrays are still bounded by
// the splits of the plan times n / 2. A journal names tasks, so it resumes only a plan of the
// same cut (RunIdentity holds the number of tasks).
Plan plan_rowsplit(int n, bool fixed_counts = true, const PlanControl& control = {},
                   std::uint64_t min_tasks = 0);
// The splits a task of the row-split plan holds: the fewest that cut `splits` splits into at most
// t = max(kMaxRowSplitTasks, min_tasks) tasks (so at least min(splits, t / 2) tasks). A plan of T
// tasks cut so is cut again so with min_tasks = T (its journal's T: rowsplit_journal_tasks):
// the block is the same while it is below the square root of the splits, as it is up to n = 32.
std::uint64_t rowsplit_block(std::uint64_t splits, std::uint64_t min_tasks);
// The pieces a split of the row-split plan of n is cut into (Plan::pieces) for `min_tasks`: 1 up
// to twice the splits; beyond, min_tasks / splits, at most n / 2 (a split's first row has n / 2
// open squares or more, so no piece is empty by construction) and at most what keeps the tasks
// under 2^32 (the runner's 32-bit positions). A plan cut so is cut again so with min_tasks =
// its tasks (splits x pieces).
std::uint64_t rowsplit_pieces(int n, std::uint64_t splits, std::uint64_t min_tasks);
// The cut a cluster's run asks of the row-split plan of n for `all_threads` threads over every
// split: dealer_plan_tasks (dealer.hpp), cut into pieces of a split from kRowSplitPiecesFromN
// only. Below it a split's subproblem takes milliseconds to a second, its halves' walks are a
// large part of it and every piece walks them again: three pieces cost 1.3 times the whole at
// n = 22 and 24, 1.02 to 1.04 at n = 26 (perf/results/log.md).
inline constexpr int kRowSplitPiecesFromN = 25;
std::uint64_t cluster_plan_tasks(int n, std::uint64_t all_threads);
// The tasks of the row-split plan of n cut for `min_tasks` (plan_rowsplit's size), without
// making the plan: what a --tasks asks, beside what a journal holds.
std::uint64_t rowsplit_tasks(int n, std::uint64_t min_tasks);

// How many subproblems (splits of non-zero weight) the row-split plan of n counts: Burnside over
// the four symmetries (the orbits of the row splits), except odd n by west rows: a table.
std::uint64_t rowsplit_subproblems(int n);
// The most tasks a row-split plan has: larger plans put consecutive splits in one task.
inline constexpr std::uint64_t kMaxRowSplitTasks = std::uint64_t{1} << 21;

// The default split for n: enough, small enough subproblems for many threads.
int default_split_rows(int n);

// Split `split` (< plan.splits) of a row-split plan: its subproblem and its weight (0 where the
// split stands for no orbit and counts as nothing), as a worker unranks it when it claims its task.
struct SplitSubproblem {
  Subproblem subproblem;
  int weight = 0;
};
SplitSubproblem split_subproblem(const Plan& plan, std::uint64_t split);
// Task `task` of a row-split plan of one split a task (block 1): its split's piece (Plan::pieces;
// the whole split where the plan has one part).
SplitSubproblem rowsplit_task(const Plan& plan, std::size_t task);
// The cost model's estimate for one split of a row-split plan (what estimate_costs sums over a
// task's splits): the estimate's sampling draws splits by it.
std::uint64_t split_cost(const Plan& plan, std::uint64_t split);

// Every task's estimated cost, in plan order (cost.hpp): what the scheduler and the MPI dealer
// deal by, and the progress line's estimated share. With `cancel`, it stops soon after that is
// set, leaving the rest 0 (a large board's estimates take tens of seconds).
std::vector<std::uint64_t> estimate_costs(const Plan& plan,
                                          const std::atomic<bool>* cancel = nullptr);

}  // namespace nq
