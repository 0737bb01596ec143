// Kernel selection: a list in priority order; the first one this CPU supports is "auto".
// The choice is made once per run by the engine, never inside a search.
#include <array>

#include "kernels.hpp"

namespace nq {
namespace {

bool always() {
  return true;
}

constexpr std::array kKernels{
    Kernel{"scalar", "portable bitboard backtracking, one subproblem at a time", &always,
           &count_scalar},
};

}  // namespace

std::span<const Kernel> all_kernels() {
  return kKernels;
}

const Kernel* find_kernel(std::string_view name) {
  if (name == "auto") return &best_kernel();
  for (const Kernel& k : kKernels)
    if (k.name == name) return &k;
  return nullptr;
}

const Kernel& best_kernel() {
  for (const Kernel& k : kKernels)
    if (k.supported()) return k;
  return kKernels.back();
}

}  // namespace nq
