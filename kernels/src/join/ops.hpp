// A build's table of operations (kernels/src/isa.hpp, JoinOps), written once for every build of the
// join: join_scalar.cpp, join_avx2.cpp and join_avx512.cpp include it after
// kernels/src/join/join.hpp, in their own namespace and target region, and name the build's
// instruction set and target (join_ops).
//
// Per-ISA, as the headers join.hpp lists, but included only by those sources: the tests'
// entries into the builds (tests/support/join_hooks.hpp) include join.hpp without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/src/isa.hpp"
#include "kernels/src/join/driver.hpp"
#include "kernels/src/join/sampling.hpp"

namespace nq::NQ_KERNEL_NAMESPACE {

// Each subproblem of the batch by the join (by the scalar search where the join does not suit
// it), on the calling thread's scratch.
inline void count_batch(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = count_join(in[i], &count_one_scalar);
}

inline void prepare_thread(int n) {
  join_detail::thread_scratch().prepare(n);
}

inline void set_thread_watch(const Watch& watch) {
  join_detail::thread_scratch().sieve.watch = watch;
}

constexpr detail::JoinOps join_ops(std::string_view isa, const detail::IsaTarget* target) {
  return {
      isa, target, &count_batch, &prepare_thread, &set_thread_watch, &sample_join<double (*)()>};
}

}  // namespace nq::NQ_KERNEL_NAMESPACE
