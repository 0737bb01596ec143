// The runner and reducer: exact orbit counts at every thread count, against brute force and
// against the classic route; the table only as a last check.
#include <gtest/gtest.h>

#include "brute_force.hpp"
#include "engine.hpp"
#include "known.hpp"

namespace nq {
namespace {

CountResult run(int n, int threads, const std::string& kernel = "auto", int split = -1) {
  CountConfig c;
  c.n = n;
  c.threads = threads;
  c.kernel = kernel;
  c.split_rows = split;
  auto r = count(c);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : CountResult{};
}

void expect_same(const OrbitCounts& a, const OrbitCounts& b, const std::string& what) {
  EXPECT_TRUE(a.total == b.total) << what;
  EXPECT_TRUE(a.unique == b.unique) << what;
  EXPECT_TRUE(a.u1 == b.u1 && a.u2 == b.u2 && a.u4 == b.u4 && a.u8 == b.u8) << what;
}

TEST(Runner, OrbitCountsMatchBruteForce) {
  for (int n = 1; n <= 10; ++n) {
    const auto b = test::brute_counts(n);
    for (const std::string kernel : {"auto", "reference"}) {
      const OrbitCounts o = run(n, 2, kernel).orbits;
      EXPECT_EQ(static_cast<long long>(o.total), b.total) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.unique), b.unique) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.u1), b.u1) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.u2), b.u2) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.u4), b.u4) << n << kernel;
      EXPECT_EQ(static_cast<long long>(o.u8), b.u8) << n << kernel;
    }
  }
}

TEST(Runner, IdenticalAtEveryThreadCountAndMatchesTheTable) {
  for (int n = 1; n <= 15; ++n) {
    const CountResult one = run(n, 1);
    for (int t : {2, 3, 7}) {
      const CountResult r = run(n, t);
      expect_same(r.orbits, one.orbits, "n=" + std::to_string(n) + " t=" + std::to_string(t));
      EXPECT_TRUE(r.nodes == one.nodes);
      EXPECT_EQ(r.threads, t);
    }
    const auto k = known_value(n);
    ASSERT_TRUE(k.has_value());
    EXPECT_TRUE(one.orbits.total == k->total) << n;
    EXPECT_TRUE(one.orbits.unique == k->unique) << n;
  }
}

TEST(Runner, ClassicRouteAgreesWithCanonicalRoute) {
  for (int n = 4; n <= 13; ++n)
    expect_same(run(n, 2, "reference").orbits, run(n, 2).orbits, "n=" + std::to_string(n));
}

TEST(Runner, SplitDepthDoesNotChangeCounts) {
  const CountResult base = run(12, 2, "auto", 0);
  for (int split = 1; split <= 6; ++split)
    expect_same(run(12, 2, "auto", split).orbits, base.orbits, "split " + std::to_string(split));
}

TEST(Runner, RejectsBadConfig) {
  CountConfig c;
  c.n = 0;
  EXPECT_FALSE(count(c).ok());
  c.n = kMaxCountN + 1;
  EXPECT_FALSE(count(c).ok());
  c.n = 8;
  c.kernel = "warp-drive";
  auto r = count(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("warp-drive"), std::string::npos);
}

TEST(Runner, CancelStopsEarlyAndSaysSo) {
  Monitor m;
  m.cancel = true;
  CountConfig c;
  c.n = 14;
  c.threads = 2;
  auto r = count(c, &m);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->cancelled);
  EXPECT_LT(r->subproblems, r->subproblems_total);
}

TEST(SlowRunner, N16And17MatchTheTable) {
  for (int n : {16, 17}) {
    const CountResult r = run(n, 2);
    const auto k = known_value(n);
    EXPECT_TRUE(r.orbits.total == k->total) << n;
    EXPECT_TRUE(r.orbits.unique == k->unique) << n;
  }
  expect_same(run(16, 2, "reference").orbits, run(16, 1).orbits, "n=16 classic vs canonical");
}

}  // namespace
}  // namespace nq
