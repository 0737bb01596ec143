// The cross-check (CountConfig::cross_check): the selected subproblems are counted again by a
// second kernel, the same ones at any thread count, and a difference stops the run and names the
// subproblem.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <mutex>
#include <regex>
#include <span>
#include <string>
#include <vector>

#include "engine/count/count.hpp"
#include "engine/count/known.hpp"
#include "kernels/kernels.hpp"
#include "tests/support/testing.hpp"

namespace nq {
namespace {

CountResult counted(const CountConfig& config) {
  const auto r = count(config);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : CountResult{};
}

// The kernels a run of this CPU can use for the canonical plan, besides the join.
std::vector<std::string> canonical_kernels() {
  std::vector<std::string> names{"scalar"};
  if (find_kernel("avx2")->supported()) names.push_back("avx2");
  return names;
}

TEST(CrossCheck, EverySubproblemCheckedAtFractionOne) {
  for (int n = 12; n <= 14; ++n) {
    std::vector<std::string> kernels = canonical_kernels();
    kernels.push_back("join");
    for (const std::string& kernel : kernels) {
      const CountResult r = counted({.n = n, .threads = 2, .kernel = kernel, .cross_check = 1.0});
      const auto k = known_value(n);
      ASSERT_TRUE(k.has_value());
      EXPECT_TRUE(r.orbits.total == k->total) << n << " " << kernel;
      EXPECT_TRUE(r.orbits.unique == k->unique) << n << " " << kernel;
      EXPECT_EQ(r.cross_checked, r.subproblems_total) << n << " " << kernel;
      EXPECT_GT(r.cross_checked, 0u);
      EXPECT_TRUE(r.cross_check_failure.empty()) << r.cross_check_failure;
      EXPECT_NE(r.cross_check_kernel, r.kernel) << n << " " << kernel;
      EXPECT_FALSE(r.cancelled);
    }
    // The join's own check (the second kernel from n = 24), on every subproblem.
    const test_support::ForcedSecondKernel forced(&join_check_kernel());
    const CountResult r = counted({.n = n, .threads = 2, .kernel = "join", .cross_check = 1.0});
    EXPECT_EQ(r.cross_check_kernel, "join-check");
    EXPECT_EQ(r.cross_checked, r.subproblems_total) << n;
    EXPECT_TRUE(r.cross_check_failure.empty()) << r.cross_check_failure;
    EXPECT_TRUE(r.orbits.total == known_value(n)->total) << n;
  }
}

TEST(CrossCheck, SecondKernelIsAnotherCodePath) {
  EXPECT_EQ(cross_check_kernel(*find_kernel("join"), 20).name, best_kernel().name);
  EXPECT_EQ(cross_check_kernel(*find_kernel("reference"), 20).name, best_kernel().name);
  EXPECT_EQ(cross_check_kernel(*find_kernel("scalar"), 20).name, "scalar-rows");
  EXPECT_EQ(cross_check_kernel(*find_kernel("avx2"), 20).name, "scalar");
  EXPECT_EQ(cross_check_kernel(*find_kernel("avx512"), 20).name, "scalar");
  EXPECT_EQ(cross_check_kernel(ordered_kernel(RowOrder::fewest, true), 20).name, "scalar");
  // From n = 24 the search takes hours a row-split subproblem: the join checks itself.
  EXPECT_EQ(cross_check_kernel(*find_kernel("join"), 23).name, best_kernel().name);
  EXPECT_EQ(cross_check_kernel(*find_kernel("join"), 24).name, "join-check");
  EXPECT_EQ(cross_check_kernel(*find_kernel("join"), 28).name, "join-check");
  // The classic route's subproblems, counted again by a backtracking kernel.
  const CountResult r = counted({.n = 12, .threads = 2, .kernel = "reference", .cross_check = 1});
  EXPECT_TRUE(r.orbits.total == 14200u);
  EXPECT_EQ(r.cross_checked, r.subproblems_total);
}

TEST(CrossCheck, OffAtFractionZeroAndByDefaultWithinTheTable) {
  EXPECT_EQ(counted({.n = 12, .threads = 2, .cross_check = 0}).cross_checked, 0u);
  EXPECT_EQ(counted({.n = 12, .threads = 2}).cross_checked, 0u);
  EXPECT_EQ(default_cross_check(27), 0.0);
  EXPECT_EQ(default_cross_check(28), 0.001);
  EXPECT_EQ(cross_check_tag(0, 1), 0u);
  EXPECT_NE(cross_check_tag(0.001, 1), 0u);
  EXPECT_NE(cross_check_tag(0.001, 1), cross_check_tag(0.001, 2));
  EXPECT_NE(cross_check_tag(0.001, 1), cross_check_tag(0.002, 1));
}

TEST(CrossCheck, SelectionFollowsTheFractionAndSeed) {
  int hits = 0;
  for (std::uint64_t id = 0; id < 100000; ++id) hits += cross_check_selected(0.01, 1, id);
  EXPECT_GT(hits, 800);
  EXPECT_LT(hits, 1200);
  int differ = 0;
  for (std::uint64_t id = 0; id < 1000; ++id)
    differ += cross_check_selected(0.5, 1, id) != cross_check_selected(0.5, 2, id);
  EXPECT_GT(differ, 300);
}

// A second kernel that counts like the scalar one and remembers what it was given (a
// fingerprint of each subproblem), or one that counts one solution too many.
std::mutex g_seen_mu;
std::vector<std::string> g_seen;

std::string fingerprint(const Subproblem& s) {
  return std::string(reinterpret_cast<const char*>(&s), sizeof(Subproblem));
}
void recording(std::span<const Subproblem> in, std::span<Tally> out) {
  find_kernel("scalar")->count(in, out);
  std::lock_guard lock(g_seen_mu);
  for (const Subproblem& s : in) g_seen.push_back(fingerprint(s));
}
void one_too_many(std::span<const Subproblem> in, std::span<Tally> out) {
  find_kernel("scalar")->count(in, out);
  for (Tally& t : out) t.solutions += 1;
}
bool always() {
  return true;
}
const Kernel kRecording{"recording", "", "", &always, &recording};
const Kernel kWrong{"wrong", "", "", &always, &one_too_many};

std::vector<std::string> seen_by(const CountConfig& config) {
  {
    std::lock_guard lock(g_seen_mu);
    g_seen.clear();
  }
  const CountResult r = counted(config);
  std::lock_guard lock(g_seen_mu);
  std::vector<std::string> seen = g_seen;
  std::sort(seen.begin(), seen.end());
  EXPECT_GT(r.cross_checked, 0u);
  return seen;
}

TEST(CrossCheck, SameSubproblemsAtOneAndTwoThreads) {
  for (const std::string kernel : {"scalar", "join"}) {
    const test_support::ForcedSecondKernel forced(&kRecording);
    CountConfig config{.n = 13, .kernel = kernel, .cross_check = 0.05, .cross_check_seed = 7};
    config.threads = 1;
    const auto one = seen_by(config);
    config.threads = 2;
    const auto two = seen_by(config);
    EXPECT_EQ(one, two) << kernel;
    config.cross_check_seed = 8;  // another seed, another choice
    EXPECT_NE(seen_by(config), one) << kernel;
  }
  // On the canonical plan, exactly the subproblems cross_check_selected() names.
  CountConfig config{.n = 13, .threads = 2, .kernel = "scalar", .cross_check = 0.05};
  config.cross_check_seed = 7;
  const test_support::ForcedSecondKernel forced(&kRecording);
  const auto plan = make_plan(config);
  ASSERT_TRUE(plan.ok());
  std::vector<std::string> expected;
  for (std::uint64_t i = 0; i < plan->size(); ++i)
    if (cross_check_selected(0.05, 7, i)) expected.push_back(fingerprint(plan->subproblems[i]));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(seen_by(config), expected);
}

TEST(CrossCheck, DifferenceStopsTheRunAndNamesTheSubproblem) {
  std::vector<std::string> kernels = canonical_kernels();
  kernels.push_back("join");
  for (const std::string& kernel : kernels) {
    const CountConfig config{
        .n = 12, .threads = 2, .kernel = kernel, .cross_check = 0.5, .cross_check_seed = 3};
    const test_support::ForcedSecondKernel forced(&kWrong);
    const auto r = count(config);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->cancelled);
    EXPECT_LT(r->subproblems, r->subproblems_total);
    const std::regex line(kernel == "join"
                              ? "cross-check failed: subproblem ([0-9]+) \\(split [0-9]+ of the "
                                "row-split plan\\): join counted ([0-9]+), wrong counted ([0-9]+)"
                              : "cross-check failed: subproblem ([0-9]+): " + kernel +
                                    " counted ([0-9]+), wrong counted ([0-9]+)");
    std::smatch m;
    ASSERT_TRUE(std::regex_match(r->cross_check_failure, m, line)) << r->cross_check_failure;
    EXPECT_TRUE(cross_check_selected(0.5, 3, std::stoull(m[1].str()))) << m[1];
    EXPECT_EQ(std::stoull(m[3].str()), std::stoull(m[2].str()) + 1);
    // count_selected (an MPI rank's call) says the same.
    const auto plan = make_plan(config);
    ASSERT_TRUE(plan.ok());
    std::vector<std::uint64_t> all(plan->size());
    for (std::uint64_t i = 0; i < all.size(); ++i) all[i] = i;
    const auto part = count_selected(config, *plan, all);
    ASSERT_TRUE(part.ok());
    EXPECT_TRUE(std::regex_match(part->cross_check_failure, line)) << part->cross_check_failure;
  }
}

TEST(CrossCheck, FractionOutsideZeroToOneIsRefused) {
  for (const double f : {-0.5, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    const auto r = count({.n = 12, .threads = 1, .cross_check = f});
    ASSERT_FALSE(r.ok()) << f;
    EXPECT_NE(r.error().message.find("cross-check fraction"), std::string::npos);
  }
}

}  // namespace
}  // namespace nq
