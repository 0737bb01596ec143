// The join's entries that only tests use (testing.hpp, JoinBuild), written once for every build:
// each build's source (join_scalar_hooks.cpp, join_avx512_hooks.cpp) includes it after
// kernels/src/join/join.hpp, in that build's namespace and target region, so that they run the
// build's own code and reach its thread's scratch (the one object its count uses: an inline
// function's thread_local). Those sources are compiled with the kernels' flags (nq_testing is a
// library, not a test program), so the join's inline functions they hold are the kernels' own.
// No #pragma once: included once per build.

namespace nq::NQ_KERNEL_NAMESPACE::test_hooks {

inline void set_limits(std::size_t chunk, std::size_t parts) {
  join_detail::Scratch& s = join_detail::thread_scratch();
  s.chunk = chunk != 0 ? chunk : detail::kJoinChunk;
  s.parts_limit = parts != 0 ? parts : detail::kJoinMaxParts;
  s.east_half.valid = s.west_half.valid = false;
}

inline std::uint64_t count_disjoint_pairs(std::span<const std::uint64_t> a,
                                          std::span<const std::uint64_t> b, int bits,
                                          bool narrow_visits) {
  join_detail::SieveScratch scratch;
  scratch.narrow_visits = narrow_visits;
  return join_detail::count_disjoint(a.data(), a.size(), b.data(), b.size(), bits, scratch);
}

inline std::uint64_t sieve_cuts(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                std::uint64_t shared, int c) {
  std::vector<std::uint64_t> scratch;
  return join_detail::cuts_by_pairs(a.data(), a.size(), b.data(), b.size(), shared, c, scratch);
}

}  // namespace nq::NQ_KERNEL_NAMESPACE::test_hooks
