// The join kernel against the search (kernels/src/join/driver.hpp, count_join): on the row-split
// plan, where both halves are settled, in both builds; on halves large enough for their top part
// to take half their rows; and on the general path, subproblems whose rows may take either half.
#include <gtest/gtest.h>

#include <random>

#include "engine/count/plan.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "tests/support/testing.hpp"

namespace nq {
namespace {

// The join's baseline-ISA build (what machines without AVX-512 run; the dispatcher picks the
// AVX-512 one here) against the scalar search, on the row-split plan and on front-end prefixes.
TEST(JoinBuilds, BaselineBuildMatchesTheSearch) {
  std::size_t checked = 0;
  for (int n = 8; n <= 14; ++n)
    for (bool rowsplit : {true, false}) {
      std::vector<Subproblem> subs = plan_canonical(n, 2).subproblems;
      std::vector<std::uint8_t> weights;
      if (rowsplit) detail::rowsplit_all(n, subs, weights);
      std::vector<Tally> got(subs.size());
      detail::join_ops_scalar().count(subs, got);
      for (std::size_t i = 0; i < subs.size(); ++i)
        ASSERT_EQ(got[i].solutions, count_one_scalar(subs[i]).solutions)
            << "n=" << n << " subproblem " << i;
      checked += subs.size();
    }
  EXPECT_GT(checked, 4000u);
}

// The join kernel and the backtracking (scalar) kernel, subproblem by subproblem, in batches.
// Adds the solutions found to `solutions`, so that a test can tell it did not compare zeros.
void expect_join_matches_search(const std::vector<Subproblem>& subs, const std::string& what,
                                std::uint64_t& solutions) {
  const Kernel* join = find_kernel("join");
  ASSERT_NE(join, nullptr);
  std::vector<Tally> got(subs.size());
  for (std::size_t b = 0; b < subs.size(); b += 16) {
    const std::size_t m = std::min<std::size_t>(16, subs.size() - b);
    join->count(std::span(subs).subspan(b, m), std::span(got).subspan(b, m));
  }
  for (std::size_t i = 0; i < subs.size(); ++i) {
    ASSERT_EQ(got[i].solutions, count_one_scalar(subs[i]).solutions) << what << " subproblem " << i;
    solutions += got[i].solutions;
  }
}

TEST(JoinKernel, MatchesSearchOnEveryRowSplitSubproblem) {
  std::size_t checked = 0;
  std::uint64_t solutions = 0;
  for (int n = 8; n <= 14; ++n) {
    std::vector<Subproblem> subs;
    std::vector<std::uint8_t> weights;
    detail::rowsplit_all(n, subs, weights);
    ASSERT_FALSE(subs.empty()) << n;
    expect_join_matches_search(subs, "n=" + std::to_string(n), solutions);
    checked += subs.size();
  }
  EXPECT_GT(checked, 1000u);
  EXPECT_GT(solutions, 0u);
}

// Halves of 11 and 12 rows (n = 22 and 23), whose top part takes half their rows: runs of
// consecutive row-split subproblems with about 3 in 8 of every row's squares blocked (the
// same squares for a row across the runs, so that bottom parts are reused as in a count), small
// enough for the search.
TEST(JoinKernel, LargeHalvesWithBlockedSquaresMatchTheSearch) {
  std::mt19937_64 rng(11);
  std::uint64_t solutions = 0;
  for (int n : {22, 23}) {
    Mask keep[kMaxN];
    for (int i = 0; i < n; ++i) keep[i] = static_cast<Mask>(rng() | (rng() & rng()));
    std::vector<Subproblem> subs;
    std::vector<std::uint8_t> weights;
    test_support::rowsplit_runs(n, 3, 6, subs, weights);
    for (Subproblem& s : subs)
      for (int i = 0; i < s.rows; ++i) {
        const Mask open = open_row_squares(s, i);
        Mask block = open & ~keep[i];
        if (block == open) block &= block - 1;  // the row keeps its lowest square
        s.blocked[i] |= block;
      }
    expect_join_matches_search(subs, "n=" + std::to_string(n), solutions);
  }
  EXPECT_GT(solutions, 0u);
}

TEST(JoinKernel, MatchesSearchOnRowSplitSubproblemsWithRandomQueensOnTop) {
  // A few queens placed on top of a row-split subproblem leave free columns that no longer
  // match its halves, so the join takes its general path (rows whose half is open).
  std::mt19937 rng(2024);
  std::uint64_t solutions = 0;
  for (int n = 8; n <= 16; ++n) {
    std::vector<Subproblem> plan;
    std::vector<std::uint8_t> weights;
    detail::rowsplit_all(n, plan, weights);
    std::vector<Subproblem> subs;
    while (subs.size() < 300) {
      const Subproblem& base = plan[rng() % plan.size()];
      std::vector<Subproblem> children;
      detail::split_subproblem(base, 1 + static_cast<int>(rng() % 4), children);
      if (!children.empty()) subs.push_back(children[rng() % children.size()]);
    }
    expect_join_matches_search(subs, "n=" + std::to_string(n), solutions);
  }
  EXPECT_GT(solutions, 0u);
}

}  // namespace
}  // namespace nq
