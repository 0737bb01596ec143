// The join kernel (join.hpp) for the baseline ISA.
#define NQ_KERNEL_NAMESPACE join_scalar
#include "kernels/join.hpp"
#include "kernels/kernels.hpp"

namespace nq {

void count_join_scalar(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = join_scalar::count_join(in[i], &count_one_scalar);
}

void prepare_join_scalar(int n) {
  join_scalar::join_detail::thread_scratch().prepare(n);
}

std::uint64_t count_disjoint_pairs_scalar(std::span<const std::uint64_t> a,
                                          std::span<const std::uint64_t> b, int bits) {
  join_scalar::join_detail::SieveScratch scratch;
  return join_scalar::join_detail::count_disjoint(a.data(), a.size(), b.data(), b.size(), bits,
                                                  scratch);
}

}  // namespace nq
