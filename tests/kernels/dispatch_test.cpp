// Dispatch: the kernel table's names, plans and instruction sets, "auto", and a forced kernel is
// the one that runs.
#include <gtest/gtest.h>

#include "engine/count/count.hpp"
#include "kernels/kernels.hpp"
#include "tests/kernels/every_kernel.hpp"
#include "tests/support/testing.hpp"

namespace nq {
namespace {

TEST(Kernels, DispatchKnowsEveryNameAndRejectsOthers) {
  EXPECT_EQ(find_kernel("nonsense"), nullptr);
  EXPECT_EQ(find_kernel(""), nullptr);
  for (const char* name : {"scalar", "avx2", "avx512", "join", "reference"}) {
    ASSERT_NE(find_kernel(name), nullptr) << name;
    EXPECT_EQ(find_kernel(name)->name, name);
  }
  EXPECT_EQ(find_kernel("auto"), &best_kernel());
  EXPECT_TRUE(best_kernel().supported());
  // "auto" is the first supported kernel in priority order.
  for (const Kernel& k : all_kernels()) {
    if (!k.supported()) continue;
    EXPECT_EQ(&k, &best_kernel());
    break;
  }
}

TEST(Kernels, TheTableNamesEachKernelsPlanAndInstructionSet) {
  std::size_t classic = 0, rowsplit = 0;
  for (const Kernel& k : all_kernels()) {
    ASSERT_NE(k.isa, nullptr) << k.name;
    const std::string_view isa = k.isa();
    EXPECT_TRUE(isa == "avx512" || isa == "avx2" || isa == "scalar") << k.name << ": " << isa;
    EXPECT_FALSE(k.description.empty()) << k.name;
    classic += k.plan == PlanKind::kClassic;
    rowsplit += k.plan == PlanKind::kRowSplit;
  }
  EXPECT_EQ(classic, 1u);
  EXPECT_EQ(rowsplit, 1u);
  ASSERT_NE(find_kernel("reference"), nullptr);
  EXPECT_EQ(find_kernel("reference")->plan, PlanKind::kClassic);
  EXPECT_EQ(find_kernel("join")->plan, PlanKind::kRowSplit);
  // The join's bit slices run in AVX-512 exactly where that kernel can run and the CPU has the
  // join's VBMI and GFNI too.
  EXPECT_EQ(find_kernel("join")->isa() == "avx512",
            find_kernel("avx512")->supported() && test_support::join_avx512());
  EXPECT_EQ(plan_kind_name(PlanKind::kRowSplit), "rowsplit");
}

class DispatchTest : public test::EveryKernelTest {};

TEST_P(DispatchTest, ForcedKernelIsTheOneThatRan) {
  std::vector<std::uint64_t> before;
  for (const Kernel& k : all_kernels()) before.push_back(kernel_batches(k.name));
  CountConfig c;
  c.n = 12;
  c.threads = 2;
  c.kernel = GetParam();
  const auto r = count(c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kernel, GetParam());
  for (std::size_t i = 0; i < all_kernels().size(); ++i) {
    const Kernel& k = all_kernels()[i];
    if (k.name == GetParam())
      EXPECT_GT(kernel_batches(k.name), before[i]) << k.name << " did not run";
    else
      EXPECT_EQ(kernel_batches(k.name), before[i]) << k.name << " ran instead";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, DispatchTest, ::testing::ValuesIn(test::kernel_names()),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace nq
