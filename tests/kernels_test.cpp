// The kernels: every kernel against the scalar one, and the scalar one against brute force.
#include <gtest/gtest.h>

#include <random>

#include "brute_force.hpp"
#include "frontend.hpp"
#include "kernels.hpp"

namespace nq {
namespace {

// Random subproblems: a random frame of blocked squares and a few random queens on top.
std::vector<Subproblem> random_subproblems(int n, int count, std::mt19937& rng) {
  std::vector<Subproblem> out;
  const Mask full = (Mask{1} << n) - 1;
  while (static_cast<int>(out.size()) < count) {
    Subproblem s;
    s.full = full;
    s.rows = n;
    for (int r = 0; r < n; ++r) s.blocked[r] = static_cast<Mask>(rng() & rng() & rng()) & full;
    std::vector<Subproblem> children;
    split_subproblem(s, static_cast<int>(rng() % 3), children);
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
    for (const Subproblem& s : random_subproblems(n, 200, rng))
      ASSERT_EQ(count_one_scalar(s).solutions, slow_count(s, 0, s.cols, s.ld, s.rd)) << "n=" << n;
}

TEST(Kernels, EveryKernelMatchesScalarPerSubproblem) {
  std::mt19937 rng(99);
  for (const Kernel& k : all_kernels()) {
    if (!k.supported()) continue;
    for (int n = 8; n <= 15; ++n) {
      const auto subs = random_subproblems(n, n <= 12 ? 1000 : 200, rng);
      std::vector<Tally> got(subs.size());
      k.count(subs, got);
      for (std::size_t i = 0; i < subs.size(); ++i) {
        const Tally want = count_one_scalar(subs[i]);
        ASSERT_EQ(got[i].solutions, want.solutions) << k.name << " n=" << n << " i=" << i;
        ASSERT_EQ(got[i].nodes, want.nodes) << k.name << " n=" << n << " i=" << i;
      }
    }
  }
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

TEST(Kernels, DispatchRejectsUnknownNames) {
  EXPECT_EQ(find_kernel("nonsense"), nullptr);
  ASSERT_NE(find_kernel("scalar"), nullptr);
  EXPECT_EQ(find_kernel("auto"), &best_kernel());
}

}  // namespace
}  // namespace nq
