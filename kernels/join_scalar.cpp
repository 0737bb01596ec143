// The join kernel (kernels/join/) for the baseline ISA.
#define NQ_KERNEL_NAMESPACE join_scalar
#include "kernels/isa.hpp"
#include "kernels/isa_targets.hpp"
#include "kernels/join/join.hpp"
#include "kernels/kernels.hpp"

namespace nq {
namespace {

void count_join_scalar(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = join_scalar::count_join(in[i], &count_one_scalar);
}

void prepare_join_scalar(int n) {
  join_scalar::join_detail::thread_scratch().prepare(n);
}

void set_join_watch_scalar(const JoinWatch& watch) {
  join_scalar::join_detail::thread_scratch().watch = watch;
  join_scalar::join_detail::check_scratch().watch = watch;  // the cross-check's (join-check)
}

JoinSample sample_join_scalar(const Subproblem& s, std::uint64_t pieces, std::uint64_t seed,
                              double (*clock)()) {
  return join_scalar::sample_join(s, pieces, seed, clock);
}

}  // namespace

const detail::JoinOps& detail::join_ops_scalar() {
  static constexpr JoinOps ops{"scalar",
                               &kBaselineTarget,
                               &count_join_scalar,
                               &prepare_join_scalar,
                               &set_join_watch_scalar,
                               &sample_join_scalar};
  return ops;
}

void detail::count_join_check(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = join_scalar::count_join(in[i], &count_one_scalar,
                                     join_scalar::join_detail::check_scratch());
}

}  // namespace nq
