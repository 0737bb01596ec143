// Dispatch: the kernel table's names, plans and instruction sets, "auto", a forced kernel is the
// one that runs, and each build's run-time check covers what it is compiled for.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/count/count.hpp"
#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "kernels/src/isa_targets.hpp"
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
  // join's VBMI and GFNI too; else in AVX2 where the CPU has it (and BMI2); else in the baseline.
  const std::string_view want = test_support::join_avx512() ? "avx512"
                                : test_support::join_avx2() ? "avx2"
                                                            : "scalar";
  EXPECT_EQ(find_kernel("join")->isa(), want);
  EXPECT_EQ(plan_kind_name(PlanKind::kRowSplit), "rowsplit");
}

class DispatchTest : public test::EveryKernelTest {};

// A forced kernel is the one that runs: the count names it and the instruction set its record
// runs in on this CPU, counts the plan that kernel counts, and finds the nodes its own search
// finds (the scalar search's for the backtracking kernels, others for the join and the
// reference kernel).
TEST_P(DispatchTest, ForcedKernelIsTheOneThatRan) {
  CountConfig c{.n = 12, .threads = 2, .kernel = "scalar"};
  const auto scalar = count(c);
  c.kernel = GetParam();
  const auto r = count(c);
  ASSERT_TRUE(scalar.ok() && r.ok());
  EXPECT_EQ(r->kernel, GetParam());
  EXPECT_EQ(r->isa, kernel_->isa());
  EXPECT_EQ(r->subproblems_total == scalar->subproblems_total,
            kernel_->plan == PlanKind::kCanonical);
  EXPECT_EQ(r->nodes == scalar->nodes, test::counts_search_nodes(*kernel_));
}

// ---- instruction-set targets -------------------------------------------------------------

// The targets as the build recorded them (kernels/CMakeLists.txt, NQ_ISA_TARGETS): each its name
// and the features its sources' target region is compiled for.
struct RecordedTarget {
  std::string name;
  std::string features;  // "avx2,bmi,bmi2,popcnt"
};
std::vector<RecordedTarget> recorded_targets() {
  std::vector<RecordedTarget> out;
  std::istringstream in(NQ_ISA_TARGETS);
  for (std::string word; in >> word;) {
    const std::size_t colon = word.find(':');
    out.push_back({word.substr(0, colon), word.substr(colon + 1)});
  }
  return out;
}
std::vector<std::string> split_features(const std::string& list) {
  std::vector<std::string> out;
  std::istringstream in(list);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

// Every build the dispatcher chooses among, and the target each is compiled for.
std::vector<std::pair<std::string, const detail::IsaTarget*>> builds() {
  return {{"the avx512 search", detail::avx512_search().target},
          {"the avx2 search", detail::avx2_search().target},
          {"the scalar search", detail::scalar_search().target},
          {"the join's avx512 build", detail::join_ops_avx512().target},
          {"the join's avx2 build", detail::join_ops_avx2().target},
          {"the join's baseline build", detail::join_ops_scalar().target}};
}

// A CPU with every feature but one.
detail::CpuFeature g_missing;
bool lacks_only_the_missing_one(detail::CpuFeature f) {
  return f != g_missing;
}
bool has_every_feature(detail::CpuFeature) {
  return true;
}

TEST(IsaTargets, EachBuildsRunTimeCheckCoversEveryFeatureItIsCompiledFor) {
  const std::vector<RecordedTarget> records = recorded_targets();
  ASSERT_GE(records.size(), 3u) << NQ_ISA_TARGETS;
  std::vector<std::string> used;
  for (const auto& [build, build_target] : builds()) {
    const detail::IsaTarget* target = build_target;  // a variable the lambdas below can capture
    ASSERT_NE(target, nullptr) << build;
    if (target->compiled_for.empty()) {  // the baseline: compiled for nothing more
      EXPECT_TRUE(target->features().empty()) << build;
      EXPECT_TRUE(detail::runs_here(*target)) << build;
      continue;
    }
    const auto record = std::find_if(records.begin(), records.end(), [&](const RecordedTarget& r) {
      return r.name == target->name;
    });
    ASSERT_NE(record, records.end()) << build << ": no record named " << target->name;
    used.push_back(record->name);
    EXPECT_EQ(target->compiled_for, record->features) << build;
    EXPECT_TRUE(target->runs_on(&has_every_feature)) << build;
    for (const std::string& feature : split_features(record->features)) {
      const auto checked = std::find_if(
          target->features().begin(), target->features().end(),
          [&](detail::CpuFeature f) { return detail::cpu_feature_name(f).attribute == feature; });
      ASSERT_NE(checked, target->features().end())
          << build << " is compiled for " << feature << " but does not check it";
      g_missing = *checked;
      EXPECT_FALSE(target->runs_on(&lacks_only_the_missing_one))
          << build << " would run on a CPU without " << feature;
    }
  }
  for (const RecordedTarget& r : records)
    EXPECT_NE(std::find(used.begin(), used.end(), r.name), used.end())
        << "no build is compiled for the record " << r.name;
}

TEST(IsaTargets, NeedsTextNamesEveryFeatureOnce) {
  static_assert(detail::make_isa_target("t", "avx2,bmi,bmi2,popcnt").needs() ==
                "AVX2, BMI, BMI2 and POPCNT");
  static_assert(detail::make_isa_target("t", "avx512f,avx512vl,avx512bw").needs() ==
                "AVX-512 F/VL/BW");
  static_assert(detail::make_isa_target("t", "avx512f,avx512vbmi,gfni,lzcnt").needs() ==
                "AVX-512 F/VBMI, GFNI and LZCNT");
  static_assert(detail::make_isa_target("t", "").needs() == "nothing");
  EXPECT_EQ(find_kernel("avx2")->needs, detail::avx2_search().target->needs());
  EXPECT_EQ(find_kernel("avx512")->needs, detail::avx512_search().target->needs());
  EXPECT_EQ(find_kernel("scalar")->needs, "nothing");
}

// The C library's view of the CPU (cpu_has) against the compiler's, for the features that both
// name (clang's __builtin_cpu_supports does not know lzcnt).
TEST(IsaTargets, TheCLibrarysFeaturesAreTheCompilers) {
#define NQ_EXPECT_SAME(e, name) \
  EXPECT_EQ(detail::cpu_has(detail::CpuFeature::e), __builtin_cpu_supports(name) != 0) << name;
  NQ_EXPECT_SAME(kPopcnt, "popcnt")
  NQ_EXPECT_SAME(kBmi, "bmi")
  NQ_EXPECT_SAME(kBmi2, "bmi2")
  NQ_EXPECT_SAME(kAvx2, "avx2")
  NQ_EXPECT_SAME(kGfni, "gfni")
  NQ_EXPECT_SAME(kAvx512f, "avx512f")
  NQ_EXPECT_SAME(kAvx512vl, "avx512vl")
  NQ_EXPECT_SAME(kAvx512bw, "avx512bw")
  NQ_EXPECT_SAME(kAvx512dq, "avx512dq")
  NQ_EXPECT_SAME(kAvx512vpopcntdq, "avx512vpopcntdq")
  NQ_EXPECT_SAME(kAvx512vbmi, "avx512vbmi")
#undef NQ_EXPECT_SAME
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, DispatchTest, ::testing::ValuesIn(test::kernel_names()),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace nq
