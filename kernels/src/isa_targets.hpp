// The instruction-set targets the kernels are compiled for, and the CPU features they name.
//
// A target is a record of kernels/CMakeLists.txt: a name and its CPU features, each written once,
// as a target attribute spells them. The build passes each record as the definition
// NQ_ISA_<name>="feature,feature,..."; from it come the target region its sources are compiled
// in (isa_begin.hpp), the run-time check (IsaTarget::runs_on, cpu_has) and the "needs" text of
// error messages (IsaTarget::needs). A feature the table below does not know stops the build.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace nq::detail {

// Every CPU feature a target may name: X(enumerator, as a target attribute spells it, as
// glibc's <sys/platform/x86.h> names it, its family in the "needs" text, its name there).
#define NQ_CPU_FEATURES(X)                                                         \
  X(kPopcnt, "popcnt", POPCNT, "", "POPCNT")                                       \
  X(kLzcnt, "lzcnt", LZCNT, "", "LZCNT")                                           \
  X(kBmi, "bmi", BMI1, "", "BMI")                                                  \
  X(kBmi2, "bmi2", BMI2, "", "BMI2")                                               \
  X(kAvx2, "avx2", AVX2, "", "AVX2")                                               \
  X(kGfni, "gfni", GFNI, "", "GFNI")                                               \
  X(kAvx512f, "avx512f", AVX512F, "AVX-512", "F")                                  \
  X(kAvx512vl, "avx512vl", AVX512VL, "AVX-512", "VL")                              \
  X(kAvx512bw, "avx512bw", AVX512BW, "AVX-512", "BW")                              \
  X(kAvx512dq, "avx512dq", AVX512DQ, "AVX-512", "DQ")                              \
  X(kAvx512vpopcntdq, "avx512vpopcntdq", AVX512_VPOPCNTDQ, "AVX-512", "VPOPCNTDQ") \
  X(kAvx512vbmi, "avx512vbmi", AVX512_VBMI, "AVX-512", "VBMI")

#define NQ_CPU_FEATURE_ENUMERATOR(e, attribute, glibc, family, text) e,
enum class CpuFeature : std::uint8_t { NQ_CPU_FEATURES(NQ_CPU_FEATURE_ENUMERATOR) };
#undef NQ_CPU_FEATURE_ENUMERATOR

struct CpuFeatureName {
  CpuFeature feature;
  std::string_view attribute;  // "avx512f"
  std::string_view family;     // "AVX-512", or empty
  std::string_view text;       // "F"
};
#define NQ_CPU_FEATURE_NAME(e, attribute, glibc, family, text) \
  CpuFeatureName{CpuFeature::e, attribute, family, text},
inline constexpr CpuFeatureName kCpuFeatureNames[] = {NQ_CPU_FEATURES(NQ_CPU_FEATURE_NAME)};
#undef NQ_CPU_FEATURE_NAME

constexpr const CpuFeatureName& cpu_feature_name(CpuFeature f) {
  return kCpuFeatureNames[static_cast<std::size_t>(f)];
}

// Whether this CPU has the feature and the OS lets programs use it (the wide registers' state
// saved on a switch), as the C library found it at start-up (kernels/src/cpu.cpp). GLIBC_TUNABLES=
// glibc.cpu.hwcaps=-AVX512F,-AVX2 takes features away from it, as from the C library's own
// string functions.
bool cpu_has(CpuFeature f);

// One target: the features its code is compiled for, in the record's order, and what a CPU
// must have to run it (all of them).
struct IsaTarget {
  static constexpr std::size_t kMaxFeatures = 16, kMaxNeeds = 120;

  std::string_view name;          // the record's: "avx2", "avx512", "avx512_join"; "scalar"
  std::string_view compiled_for;  // the record's features, as the target region names them
  std::array<CpuFeature, kMaxFeatures> feature_list{};
  std::size_t feature_count = 0;
  std::array<char, kMaxNeeds> needs_text{};
  std::size_t needs_size = 0;

  constexpr std::span<const CpuFeature> features() const {
    return std::span(feature_list).first(feature_count);
  }
  // "AVX2, BMI, BMI2 and POPCNT", "AVX-512 F/VL/BW/DQ/VPOPCNTDQ"; "nothing" for the baseline.
  constexpr std::string_view needs() const { return {needs_text.data(), needs_size}; }
  // Whether a CPU that has the features `has` says it has can run this target's code.
  constexpr bool runs_on(bool (*has)(CpuFeature)) const {
    for (const CpuFeature f : features())
      if (!has(f)) return false;
    return true;
  }
};

namespace isa_target_detail {

consteval const CpuFeatureName& named(std::string_view attribute) {
  for (const CpuFeatureName& f : kCpuFeatureNames)
    if (f.attribute == attribute) return f;
  throw "a CPU feature that kernels/src/isa_targets.hpp does not know";  // stops the build
}

consteval void append(IsaTarget& t, std::string_view text) {
  for (const char c : text) {
    if (t.needs_size == IsaTarget::kMaxNeeds) throw "the needs text is too long";
    t.needs_text[t.needs_size++] = c;
  }
}

}  // namespace isa_target_detail

// The target `name` whose record lists `features` ("avx2,bmi,bmi2,popcnt"; empty: the baseline).
// Features of one family in a row share it in the needs text: "AVX-512 F/VL".
consteval IsaTarget make_isa_target(std::string_view name, std::string_view features) {
  using namespace isa_target_detail;
  IsaTarget t{.name = name, .compiled_for = features};
  while (!features.empty()) {
    const std::size_t comma = features.find(',');
    const CpuFeatureName& f = named(features.substr(0, comma));
    for (const CpuFeature seen : t.features())
      if (seen == f.feature) throw "a target names a feature twice";
    if (t.feature_count == IsaTarget::kMaxFeatures) throw "too many features";
    t.feature_list[t.feature_count++] = f.feature;
    features = comma == std::string_view::npos ? std::string_view{} : features.substr(comma + 1);
  }
  // Groups of features: a feature starts one unless it shares the family of the one before.
  std::array<std::size_t, IsaTarget::kMaxFeatures + 1> start{};
  std::size_t groups = 0;
  for (std::size_t i = 0; i < t.feature_count; ++i) {
    const std::string_view family = cpu_feature_name(t.feature_list[i]).family;
    if (i == 0 || family.empty() || family != cpu_feature_name(t.feature_list[i - 1]).family)
      start[groups++] = i;
  }
  start[groups] = t.feature_count;
  for (std::size_t g = 0; g < groups; ++g) {
    if (g > 0) append(t, g + 1 == groups ? " and " : ", ");
    const std::string_view family = cpu_feature_name(t.feature_list[start[g]]).family;
    if (!family.empty()) {
      append(t, family);
      append(t, " ");
    }
    for (std::size_t i = start[g]; i < start[g + 1]; ++i) {
      if (i > start[g]) append(t, "/");
      append(t, cpu_feature_name(t.feature_list[i]).text);
    }
  }
  if (t.feature_count == 0) append(t, "nothing");
  return t;
}

// The baseline x86-64 build: no feature beyond it, runs everywhere.
inline constexpr IsaTarget kBaselineTarget = make_isa_target("scalar", "");

// Whether this CPU runs the target's code.
inline bool runs_here(const IsaTarget& target) {
  return target.runs_on(&cpu_has);
}

}  // namespace nq::detail
