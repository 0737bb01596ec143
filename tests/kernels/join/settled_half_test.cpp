// A settled half's chunks, its top placements' batches and its bottom parts moved down a row
// (kernels/src/join/settled_half.hpp, parts.hpp), made to happen on small boards by tiny limits.
#include <gtest/gtest.h>

#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"
#include "kernels/src/isa.hpp"
#include "tests/support/sanitized.hpp"
#include "tests/support/testing.hpp"

namespace nq {
namespace {

// Large boards' halves come out in chunks (kJoinMaxLeaves placements), their top placements in
// batches (at most a chunk's count), and their bottom parts move down a row past kJoinMaxParts;
// tiny limits make small boards do all three, often: both builds, against the search and
// against the default limits (same solutions and nodes).
TEST(JoinKernel, ChunkedHalvesAndMovedBottomsCountTheSame) {
  struct Limits {
    std::size_t chunk, parts;
  };
  std::uint64_t solutions = 0;
  // n = 13 takes most of the time; under a sanitizer the boards to 12 do all three too.
  for (int n = 9; n <= test_support::sized(13, 12); ++n) {
    std::vector<Subproblem> subs;
    std::vector<std::uint8_t> weights;
    detail::rowsplit_all(n, subs, weights);
    std::vector<Tally> plain(subs.size());
    test_support::set_join_limits(0, 0);
    detail::join_ops_scalar().count(subs, plain);
    std::vector<std::uint64_t> searched(subs.size());
    for (std::size_t i = 0; i < subs.size(); ++i) searched[i] = count_one_scalar(subs[i]).solutions;
    for (const Limits limits : {Limits{1, 1}, Limits{16, 4}, Limits{64, 16}, Limits{200, 1000}}) {
      test_support::set_join_limits(limits.chunk, limits.parts);
      const std::string what = "n=" + std::to_string(n) + " chunk " + std::to_string(limits.chunk) +
                               " parts " + std::to_string(limits.parts);
      std::vector<Tally> got(subs.size());
      detail::join_ops_scalar().count(subs, got);
      for (std::size_t i = 0; i < subs.size(); ++i) {
        ASSERT_EQ(got[i].solutions, plain[i].solutions) << what << " subproblem " << i;
        ASSERT_EQ(got[i].solutions, searched[i]) << what;
      }
      for (const test_support::JoinBuild* build : test_support::join_vector_builds()) {
        build->ops.count(subs, got);
        for (std::size_t i = 0; i < subs.size(); ++i)
          ASSERT_EQ(got[i].solutions, plain[i].solutions)
              << what << " " << build->ops.isa << ", subproblem " << i;
      }
      // Bottom parts only move down when they are too large for the limit: with a large one
      // every node count stays the same.
      if (limits.parts >= 1000) {
        for (std::size_t i = 0; i < subs.size(); ++i)
          ASSERT_EQ(got[i].nodes, plain[i].nodes) << what << " subproblem " << i;
      }
    }
    for (const Tally& t : plain) solutions += t.solutions;
  }
  test_support::set_join_limits(0, 0);
  EXPECT_GT(solutions, 0u);
}

}  // namespace
}  // namespace nq
