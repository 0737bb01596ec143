// The scalar kernel: the generic search compiled for the baseline ISA.
#define NQ_KERNEL_NAMESPACE scalar
#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "kernels/src/isa_targets.hpp"
#include "kernels/src/search.hpp"

namespace nq {

Tally count_one_scalar(const Subproblem& s) {
  return scalar::count_completions(s);
}

namespace scalar {
// The scalar search over a batch, one subproblem at a time.
void count_each(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = count_completions(in[i]);
}
}  // namespace scalar

const detail::SearchOps& detail::scalar_search() {
  static constexpr SearchOps ops{"scalar", &kBaselineTarget, &scalar::count_each};
  return ops;
}

}  // namespace nq
