// How large a test's repeated checks are in the build it runs in. Under a sanitizer the code runs
// several times slower; a test that repeats one check over many inputs (seeds, random boards,
// board sizes past those that reach a new path) takes fewer of them there, and the Release build
// runs them all. The paths a test reaches are the same in both.
#pragma once

#include "base/sanitizers.hpp"

namespace nq::test_support {

inline constexpr bool kSanitized = NQ_ASAN || NQ_TSAN;

// `full` in the Release build, `sanitized` under a sanitizer.
template <class T>
constexpr T sized(T full, T sanitized) {
  return kSanitized ? sanitized : full;
}

}  // namespace nq::test_support
