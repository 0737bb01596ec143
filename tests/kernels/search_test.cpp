// The search kernels: the scalar one against an independent slow count, and every kernel of the
// table against the scalar one, subproblem by subproblem (solutions, and nodes for the
// backtracking kernels, whose nodes mean the same), on the front end's real prefixes and on
// random boards; the join and the reference kernel run here too, on the shapes they count. The
// per-kernel suites are parameterized by kernel name (every_kernel.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "engine/count/count.hpp"
#include "engine/count/known.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"
#include "tests/brute_force.hpp"
#include "tests/kernels/every_kernel.hpp"
#include "tests/support/sanitized.hpp"

namespace nq {
namespace {

// Random subproblems: a random frame of blocked squares (about `density`/4 of the squares)
// and a few random queens on top. `split` queens are placed to make the subproblem smaller.
std::vector<Subproblem> random_subproblems(int n, int count, int density, int split,
                                           std::mt19937& rng) {
  std::vector<Subproblem> out;
  const Mask full = n >= 32 ? ~Mask{0} : (Mask{1} << n) - 1;
  auto random_mask = [&] {
    Mask m = 0;
    for (int k = 0; k < density; ++k) m |= static_cast<Mask>(rng() & rng());
    return m & full;
  };
  while (static_cast<int>(out.size()) < count) {
    Subproblem s;
    s.full = full;
    s.rows = n;
    for (int r = 0; r < n; ++r) s.blocked[r] = random_mask();
    std::vector<Subproblem> children;
    detail::split_subproblem(s, split, children);
    if (children.empty()) continue;
    out.push_back(children[rng() % children.size()]);
  }
  return out;
}

// Independent count of a subproblem: try every column of every open row, recursively.
std::uint64_t slow_count(const Subproblem& s, int d, Mask cols, Mask ld, Mask rd) {
  if (d == s.rows) return 1;
  std::uint64_t c = 0;
  for (int col = 0; col < 32; ++col) {
    const Mask bit = Mask{1} << col;
    if (!(s.full & bit) || ((cols | ld | rd | s.blocked[d]) & bit)) continue;
    c += slow_count(s, d + 1, cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
  }
  return c;
}

TEST(Kernels, ScalarMatchesSlowCountOnRandomSubproblems) {
  std::mt19937 rng(1234);
  for (int n = 4; n <= 11; ++n)
    for (const Subproblem& s : random_subproblems(n, 200, 1, static_cast<int>(rng() % 3), rng))
      ASSERT_EQ(count_one_scalar(s).solutions, slow_count(s, 0, s.cols, s.ld, s.rd)) << "n=" << n;
}

TEST(Kernels, EmptyBoardCountsMatchBruteForce) {
  for (int n = 1; n <= 9; ++n) {
    Subproblem s;
    s.full = (Mask{1} << n) - 1;
    s.rows = n;
    const auto want = static_cast<std::uint64_t>(test::all_solutions(n).size());
    EXPECT_EQ(count_one_scalar(s).solutions, want) << n;
    EXPECT_EQ(count_classic(n, 0, 0, 0, n).solutions, want) << n;
  }
}

class KernelTest : public test::EveryKernelTest {
 protected:
  // Counts `subs` with the kernel in batches of random sizes (1..max_batch, so lanes refill,
  // run dry and steal) and demands the scalar kernel's tally for every subproblem.
  void expect_same_as_scalar(const std::vector<Subproblem>& subs, std::mt19937& rng,
                             const std::string& what, std::size_t max_batch = 80) {
    std::vector<Tally> got(subs.size());
    for (std::size_t b = 0; b < subs.size();) {
      const std::size_t m = std::min<std::size_t>(1 + rng() % max_batch, subs.size() - b);
      kernel_->count(std::span(subs).subspan(b, m), std::span(got).subspan(b, m));
      b += m;
    }
    for (std::size_t i = 0; i < subs.size(); ++i) {
      const Tally want = count_one_scalar(subs[i]);
      ASSERT_EQ(got[i].solutions, want.solutions) << what << " subproblem " << i;
      if (test::counts_search_nodes(*kernel_)) {
        ASSERT_EQ(got[i].nodes, want.nodes) << what << " subproblem " << i;
      }
    }
  }
};

// The kernels that count any subproblem (all but the reference kernel, which counts only the
// classic plan's: no fixed queens, nothing blocked).
class AnySubproblemKernelTest : public KernelTest {};

TEST_P(AnySubproblemKernelTest, SameTalliesAsScalarOnFrontEndPrefixes) {
  std::mt19937 rng(7);
  std::size_t checked = 0;
  for (int n = 8; n <= test_support::sized(15, 14); ++n)
    for (int split : {1, 3}) {
      const Plan plan = plan_canonical(n, split);
      expect_same_as_scalar(plan.subproblems, rng,
                            "n=" + std::to_string(n) + " split=" + std::to_string(split));
      checked += plan.subproblems.size();
    }
  EXPECT_GT(checked, test_support::sized(5000u, 2000u));
}

TEST_P(AnySubproblemKernelTest, SameTalliesAsScalarOnRandomBoards) {
  std::mt19937 rng(99);
  for (int n = 8; n <= 15; ++n)
    expect_same_as_scalar(random_subproblems(n, test_support::sized(1500, 500), 1, 3, rng), rng,
                          "n=" + std::to_string(n));
}

TEST_P(AnySubproblemKernelTest, SameTalliesAsScalarOnWideBoards) {
  // n > 16 takes the 64-bit lanes; dense frames keep the trees small up to n = 32, where the
  // diagonal words use all their bits; the frames get denser with n to keep the trees small.
  std::mt19937 rng(5);
  for (int n = 16; n <= 32; ++n)
    expect_same_as_scalar(
        random_subproblems(n, test_support::sized(300, 100), 3 + (n - 16) / 3, 3, rng), rng,
        "n=" + std::to_string(n));
}

TEST_P(AnySubproblemKernelTest, SameTalliesAsScalarOnTinyAndEmptyCases) {
  std::mt19937 rng(3);
  std::vector<Subproblem> subs;
  for (int n = 1; n <= 12; ++n)
    for (int rows = 0; rows <= std::min(n, 4); ++rows) {
      Subproblem s;
      s.full = (Mask{1} << n) - 1;
      s.rows = rows;
      subs.push_back(s);
      s.blocked[0] = s.full;  // no free square in the first row
      subs.push_back(s);
    }
  expect_same_as_scalar(subs, rng, "tiny");
  expect_same_as_scalar({}, rng, "empty batch");
  expect_same_as_scalar(subs, rng, "tiny one by one", 1);
}

TEST_P(KernelTest, WholeCountsMatchScalar) {
  for (int n = 4; n <= 14; ++n) {
    CountConfig c{.n = n, .threads = 2, .kernel = "scalar"};
    const auto want = count(c);
    c.kernel = GetParam();
    const auto got = count(c);
    ASSERT_TRUE(want.ok() && got.ok()) << n;
    EXPECT_TRUE(got->orbits.total == want->orbits.total) << n;
    EXPECT_TRUE(got->orbits.unique == want->orbits.unique) << n;
    if (test::counts_search_nodes(*find_kernel(GetParam()))) {
      EXPECT_TRUE(got->nodes == want->nodes) << n;
    }
    EXPECT_EQ(got->kernel, GetParam());
  }
}

// Slow: whole counts large enough to refill, flush and steal for seconds: n = 16 against the
// scalar kernel's nodes, n = 17 (the 64-bit lanes) against the table. The scalar search has one
// word width for every n, so it counts n = 16 only (its n = 17 took ten seconds of CPU).
class SlowKernelTest : public KernelTest {};

TEST_P(SlowKernelTest, WholeCountsMatchTheTableAndScalarNodes) {
  for (int n : {16, 17}) {
    if (n == 17 && GetParam() == "scalar") continue;
    CountConfig c;
    c.n = n;
    c.threads = 2;
    c.kernel = GetParam();
    const auto got = count(c);
    ASSERT_TRUE(got.ok()) << n;
    const auto known = known_value(n);
    ASSERT_TRUE(known.has_value());
    EXPECT_TRUE(got->orbits.total == known->total) << n;
    EXPECT_TRUE(got->orbits.unique == known->unique) << n;
    if (n == 16 && GetParam() != "scalar" && test::counts_search_nodes(*find_kernel(GetParam()))) {
      c.kernel = "scalar";
      const auto want = count(c);
      ASSERT_TRUE(want.ok());
      EXPECT_TRUE(got->nodes == want->nodes) << n;
    }
  }
}

TEST(Kernels, ReferenceBatchCountsEmptyBoardsLikeTheClassicKernel) {
  std::vector<Subproblem> boards;
  for (int n = 1; n <= 11; ++n) {
    Subproblem s;
    s.full = (Mask{1} << n) - 1;
    s.rows = n;
    boards.push_back(s);
  }
  std::vector<Tally> got(boards.size());
  find_kernel("reference")->count(boards, got);
  for (std::size_t i = 0; i < boards.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    EXPECT_EQ(got[i].solutions, test::all_solutions(n).size()) << n;
    EXPECT_EQ(got[i].nodes, count_classic(n, 0, 0, 0, n).nodes) << n;
  }
}

using test::kernel_names;

INSTANTIATE_TEST_SUITE_P(EveryKernel, KernelTest, ::testing::ValuesIn(kernel_names()),
                         [](const auto& p) { return p.param; });
INSTANTIATE_TEST_SUITE_P(EveryKernel, AnySubproblemKernelTest,
                         ::testing::ValuesIn(kernel_names(true)),
                         [](const auto& p) { return p.param; });
// The reference kernel's whole counts at n = 16 are checked against the canonical plan's in
// run_test; n = 17 on it would double this suite's time.
INSTANTIATE_TEST_SUITE_P(SlowEveryKernel, SlowKernelTest, ::testing::ValuesIn(kernel_names(true)),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace nq
