// The join kernel (kernels/src/join/) for the baseline ISA, and the join's cross-check on it.
#define NQ_KERNEL_NAMESPACE join_scalar
#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "kernels/src/isa_targets.hpp"
#include "kernels/src/join/join.hpp"
#include "kernels/src/join/ops.hpp"

namespace nq {

const detail::JoinOps& detail::join_ops_scalar() {
  static constexpr JoinOps ops = join_scalar::join_ops("scalar", &kBaselineTarget);
  return ops;
}

void detail::count_join_check(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = join_scalar::count_join(in[i], &count_one_scalar,
                                     join_scalar::join_detail::check_scratch());
}

void detail::prepare_join_check(int n) {
  join_scalar::join_detail::check_scratch().prepare(n);
}

void detail::set_join_check_watch(const Watch& watch) {
  join_scalar::join_detail::check_scratch().sieve.watch = watch;
}

}  // namespace nq
