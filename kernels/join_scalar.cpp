// The join kernel (join.hpp) for the baseline ISA.
#define NQ_KERNEL_NAMESPACE join_scalar
#include "join.hpp"
#include "kernels.hpp"

namespace nq {

void count_join_scalar(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = join_scalar::count_join(in[i], &count_one_scalar);
}

}  // namespace nq
