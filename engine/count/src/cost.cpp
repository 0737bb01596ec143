#include "engine/count/src/cost.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "base/prefault.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"

namespace nq {

using namespace detail;  // this file defines them
namespace {

std::uint64_t width_at(const Subproblem& s, Mask cols, Mask ld, Mask rd, int row, int depth) {
  if (row == s.rows || depth == 0) return 1;
  Mask avail = ~(cols | ld | rd | s.blocked[row]) & s.full;
  std::uint64_t w = 0;
  while (avail) {
    const Mask bit = avail & (0u - avail);
    avail ^= bit;
    w += width_at(s, cols | bit, (ld | bit) << 1, (rd | bit) >> 1, row + 1, depth - 1);
  }
  return w;
}

// expected_placements' logarithms, tabulated once: the estimate runs for every subproblem of a
// row-split plan before the count starts (3299 at n = 16), where some 40 log / log1p calls a
// subproblem were a third of the serial setup.
struct PlacementLogs {
  double factorial[kMaxN + 1];         // log k!
  double share[kMaxN + 1][kMaxN + 1];  // log(free / k)
  double apart[kMaxN + 1][kMaxN + 1];  // log(1 - 2 (k - d) / (k (k - 1))), d < k
  PlacementLogs() {
    for (int k = 0; k <= kMaxN; ++k) {
      factorial[k] = std::lgamma(k + 1.0);
      for (int f = 0; f <= kMaxN; ++f)
        share[k][f] = k > 0 && f > 0 ? std::log(f / static_cast<double>(k)) : -HUGE_VAL;
      for (int d = 0; d <= kMaxN; ++d)
        apart[k][d] = k > 1 && d < k ? std::log1p(-2.0 * (k - d) / (k * (k - 1.0))) : 0.0;
    }
  }
};

// The expected number of placements of one queen per row of `rows` (ascending board rows, each
// with its free squares `squares` in a block of k columns), no two attacking: k! permutations,
// thinned by each row's share of free columns, and by each pair of rows d apart, which a random
// permutation puts on a shared diagonal with probability 2 (k - d) / (k (k - 1)), taken as
// independent. Deterministic and O(k^2); over the n = 18 row-split plan it correlates 0.83 / 0.88
// (west / east) with Knuth's estimate from 64 random paths, which cost 0.5 s of setup.
double expected_placements(const int* rows, const Mask* squares, int k) {
  if (k == 0) return 1;
  static const PlacementLogs logs;
  double log_count = logs.factorial[k];
  for (int i = 0; i < k; ++i) {
    log_count += logs.share[k][std::popcount(squares[i])];
    for (int j = i + 1; j < k; ++j) log_count += logs.apart[k][rows[j] - rows[i]];
  }
  return std::exp(log_count);
}

}  // namespace

// Three rows from n = 12: over the subproblems of n = 16 (split 4) the width three rows down
// correlates 0.81 with the true node counts (0.86 at four rows, 0.91 at five), at about 0.6 us
// a subproblem instead of 4 or 11; with largest-first dealing the simulated efficiency at 256
// workers is 0.99 at n = 16 either way, and the progress percentage stays within 0.3 of the
// truth. More rows would only lengthen the serial setup of every run.
int detail::cost_probe_rows(int n) {
  return std::clamp(n / 4, 2, 3);
}

std::uint64_t detail::estimate_cost(const Subproblem& s, int probe_rows) {
  // +1: a subproblem that dies at once still costs its setup.
  return 1 + width_at(s, s.cols, s.ld, s.rd, 0, probe_rows);
}

// A least-squares fit to the task seconds of n = 18 (--task-stats, three runs averaged, halves'
// placements by Knuth's estimate): seconds = 0.35 ms + 27 ns per half-board placement + 5.3 ps
// per pair, i.e. in units of one placement a task costs 13000 + placements + pairs / 5000.
// expected_placements runs 1.33x above Knuth's estimate on average, hence the scale.
constexpr double kJoinTaskCost = 13000, kJoinPairsPerLeaf = 5000, kJoinPlacementScale = 0.75;

std::uint64_t detail::estimate_join_cost(const Subproblem& s, int probe_rows) {
  // The kernel's cut (kernels.hpp, join_west_half).
  const Mask free_cols = s.full & ~s.cols;
  if (s.rows < 4 || std::popcount(free_cols) != s.rows) return estimate_cost(s, probe_rows);
  const Mask west = join_west_half(s), east = free_cols & ~west;
  int rows[2][kMaxN], count[2] = {0, 0};
  Mask squares[2][kMaxN];
  for (int i = 0; i < s.rows; ++i) {
    const Mask allowed = open_row_squares(s, i);
    const bool in_west = (allowed & west) != 0, in_east = (allowed & east) != 0;
    if (in_west == in_east) {
      if (!in_west) return 1;               // a row with no free square: nothing to count
      return estimate_cost(s, probe_rows);  // a row open to both halves: not the row split
    }
    const int h = in_east ? 1 : 0;
    rows[h][count[h]] = i;
    squares[h][count[h]++] = allowed;
  }
  const int k[2] = {std::popcount(west), std::popcount(east)};
  if (count[0] != k[0] || count[1] != k[1]) return 1;  // a half without its queens' rows: none
  const double west_leaves = kJoinPlacementScale * expected_placements(rows[0], squares[0], k[0]);
  const double east_leaves = kJoinPlacementScale * expected_placements(rows[1], squares[1], k[1]);
  return static_cast<std::uint64_t>(std::llround(kJoinTaskCost + west_leaves + east_leaves +
                                                 west_leaves * east_leaves / kJoinPairsPerLeaf));
}

std::uint64_t detail::join_pairs_cost(std::uint64_t pairs) {
  return static_cast<std::uint64_t>(static_cast<double>(pairs) / kJoinPairsPerLeaf);
}

std::uint64_t detail::estimate_plan_cost(const Plan& plan, std::size_t i) {
  const int rows = cost_probe_rows(plan.n);
  if (!plan.rowsplit()) return estimate_cost(plan.subproblems[i], rows);
  std::uint64_t cost = 0;  // the task's subproblems, unranked on demand
  for (std::uint64_t r = plan.first_split(i); r < plan.end_split(i); ++r)
    if (const RowSplitKey key = rowsplit_key(plan.n, r); key.weight != 0)
      cost += estimate_join_cost(rowsplit_task_subproblem(plan, i, key), rows);
  return cost;
}

std::uint64_t split_cost(const Plan& plan, std::uint64_t split) {
  const SplitSubproblem r = split_subproblem(plan, split);
  return r.weight == 0 ? 0 : estimate_join_cost(r.subproblem, cost_probe_rows(plan.n));
}

std::vector<std::uint64_t> estimate_costs(const Plan& plan, const std::atomic<bool>* cancel) {
  std::vector<std::uint64_t> costs;
  reserve_prefaulted(costs, plan.size());
  costs.resize(plan.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, costs.size(), 256), [&](const auto& r) {
    for (std::size_t i = r.begin(); i < r.end(); ++i) {
      if (cancel && cancel->load(std::memory_order_relaxed)) return;
      costs[i] = estimate_plan_cost(plan, i);
    }
  });
  return costs;
}

}  // namespace nq
