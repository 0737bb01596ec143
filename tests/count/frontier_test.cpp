// The join on the frontier boards: sampled subproblems of the lazy row-split plan, counted by the
// join and by the independent backtracking search, must agree. At n = 23: from n = 24 the
// largest half-boards pass the join's scratch cap and the join hands them to the search itself
// (minutes a subproblem on this VM), which would compare the search with itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <vector>

#include "count/cost.hpp"
#include "count/plan.hpp"
#include "kernels/kernels.hpp"

namespace nq {
namespace {

// Unranked representatives drawn at random (seeded) from the whole plan.
std::vector<Subproblem> sample(int n, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, rowsplit_ranks(n) - 1);
  std::vector<Subproblem> out;
  while (static_cast<int>(out.size()) < count)
    if (const RowSplitKey key = rowsplit_key(n, pick(rng)); key.weight != 0)
      out.push_back(rowsplit_subproblem(n, key));
  return out;
}

// Of 64 drawn subproblems, the three the cost model calls cheapest, so that the backtracking
// search keeps the test to seconds (1.3 s here).
TEST(SlowFrontier, SampledN23SubproblemsJoinMatchesBacktracking) {
  const int n = 23;
  std::vector<Subproblem> subs = sample(n, 64, 23);
  std::sort(subs.begin(), subs.end(), [&](const Subproblem& a, const Subproblem& b) {
    return estimate_join_cost(a, cost_probe_rows(n)) < estimate_join_cost(b, cost_probe_rows(n));
  });
  subs.resize(3);
  const Kernel* join = find_kernel("join");
  const Kernel& search = best_kernel();
  ASSERT_NE(search.name, "join");
  std::uint64_t solutions = 0;
  for (const Subproblem& s : subs) {
    Tally a, b;
    join->count(std::span<const Subproblem>(&s, 1), std::span<Tally>(&a, 1));
    search.count(std::span<const Subproblem>(&s, 1), std::span<Tally>(&b, 1));
    EXPECT_EQ(a.solutions, b.solutions);
    solutions += a.solutions;
  }
  EXPECT_GT(solutions, 0u);
}

// The plan of the largest boards is made at once, and its ranks unrank into row splits.
TEST(Frontier, LargestPlansUnrankIntoRowSplits) {
  for (int n : {27, 28, 32}) {
    const Plan plan = plan_rowsplit(n, false);
    EXPECT_LE(plan.size(), kMaxRowSplitTasks) << n;
    for (std::uint64_t r : {std::uint64_t{0}, plan.ranks / 2, plan.ranks - 1}) {
      const RowSplitKey key = rowsplit_key(n, r);
      const Subproblem s = rowsplit_subproblem(n, key);
      const Mask west = (Mask{1} << n / 2) - 1, middle = n % 2 ? Mask{1} << n / 2 : 0;
      int west_rows = 0, middle_rows = 0;
      for (int i = 0; i < n; ++i) {
        const Mask free = open_row_squares(s, i);
        EXPECT_NE(free, 0u) << n << " " << r;
        EXPECT_TRUE((free & west) == 0 || (free & ~west) == 0) << n << " " << r;
        west_rows += (free & west) != 0;
        middle_rows += (free & middle) != 0;
      }
      EXPECT_EQ(west_rows, n / 2) << n << " " << r;
      EXPECT_EQ(middle_rows, std::popcount(key.middle_rows)) << n << " " << r;
    }
  }
}

}  // namespace
}  // namespace nq
