// nqcount-mpi's dealer (engine/count/dealer.hpp), without MPI: every subproblem dealt once,
// largest first, the sums exact; cross-checks dealt to another rank, a mismatch reported.
#include "engine/count/dealer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "engine/count/count.hpp"

namespace nq {
namespace {

// A canonical plan of `tasks` subproblems of weight 2, with costs 1..tasks.
struct Fixture {
  Plan plan;
  std::vector<std::uint64_t> todo, costs;
  Monitor progress;
  explicit Fixture(std::size_t tasks) {
    plan.n = 12;
    plan.subproblems.resize(tasks);
    plan.weights.assign(tasks, 2);
    for (std::size_t i = 0; i < tasks; ++i) {
      todo.push_back(i);
      costs.push_back(i + 1);
    }
  }
};

TEST(Dealer, DealsEverySubproblemOnceLargestFirstAndSumsWhatComesBack) {
  Fixture f(100);
  Dealer dealer(f.plan, f.todo, f.costs, nullptr, f.progress, {2, 3}, 0.0, 1);
  std::set<std::uint64_t> seen;
  std::uint64_t last_cost = ~std::uint64_t{0};
  int rank = 0;
  for (DealtBatch b = dealer.take(rank); !b.indices.empty(); b = dealer.take(rank)) {
    EXPECT_FALSE(b.check);
    std::vector<FinishedSubproblem> done;
    for (std::uint64_t i : b.indices) {
      EXPECT_TRUE(seen.insert(i).second) << i;
      EXPECT_LE(f.costs[i], last_cost);  // largest estimated cost first
      last_cost = f.costs[i];
      done.push_back({i, {i + 1, 10}});  // solutions i + 1, 10 nodes
    }
    dealer.deliver(rank, done, false);
    rank = 1 - rank;
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_FALSE(dealer.may_deal_more());
  const Partial sum = dealer.sum();
  EXPECT_EQ(sum.subproblems, 100u);
  EXPECT_EQ(sum.weighted, u128{2 * 5050});  // weight 2 times 1 + ... + 100
  EXPECT_EQ(sum.nodes, u128{1000});
  const auto by_rank = dealer.by_rank();
  EXPECT_EQ(by_rank[0] + by_rank[1], 100u);
  EXPECT_EQ(f.progress.subproblems_done.load(), 100u);
}

TEST(Dealer, CrossChecksGoToAnotherRankAndAMismatchIsReported) {
  Fixture f(8);
  Dealer dealer(f.plan, f.todo, f.costs, nullptr, f.progress, {1, 1}, 1.0, 7);
  // Rank 0 counts everything first; every subproblem is then waiting for its check.
  for (DealtBatch b = dealer.take(0); !b.indices.empty() && !b.check; b = dealer.take(0)) {
    std::vector<FinishedSubproblem> done;
    for (std::uint64_t i : b.indices) done.push_back({i, {i, 1}});
    dealer.deliver(0, done, false);
  }
  EXPECT_EQ(dealer.sum().subproblems, 0u);  // nothing settles before its check
  EXPECT_TRUE(dealer.may_deal_more());
  const DealtBatch check = dealer.take(1);
  ASSERT_TRUE(check.check);
  ASSERT_FALSE(check.indices.empty());
  std::vector<FinishedSubproblem> again;
  for (std::uint64_t i : check.indices)
    again.push_back({i, {i == check.indices[0] ? i + 1 : i, 1}});
  dealer.deliver(1, again, true);
  EXPECT_NE(
      dealer.failure().find("cross-check failed: subproblem " + std::to_string(check.indices[0])),
      std::string::npos)
      << dealer.failure();
  EXPECT_EQ(dealer.checked(), check.indices.size() - 1);
  EXPECT_EQ(dealer.checked_elsewhere(), check.indices.size() - 1);
}

// A batch limit caps every batch the rule deals (here one task a batch: the measurement of the
// dealing, perf/mpi_throughput.cpp).
TEST(Dealer, ABatchLimitCapsEveryBatch) {
  Fixture f(5);
  Dealer dealer(f.plan, f.todo, f.costs, nullptr, f.progress, {4}, 0.0, 1, 1);
  for (DealtBatch b = dealer.take(0); !b.indices.empty(); b = dealer.take(0)) {
    EXPECT_EQ(b.indices.size(), 1u);
    dealer.deliver(0, {{b.indices[0], {1, 1}}}, false);
  }
  EXPECT_EQ(dealer.sum().subproblems, 5u);
  EXPECT_EQ(dealer.checked(), 0u);
}

}  // namespace
}  // namespace nq
