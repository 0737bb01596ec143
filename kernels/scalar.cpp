// The scalar kernel: the generic search compiled for the baseline ISA.
#define NQ_KERNEL_NAMESPACE scalar
#include "kernels/isa.hpp"
#include "kernels/kernels.hpp"
#include "kernels/search.hpp"

namespace nq {

Tally count_one_scalar(const Subproblem& s) {
  return scalar::count_completions(s);
}

namespace {
bool always() {
  return true;
}
void count_scalar(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = scalar::count_completions(in[i]);
}
}  // namespace

const detail::SearchOps& detail::scalar_search() {
  static constexpr SearchOps ops{"scalar", &always, &count_scalar};
  return ops;
}

}  // namespace nq
