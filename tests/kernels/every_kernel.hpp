// The table's kernels, for the suites that run once per kernel (ctest label `kernel`), and the
// fixture of such a suite: each kernel this CPU supports runs as its own test case; a kernel the
// CPU lacks is skipped, and the skip says why.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/kernels.hpp"

namespace nq::test {

// The table's kernels; with `any_subproblem`, those that count any subproblem (all but the
// reference kernel, which counts only the classic plan's: no fixed queens, nothing blocked).
inline std::vector<std::string> kernel_names(bool any_subproblem = false) {
  std::vector<std::string> names;
  for (const Kernel& k : all_kernels())
    if (!any_subproblem || k.plan != PlanKind::kClassic) names.emplace_back(k.name);
  return names;
}

// Whether the kernel's Tally::nodes are search-tree nodes, equal to the scalar kernel's for every
// subproblem: those of the backtracking kernels, which count the canonical plan. The join's are
// the queens it placed on half-boards, the reference kernel's those of its own whole-board search.
inline bool counts_search_nodes(const Kernel& k) {
  return k.plan == PlanKind::kCanonical;
}

class EveryKernelTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    kernel_ = find_kernel(GetParam());
    ASSERT_NE(kernel_, nullptr);
    if (!kernel_->supported())
      GTEST_SKIP() << "this CPU cannot run kernel '" << GetParam() << "' (it needs "
                   << kernel_->needs << ")";
  }

  const Kernel* kernel_ = nullptr;
};

}  // namespace nq::test
