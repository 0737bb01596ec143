// The CPU features as the C library found them at start-up: CPUID, and whether the OS saves the
// wider registers' state (kernels/src/isa_targets.hpp).
// glibc's header (2.33 to 2.36 at least) spells its functions' return type _Bool, a C keyword that
// clang does not take in C++ (GCC does).
#if defined(__clang__)
#define _Bool bool
#include <sys/platform/x86.h>
#undef _Bool
#else
#include <sys/platform/x86.h>
#endif

#include "kernels/src/isa_targets.hpp"

namespace nq {

bool detail::cpu_has(CpuFeature f) {
  switch (f) {
#define NQ_CPU_FEATURE_CASE(e, attribute, glibc, family, text) \
  case CpuFeature::e:                                          \
    return CPU_FEATURE_ACTIVE(glibc);
    NQ_CPU_FEATURES(NQ_CPU_FEATURE_CASE)
#undef NQ_CPU_FEATURE_CASE
  }
  return false;
}

}  // namespace nq
