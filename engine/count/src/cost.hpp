// A cheap estimate of what a subproblem costs to count, for an honest progress percentage and
// ETA: subproblem costs differ by two orders of magnitude, so counting them would lie.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "engine/count/plan.hpp"
#include "kernels/subproblem.hpp"

namespace nq::detail {

// The number of partial boards that survive the first `probe_rows` open rows of the search (the
// width of the search tree at that depth). The subtrees below them are much alike, so this
// tracks the node count of the whole subproblem, the better the deeper (over n = 16's
// subproblems, a correlation of 0.69 at 2 rows, 0.91 at 5). Deeper probes cost more, so the
// depth grows with n (cost_probe_rows), keeping the probe a negligible part of the count.
int cost_probe_rows(int n);
std::uint64_t estimate_cost(const Subproblem& s, int probe_rows);

// The join kernel's cost for a subproblem whose rows each lie in one half of the board (the
// row-split plan). The search-tree width says little there: at n = 17 the progress percentage it
// weights was off by up to 29 points (worst gap between the estimated and the measured share of
// work done, tasks in largest-first order; counting subproblems instead: 2 points). The join's
// work is enumerating both halves and testing their pairs, 64 or 512 at a time, so its cost
// follows the two halves' placement counts, estimated in closed form (cost.cpp), plus a fixed
// part per task. Worst progress gap with it: 4.6 points at n = 17, 3.3 at n = 18 (4.4 with the
// width, 6.1 counting subproblems). Deterministic. Any other subproblem gets estimate_cost.
std::uint64_t estimate_join_cost(const Subproblem& s, int probe_rows);
// The part of estimate_join_cost that `pairs` candidate pairs of half-boards stand for: what a
// count reports as it goes through a large subproblem (kernels.hpp, Watch).
std::uint64_t join_pairs_cost(std::uint64_t pairs);

// The cost of task i of the plan: estimate_cost of its subproblem, or, in the row-split plan (the
// join's), the sum of estimate_join_cost over the subproblems of its splits.
std::uint64_t estimate_plan_cost(const Plan& plan, std::size_t i);

}  // namespace nq::detail
