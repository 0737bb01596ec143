// The join on the frontier boards: sampled subproblems of the lazy row-split plan, counted by the
// join and by the independent backtracking search, must agree. At n = 24, whose bottom parts pass
// kJoinMaxParts (kernels/src/join_limits.hpp) and whose halves come out in several chunks of the
// general path's size (kJoinMaxLeaves; a count's chunks, kJoinChunk, hold them whole from n = 25
// down); the search takes seconds to minutes a subproblem there, so the cheapest ones.
// (`nqcount estimate --n N --check K` does the same from the command line, up to n = 28.)
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <vector>

#include "engine/count/plan.hpp"
#include "engine/count/src/cost.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"
#include "kernels/src/join_limits.hpp"
#include "tests/support/testing.hpp"

namespace nq {
namespace {

// Unranked representatives drawn at random (seeded) from the whole plan.
std::vector<Subproblem> sample(int n, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, detail::row_splits(n) - 1);
  std::vector<Subproblem> out;
  while (static_cast<int>(out.size()) < count)
    if (const detail::RowSplitKey key = detail::rowsplit_key(n, pick(rng)); key.weight != 0)
      out.push_back(detail::rowsplit_subproblem(n, key));
  return out;
}

// Of 256 drawn subproblems, the one the cost model calls cheapest, so that the backtracking
// search keeps the test to seconds (6 s here); and, under small chunk limits, the largest of
// 64 counted whole and sampled in every chunk pair.
TEST(SlowFrontier, SampledN24SubproblemsJoinMatchesBacktracking) {
  const int n = 24;
  std::vector<Subproblem> subs = sample(n, 256, 24);
  auto cost = [&](const Subproblem& s) {
    return detail::estimate_join_cost(s, detail::cost_probe_rows(n));
  };
  std::sort(subs.begin(), subs.end(),
            [&](const Subproblem& a, const Subproblem& b) { return cost(a) < cost(b); });
  const Kernel* join = find_kernel("join");
  const Kernel& search = best_kernel();
  ASSERT_NE(search.name, "join");
  Tally a, b;
  join->count(std::span<const Subproblem>(&subs.front(), 1), std::span<Tally>(&a, 1));
  search.count(std::span<const Subproblem>(&subs.front(), 1), std::span<Tally>(&b, 1));
  EXPECT_EQ(a.solutions, b.solutions);
  EXPECT_GT(a.solutions, 0u);
  // The largest of the first 64: several chunks a half, counted whole (the run's way), by the
  // join's check (other chunk cuts), and through every chunk pair (the estimator's way).
  const Subproblem& big = *std::max_element(
      subs.begin(), subs.begin() + 64,
      [&](const Subproblem& x, const Subproblem& y) { return cost(x) < cost(y); });
  // Chunks of kJoinMaxLeaves, so that this board's halves take several.
  test_support::set_join_limits(detail::kJoinMaxLeaves, 0);
  Tally whole, checked;
  join->count(std::span<const Subproblem>(&big, 1), std::span<Tally>(&whole, 1));
  join_check_kernel().count(std::span<const Subproblem>(&big, 1), std::span<Tally>(&checked, 1));
  EXPECT_EQ(whole.solutions, checked.solutions);
  const JoinSample all = sample_join(big, 1u << 20, 1, [] { return 0.0; });
  EXPECT_GT(all.east_chunks * all.west_chunks, 1u) << "a subproblem of several chunks";
  EXPECT_EQ(all.solutions, whole.solutions);
  test_support::set_join_limits(0, 0);
}

// The plan of the largest boards is made at once, and its ranks unrank into row splits.
TEST(Frontier, LargestPlansUnrankIntoRowSplits) {
  for (int n : {27, 28, 32}) {
    const Plan plan = plan_rowsplit(n, false);
    EXPECT_LE(plan.size(), kMaxRowSplitTasks) << n;
    for (std::uint64_t r : {std::uint64_t{0}, plan.splits / 2, plan.splits - 1}) {
      const detail::RowSplitKey key = detail::rowsplit_key(n, r);
      const Subproblem s = detail::rowsplit_subproblem(n, key);
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
