// The bookkeeping shared by count() and nqcount-mpi's root (engine/count/orchestrate.hpp):
// resuming from a journal, the monitor's totals, and the result from the sums, exact in 128 bits.
#include "engine/count/orchestrate.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/count/journal.hpp"
#include "tests/cli_runner.hpp"

namespace nq {
namespace {

using namespace std::chrono_literals;
using test::temp_path;

TEST(Orchestration, SumsPastTwoToTheSixtyFourStayExactThroughJournalAndResume) {
  // The path a root's sums take: per-subproblem counts (u64) through the journal file, summed
  // in 128 bits with their weights when resumed, joined with what this run counted, and split
  // into orbits. Four subproblems of weight 8 with counts near 2^64 sum far past it.
  Plan plan;
  plan.n = 30;
  plan.split_rows = 3;
  plan.classes = 6;
  plan.subproblems.resize(6);
  plan.weights.assign(6, 8);
  const std::uint64_t big = ~std::uint64_t{0} - 5;
  const std::string path = temp_path("u128");
  {
    FileJournal j(path, 10ms);
    ASSERT_TRUE(j.begin(run_identity(plan)).ok());
    std::vector<FinishedSubproblem> done;
    for (std::uint64_t i = 0; i < 4; ++i) done.push_back({i, {big - i, big}});
    j.record(done);
    ASSERT_TRUE(j.close().ok());
  }
  FileJournal j(path, 10ms);
  const auto resumed = resume_run(plan, &j, 0);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message;
  EXPECT_EQ(resumed->todo, (std::vector<std::uint64_t>{4, 5}));
  u128 expected_done = 0;
  for (std::uint64_t i = 0; i < 4; ++i) expected_done += u128{8} * (big - i);
  EXPECT_EQ(resumed->done.weighted, expected_done);
  EXPECT_GT(resumed->done.weighted, u128{~std::uint64_t{0}});
  EXPECT_EQ(resumed->done.nodes, u128{4} * big);

  Partial counted;  // what this run added: the other two subproblems
  counted.weighted = u128{8} * big * 2;
  counted.nodes = u128{2} * big;
  counted.subproblems = 2;
  CountResult r;
  ASSERT_TRUE(finish_count(plan, counted, *resumed, r).ok());
  EXPECT_FALSE(r.cancelled);
  EXPECT_EQ(r.subproblems, 6u);
  EXPECT_EQ(r.subproblems_resumed, 4u);
  EXPECT_EQ(r.orbits.total, expected_done + u128{16} * big);
  EXPECT_EQ(r.orbits.u8 * 8, r.orbits.total);
  EXPECT_EQ(r.nodes, u128{6} * big);
  EXPECT_EQ(to_string(r.orbits.total), to_string(expected_done + u128{16} * big));

  Monitor m;  // the monitor's totals from the costs and what was resumed
  const std::vector<std::uint64_t> costs = {1, 2, 3, 4, 5, 6};
  start_monitor(m, plan, costs, *resumed);
  EXPECT_EQ(m.cost_total.load(), 21u);
  EXPECT_EQ(m.cost_resumed.load(), 10u);
  EXPECT_EQ(m.subproblems_done.load(), 4u);

  Partial short_of_it = counted;  // one subproblem missing: cancelled, partial total kept
  short_of_it.subproblems = 1;
  CountResult partial;
  ASSERT_TRUE(finish_count(plan, short_of_it, *resumed, partial).ok());
  EXPECT_TRUE(partial.cancelled);
}

}  // namespace
}  // namespace nq
