// The literature's backtracking variants (kernels/src/ordered.cpp): fewest-free-row ordering and
// look-ahead must give the scalar kernel's solutions on every subproblem; top-to-bottom without
// look-ahead must visit exactly its nodes; look-ahead never visits more nodes than the same
// order without it. Then the whole count through the engine, for every variant.
#include <gtest/gtest.h>

#include <random>

#include "engine/count/count.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"

namespace nq {
namespace {

std::vector<Subproblem> random_subproblems(int n, int count, std::mt19937& rng) {
  std::vector<Subproblem> out;
  const Mask full = (Mask{1} << n) - 1;
  while (static_cast<int>(out.size()) < count) {
    Subproblem s;
    s.full = full;
    s.rows = n;
    for (int r = 0; r < n; ++r) s.blocked[r] = static_cast<Mask>(rng() & rng() & rng()) & full;
    std::vector<Subproblem> children;
    detail::split_subproblem(s, static_cast<int>(rng() % 3), children);
    if (children.empty()) continue;
    out.push_back(children[rng() % children.size()]);
  }
  return out;
}

TEST(OrderedKernel, SameSolutionsAndNodeBoundsOnRandomSubproblems) {
  std::mt19937 rng(77);
  for (int n = 4; n <= 12; ++n) {
    for (const Subproblem& s : random_subproblems(n, 40, rng)) {
      const Tally plain = count_one_scalar(s);
      const Tally rows = count_one_ordered(s, RowOrder::rows, false);
      const Tally rows_la = count_one_ordered(s, RowOrder::rows, true);
      const Tally fewest = count_one_ordered(s, RowOrder::fewest, false);
      const Tally fewest_la = count_one_ordered(s, RowOrder::fewest, true);
      EXPECT_EQ(rows.solutions, plain.solutions) << "n = " << n;
      EXPECT_EQ(rows.nodes, plain.nodes) << "n = " << n;  // the same tree, row by row
      EXPECT_EQ(rows_la.solutions, plain.solutions) << "n = " << n;
      EXPECT_EQ(fewest.solutions, plain.solutions) << "n = " << n;
      EXPECT_EQ(fewest_la.solutions, plain.solutions) << "n = " << n;
      EXPECT_LE(rows_la.nodes, rows.nodes) << "n = " << n;
      EXPECT_LE(fewest_la.nodes, fewest.nodes) << "n = " << n;
      // Every solution places one queen per open row, each a node.
      EXPECT_GE(rows_la.nodes, rows_la.solutions * static_cast<std::uint64_t>(s.rows > 0));
    }
  }
}

TEST(OrderedKernel, LookaheadPrunesSomethingOnFullBoards) {
  // A whole 10-board: look-ahead must cut nodes (dead rows appear long before the last row).
  Subproblem s;
  s.full = (Mask{1} << 10) - 1;
  s.rows = 10;
  const Tally rows = count_one_ordered(s, RowOrder::rows, false);
  const Tally rows_la = count_one_ordered(s, RowOrder::rows, true);
  const Tally fewest_la = count_one_ordered(s, RowOrder::fewest, true);
  EXPECT_EQ(rows.solutions, rows_la.solutions);
  EXPECT_EQ(rows.solutions, fewest_la.solutions);
  EXPECT_LT(rows_la.nodes, rows.nodes);
  EXPECT_LT(fewest_la.nodes, rows.nodes);
}

TEST(OrderedKernel, EngineCountsAreTheSameForEveryVariant) {
  for (int n = 4; n <= 11; ++n) {
    const CountConfig base{.n = n, .threads = 2, .kernel = "scalar"};
    const auto plain = count(base);
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    for (const bool fewest : {false, true})
      for (const bool lookahead : {false, true}) {
        CountConfig c = base;
        c.order_fewest = fewest;
        c.lookahead = lookahead;
        const auto r = count(c);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->orbits.total, plain->orbits.total) << "n = " << n;
        EXPECT_EQ(r->orbits.unique, plain->orbits.unique) << "n = " << n;
        if (!fewest && !lookahead) {
          EXPECT_EQ(r->nodes, plain->nodes) << "n = " << n;
        }
        if (lookahead && !fewest) {
          EXPECT_LE(r->nodes, plain->nodes) << "n = " << n;
        }
      }
  }
}

TEST(OrderedKernel, RefusedOnKernelsThatDoNotTrackEveryRow) {
  for (const char* kernel : {"join", "avx2", "avx512", "reference"}) {
    CountConfig c;
    c.n = 8;
    c.threads = 1;
    c.kernel = kernel;
    c.lookahead = true;
    EXPECT_FALSE(count(c).ok()) << kernel;
    c.lookahead = false;
    c.order_fewest = true;
    EXPECT_FALSE(count(c).ok()) << kernel;
  }
}

}  // namespace
}  // namespace nq
