// The estimator's sample of a subproblem (kernels/src/join/sampling.hpp, sample_join), and the
// watch a count polls (kernels.hpp, Watch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"
#include "tests/support/testing.hpp"

namespace nq {
namespace {

// The estimator's sample of a subproblem (sample_join): with every chunk pair drawn it is the
// count; with a few drawn at random, scaled up, it is right on average; and a count polls its
// watch after every chunk pair and stops when told to.
std::vector<Subproblem> largest_rowsplit_subproblems(int n, std::size_t count) {
  std::vector<Subproblem> subs;
  std::vector<std::uint8_t> weights;
  detail::rowsplit_all(n, subs, weights);
  std::vector<std::pair<std::uint64_t, std::size_t>> by_size;
  for (std::size_t i = 0; i < subs.size(); ++i)
    by_size.emplace_back(count_one_scalar(subs[i]).solutions, i);
  std::sort(by_size.rbegin(), by_size.rend());
  std::vector<Subproblem> out;
  for (std::size_t i = 0; i < count && i < by_size.size(); ++i)
    out.push_back(subs[by_size[i].second]);
  return out;
}

double cpu_clock() {
  return 0;  // the times are not under test here
}

TEST(JoinSampling, EveryPieceIsTheCountAndAFewAreRightOnAverage) {
  test_support::set_join_limits(16, 8);  // halves of a few hundred placements: many chunks each
  for (const Subproblem& s : largest_rowsplit_subproblems(12, 3)) {
    const std::uint64_t want = count_one_scalar(s).solutions;
    const JoinSample all = sample_join(s, 1u << 20, 1, &cpu_clock);
    ASSERT_TRUE(all.settled);
    ASSERT_GT(all.east_chunks * all.west_chunks, 8u) << "the limits should cut the halves";
    EXPECT_EQ(all.pieces, all.east_chunks * all.west_chunks);
    EXPECT_EQ(all.solutions, want);
    // Two pieces a draw, scaled by pieces / 2: the mean over many seeds is the count, within
    // four of its standard errors.
    double sum = 0, squares = 0;
    const int draws = 1000;
    for (int seed = 1; seed <= draws; ++seed) {
      const JoinSample some = sample_join(s, 2, static_cast<std::uint64_t>(seed), &cpu_clock);
      ASSERT_EQ(some.pieces, 2u);
      const double estimate = static_cast<double>(some.solutions) *
                              static_cast<double>(some.east_chunks * some.west_chunks) / 2;
      sum += estimate;
      squares += estimate * estimate;
    }
    const double mean = sum / draws;
    const double error = std::sqrt((squares / draws - mean * mean) / (draws - 1));
    EXPECT_GT(error, 0) << "the draws should differ";
    EXPECT_NEAR(mean, static_cast<double>(want), 4 * error);
  }
  test_support::set_join_limits(0, 0);
}

TEST(JoinSampling, ACountPollsItsWatchAndStopsWhenTold) {
  test_support::set_join_limits(64, 32);
  const Subproblem s = largest_rowsplit_subproblems(12, 1).front();
  const Kernel* join = find_kernel("join");
  struct Heard {
    std::uint64_t polls = 0, pairs = 0, stop_after = 0;
  } heard;
  const Watch watch{[](void* context, std::uint64_t pairs) {
                      auto& h = *static_cast<Heard*>(context);
                      h.pairs += pairs;
                      return ++h.polls == h.stop_after;
                    },
                    &heard};
  detail::set_join_watch(watch);
  Tally whole;
  join->count(std::span(&s, 1), std::span(&whole, 1));
  EXPECT_EQ(whole.solutions, count_one_scalar(s).solutions);
  const JoinSample all = sample_join(s, 1u << 20, 1, &cpu_clock);
  EXPECT_EQ(heard.polls, all.east_chunks * all.west_chunks) << "one poll per chunk pair";
  EXPECT_GT(heard.pairs, 0u);
  heard = {0, 0, 2};  // stop at the second chunk pair
  Tally stopped;
  join->count(std::span(&s, 1), std::span(&stopped, 1));
  EXPECT_EQ(heard.polls, 2u);
  EXPECT_LT(stopped.solutions, whole.solutions);
  detail::set_join_watch({});
  test_support::set_join_limits(0, 0);
}

// Where the east half is one chunk, the west comes in chunks twice as large
// (kJoinWestChunks): the count and the sample cut it alike (a poll per chunk pair the sample
// names), and both still count every pair: the polls' pairs add up to those of one chunk pair
// holding both halves whole.
TEST(JoinSampling, AnEastOfOneChunkMeetsTheWestAsTheSampleCutsIt) {
  const Kernel* join = find_kernel("join");
  struct Heard {
    std::uint64_t polls = 0, pairs = 0;
  } heard;
  const Watch watch{[](void* context, std::uint64_t pairs) {
                      auto& h = *static_cast<Heard*>(context);
                      h.pairs += pairs;
                      ++h.polls;
                      return false;
                    },
                    &heard};
  int seen = 0;
  for (const Subproblem& s : largest_rowsplit_subproblems(12, 400)) {
    test_support::set_join_limits(32, 16);  // n = 12: many an east of one chunk, a west of two
    const JoinSample all = sample_join(s, 1u << 20, 1, &cpu_clock);
    if (!all.settled || all.east_chunks != 1 || all.west_chunks < 2) continue;
    if (++seen > 8) break;
    detail::set_join_watch(watch);
    heard = {};
    Tally t;
    join->count(std::span(&s, 1), std::span(&t, 1));
    EXPECT_EQ(t.solutions, count_one_scalar(s).solutions);
    EXPECT_EQ(heard.polls, all.west_chunks);
    const std::uint64_t chunked = heard.pairs;
    test_support::set_join_limits(1u << 20, 16);  // both halves whole: one chunk pair
    heard = {};
    join->count(std::span(&s, 1), std::span(&t, 1));
    EXPECT_EQ(heard.polls, 1u);
    EXPECT_EQ(chunked, heard.pairs);
    detail::set_join_watch({});
  }
  EXPECT_GT(seen, 0) << "no subproblem with one east chunk and several west ones";
  test_support::set_join_limits(0, 0);
}

}  // namespace
}  // namespace nq
