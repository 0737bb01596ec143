// The memory bound (engine/count/memory.hpp): every count's estimate, the join's scratch, the
// refusal above the limit, and sizes as people type and read them.
#include "engine/count/memory.hpp"

#include <gtest/gtest.h>

#include "engine/count/count.hpp"
#include "kernels/src/join_limits.hpp"
#include "tests/count/run_count.hpp"

namespace nq {
namespace {

using test::run;

TEST(Memory, EveryCountCarriesItsEstimate) {
  for (const std::string kernel : {"auto", "join", "scalar", "reference"}) {
    const CountResult r = run(12, 2, kernel);
    EXPECT_GT(r.memory_estimate, 0u) << kernel;
    EXPECT_LT(r.memory_estimate, std::uint64_t{1} << 30) << kernel;  // n = 12 is small
  }
  EXPECT_GT(run(2, 1).memory_estimate, 0u);  // the enumeration route too
}

TEST(Memory, JoinScratchGrowsWithTheBoardAndIsBounded) {
  const Kernel* join = find_kernel("join");
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(kernel_scratch_bytes(&best_kernel(), 20), 0u);
  EXPECT_EQ(kernel_scratch_bytes(nullptr, 20), 0u);
  EXPECT_EQ(kernel_scratch_bytes(find_kernel("reference"), 20), 0u);
  std::uint64_t last = 0;
  for (int n = 4; n <= kMaxN; ++n) {
    const std::uint64_t bytes = kernel_scratch_bytes(join, n);
    EXPECT_GE(bytes, last) << n;
    EXPECT_LE(bytes, detail::kJoinScratchBytes) << n;
    last = bytes;
  }
  // It levels off where the kernel's caps take over, many times above n = 18's.
  EXPECT_EQ(kernel_scratch_bytes(join, kMaxN), kernel_scratch_bytes(join, kMaxN - 1));
  EXPECT_GT(last, 5 * kernel_scratch_bytes(join, 18));
}

// The join's plan is lazy: nothing of it is stored, and the runner's per-task arrays stay
// bounded by kMaxRowSplitTasks however many ranks the plan has.
TEST(Memory, RowSplitPlanIsNotMaterialised) {
  CountConfig c;
  c.kernel = "join";
  c.threads = 1;
  for (int n : {16, 24, 28, 32}) {
    const Plan plan = plan_rowsplit(n, false);
    EXPECT_TRUE(plan.subproblems.empty()) << n;
    EXPECT_LE(plan.size(), kMaxRowSplitTasks) << n;
    EXPECT_GE(plan.size() * plan.block, plan.splits) << n;
    c.n = n;
    const MemoryEstimate m = estimate_memory(plan, c, plan.size());
    EXPECT_EQ(m.plan, 0u) << n;
    EXPECT_LT(m.run, std::uint64_t{128} << 20) << n;
  }
}

TEST(Memory, EstimateGrowsWithThreadsAndThePlan) {
  CountConfig c;
  c.n = 14;
  c.kernel = "join";
  c.threads = 1;
  const auto plan = make_plan(c);
  ASSERT_TRUE(plan.ok());
  const std::uint64_t one = estimate_memory(*plan, c, plan->size()).total();
  c.threads = 8;
  const std::uint64_t eight = estimate_memory(*plan, c, plan->size()).total();
  EXPECT_GE(eight - one, 7 * kernel_scratch_bytes(find_kernel("join"), 14));
  EXPECT_LT(estimate_memory(*plan, c, 0).total(), eight);  // fewer counted: less to copy
  c.kernel = "scalar";
  c.threads = 2;
  const auto small = make_plan(CountConfig{.n = 10, .threads = 2, .kernel = "scalar"});
  const auto large = make_plan(c);
  ASSERT_TRUE(small.ok() && large.ok());
  EXPECT_LT(estimate_memory(*small, c, small->size()).total(),
            estimate_memory(*large, c, large->size()).total());
}

TEST(Memory, RefusesARunAboveTheLimitBeforeCounting) {
  CountConfig c;
  c.n = 13;
  c.threads = 2;
  c.kernel = "join";
  const auto fits = count(c);
  ASSERT_TRUE(fits.ok());
  c.memory_limit = fits->memory_estimate;  // exactly the estimate: allowed
  EXPECT_TRUE(count(c).ok());
  c.memory_limit = fits->memory_estimate - 1;
  Monitor m;
  const auto refused = count(c, &m);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("memory limit"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("--memory-limit"), std::string::npos);
  EXPECT_EQ(m.subproblems_done.load(), 0u);  // nothing was counted
  // count_selected (nqcount-mpi's ranks) checks too.
  const auto plan = make_plan(c);
  ASSERT_TRUE(plan.ok());
  const std::vector<std::uint64_t> first{0};
  c.memory_limit = std::uint64_t{1} << 20;  // below what the process itself takes
  EXPECT_FALSE(count_selected(c, *plan, first).ok());
  c.memory_limit = 0;  // the default: most of this machine's memory
  EXPECT_TRUE(count_selected(c, *plan, first).ok());
}

TEST(Memory, DefaultLimitIsMostOfTheMemoryAndReported) {
  EXPECT_GT(default_memory_limit(), std::uint64_t{64} << 20);
  const auto refused = check_memory(~std::uint64_t{0}, 0);
  ASSERT_TRUE(refused.has_value());
  EXPECT_NE(refused->message.find(format_bytes(default_memory_limit())), std::string::npos);
  EXPECT_FALSE(check_memory(1, 0).has_value());
}

TEST(Memory, SizesParseAsPeopleTypeThem) {
  const std::uint64_t kib = 1024, mib = kib << 10, gib = mib << 10;
  EXPECT_EQ(parse_byte_size("1000000"), 1000000u);
  EXPECT_EQ(parse_byte_size("512M"), 512 * mib);
  EXPECT_EQ(parse_byte_size("8G"), 8 * gib);
  EXPECT_EQ(parse_byte_size("8GB"), 8 * gib);
  EXPECT_EQ(parse_byte_size("8gib"), 8 * gib);
  EXPECT_EQ(parse_byte_size("1.5G"), 3 * gib / 2);
  EXPECT_EQ(parse_byte_size("64K"), 64 * kib);
  EXPECT_EQ(parse_byte_size("2T"), 2048 * gib);
  EXPECT_EQ(parse_byte_size("100B"), 100u);
  for (const char* bad : {"", "0", "0G", "-1", "abc", "8X", "8GG", "1.5", "1.", ".5G", " 8G", "8G ",
                          "1e9", "1,5G", "99999999999T", "+8G"})
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
}

TEST(Memory, BytesPrintAsPeopleReadThem) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(std::uint64_t{8} << 30), "8.0 GiB");
}

}  // namespace
}  // namespace nq
