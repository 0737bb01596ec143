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

void set_join_limits_scalar(std::size_t chunk, std::size_t parts) {
  join_scalar::join_detail::Scratch& s = join_scalar::join_detail::thread_scratch();
  s.chunk = chunk != 0 ? chunk : detail::kJoinChunk;
  s.parts_limit = parts != 0 ? parts : detail::kJoinMaxParts;
  s.east_half.valid = s.west_half.valid = false;
}

std::uint64_t count_disjoint_pairs_scalar(std::span<const std::uint64_t> a,
                                          std::span<const std::uint64_t> b, int bits,
                                          bool /*narrow_visits: no half-entries here*/) {
  join_scalar::join_detail::SieveScratch scratch;
  return join_scalar::join_detail::count_disjoint(a.data(), a.size(), b.data(), b.size(), bits,
                                                  scratch);
}

std::uint64_t sieve_cuts_scalar(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                std::uint64_t shared, int c) {
  std::vector<std::uint64_t> scratch;
  return join_scalar::join_detail::cuts_by_pairs(a.data(), a.size(), b.data(), b.size(), shared, c,
                                                 scratch);
}

}  // namespace

const detail::JoinOps& detail::join_ops_scalar() {
  static constexpr JoinOps ops{"scalar",
                               &kBaselineTarget,
                               &count_join_scalar,
                               &prepare_join_scalar,
                               &set_join_watch_scalar,
                               &sample_join_scalar,
                               &set_join_limits_scalar,
                               &count_disjoint_pairs_scalar,
                               &sieve_cuts_scalar};
  return ops;
}

void detail::count_join_check(std::span<const Subproblem> in, std::span<Tally> out) {
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = join_scalar::count_join(in[i], &count_one_scalar,
                                     join_scalar::join_detail::check_scratch());
}

}  // namespace nq
