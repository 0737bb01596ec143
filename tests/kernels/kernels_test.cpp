// The kernels: the scalar one against an independent slow count, and every other kernel
// against the scalar one, subproblem by subproblem (solutions, and nodes for the backtracking
// kernels, whose nodes mean the same), on the front end's real prefixes and on random boards.
// The join kernel runs here too: every subproblem shape (prefixes, random frames, tiny boards)
// must give the scalar kernel's solutions. The per-kernel suites are parameterized by kernel name
// and carry the ctest label `kernel`: each kernel this CPU supports runs as its own test case;
// a kernel the CPU lacks is skipped, and the skip says why.
#include "kernels/kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include "engine/count/count.hpp"
#include "engine/count/known.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/splits.hpp"
#include "kernels/isa.hpp"
#include "tests/brute_force.hpp"
#include "tests/support/testing.hpp"

namespace nq {
namespace {

// Random subproblems: a random frame of blocked squares (about `density`/4 of the squares)
// and a few random queens on top. `split` queens are placed to make the subproblem smaller.
std::vector<Subproblem> random_subproblems(int n, int count, int density, int split,
                                           std::mt19937& rng) {
  std::vector<Subproblem> out;
  const Mask full = n >= 32 ? ~Mask{0} : (Mask{1} << n) - 1;
  auto random_mask = [&] {
    Mask m = 0;
    for (int k = 0; k < density; ++k) m |= static_cast<Mask>(rng() & rng());
    return m & full;
  };
  while (static_cast<int>(out.size()) < count) {
    Subproblem s;
    s.full = full;
    s.rows = n;
    for (int r = 0; r < n; ++r) s.blocked[r] = random_mask();
    std::vector<Subproblem> children;
    detail::split_subproblem(s, split, children);
    if (children.empty()) continue;
    out.push_back(children[rng() % children.size()]);
  }
  return out;
}

// Independent count of a subproblem: try every column of every open row, recursively.
std::uint64_t slow_count(const Subproblem& s, int d, Mask cols, Mask ld, Mask rd) {
  if (d == s.rows) return 1;
  std::uint64_t c = 0;
  for (int col = 0; col < 32; ++col) {
    const Mask bit = Mask{1} << col;
    if (!(s.full & bit) || ((cols | ld | rd | s.blocked[d]) & bit)) continue;
    c += slow_count(s, d + 1, cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
  }
  return c;
}

TEST(Kernels, ScalarMatchesSlowCountOnRandomSubproblems) {
  std::mt19937 rng(1234);
  for (int n = 4; n <= 11; ++n)
    for (const Subproblem& s : random_subproblems(n, 200, 1, static_cast<int>(rng() % 3), rng))
      ASSERT_EQ(count_one_scalar(s).solutions, slow_count(s, 0, s.cols, s.ld, s.rd)) << "n=" << n;
}

TEST(Kernels, EmptyBoardCountsMatchBruteForce) {
  for (int n = 1; n <= 9; ++n) {
    Subproblem s;
    s.full = (Mask{1} << n) - 1;
    s.rows = n;
    const auto want = static_cast<std::uint64_t>(test::all_solutions(n).size());
    EXPECT_EQ(count_one_scalar(s).solutions, want) << n;
    EXPECT_EQ(count_classic(n, 0, 0, 0, n).solutions, want) << n;
  }
}

TEST(Kernels, DispatchKnowsEveryNameAndRejectsOthers) {
  EXPECT_EQ(find_kernel("nonsense"), nullptr);
  EXPECT_EQ(find_kernel(""), nullptr);
  for (const char* name : {"scalar", "avx2", "avx512", "join", "reference"}) {
    ASSERT_NE(find_kernel(name), nullptr) << name;
    EXPECT_EQ(find_kernel(name)->name, name);
  }
  EXPECT_EQ(find_kernel("auto"), &best_kernel());
  EXPECT_TRUE(best_kernel().supported());
  // "auto" is the first supported kernel in priority order.
  for (const Kernel& k : all_kernels()) {
    if (!k.supported()) continue;
    EXPECT_EQ(&k, &best_kernel());
    break;
  }
}

// ---- per kernel -------------------------------------------------------------------------

class KernelTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    kernel_ = find_kernel(GetParam());
    ASSERT_NE(kernel_, nullptr);
    if (!kernel_->supported())
      GTEST_SKIP() << "this CPU cannot run kernel '" << GetParam() << "' (it needs "
                   << kernel_->needs << ")";
  }

  // Counts `subs` with the kernel in batches of random sizes (1..max_batch, so lanes refill,
  // run dry and steal) and demands the scalar kernel's tally for every subproblem.
  void expect_same_as_scalar(const std::vector<Subproblem>& subs, std::mt19937& rng,
                             const std::string& what, std::size_t max_batch = 80) {
    std::vector<Tally> got(subs.size());
    for (std::size_t b = 0; b < subs.size();) {
      const std::size_t m = std::min<std::size_t>(1 + rng() % max_batch, subs.size() - b);
      kernel_->count(std::span(subs).subspan(b, m), std::span(got).subspan(b, m));
      b += m;
    }
    for (std::size_t i = 0; i < subs.size(); ++i) {
      const Tally want = count_one_scalar(subs[i]);
      ASSERT_EQ(got[i].solutions, want.solutions) << what << " subproblem " << i;
      if (kernel_->search_nodes) {
        ASSERT_EQ(got[i].nodes, want.nodes) << what << " subproblem " << i;
      }
    }
  }

  const Kernel* kernel_ = nullptr;
};

// The kernels that count any subproblem (all but the reference kernel, which counts only the
// classic plan's: no fixed queens, nothing blocked).
class AnySubproblemKernelTest : public KernelTest {};

TEST_P(AnySubproblemKernelTest, SameTalliesAsScalarOnFrontEndPrefixes) {
  std::mt19937 rng(7);
  std::size_t checked = 0;
  for (int n = 8; n <= 15; ++n)
    for (int split : {1, 3}) {
      const Plan plan = plan_canonical(n, split);
      expect_same_as_scalar(plan.subproblems, rng,
                            "n=" + std::to_string(n) + " split=" + std::to_string(split));
      checked += plan.subproblems.size();
    }
  EXPECT_GT(checked, 5000u);
}

TEST_P(AnySubproblemKernelTest, SameTalliesAsScalarOnRandomBoards) {
  std::mt19937 rng(99);
  for (int n = 8; n <= 15; ++n)
    expect_same_as_scalar(random_subproblems(n, 1500, 1, 3, rng), rng, "n=" + std::to_string(n));
}

TEST_P(AnySubproblemKernelTest, SameTalliesAsScalarOnWideBoards) {
  // n > 16 takes the 64-bit lanes; dense frames keep the trees small up to n = 32, where the
  // diagonal words use all their bits; the frames get denser with n to keep the trees small.
  std::mt19937 rng(5);
  for (int n = 16; n <= 32; ++n)
    expect_same_as_scalar(random_subproblems(n, 300, 3 + (n - 16) / 3, 3, rng), rng,
                          "n=" + std::to_string(n));
}

TEST_P(AnySubproblemKernelTest, SameTalliesAsScalarOnTinyAndEmptyCases) {
  std::mt19937 rng(3);
  std::vector<Subproblem> subs;
  for (int n = 1; n <= 12; ++n)
    for (int rows = 0; rows <= std::min(n, 4); ++rows) {
      Subproblem s;
      s.full = (Mask{1} << n) - 1;
      s.rows = rows;
      subs.push_back(s);
      s.blocked[0] = s.full;  // no free square in the first row
      subs.push_back(s);
    }
  expect_same_as_scalar(subs, rng, "tiny");
  expect_same_as_scalar({}, rng, "empty batch");
  expect_same_as_scalar(subs, rng, "tiny one by one", 1);
}

TEST_P(KernelTest, WholeCountsMatchScalar) {
  for (int n = 4; n <= 14; ++n) {
    CountConfig c{.n = n, .threads = 2, .kernel = "scalar"};
    const auto want = count(c);
    c.kernel = GetParam();
    const auto got = count(c);
    ASSERT_TRUE(want.ok() && got.ok()) << n;
    EXPECT_TRUE(got->orbits.total == want->orbits.total) << n;
    EXPECT_TRUE(got->orbits.unique == want->orbits.unique) << n;
    if (find_kernel(GetParam())->search_nodes) {
      EXPECT_TRUE(got->nodes == want->nodes) << n;
    }
    EXPECT_EQ(got->kernel, GetParam());
  }
}

TEST_P(KernelTest, ForcedKernelIsTheOneThatRan) {
  std::vector<std::uint64_t> before;
  for (const Kernel& k : all_kernels()) before.push_back(kernel_batches(k.name));
  CountConfig c;
  c.n = 12;
  c.threads = 2;
  c.kernel = GetParam();
  const auto r = count(c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kernel, GetParam());
  for (std::size_t i = 0; i < all_kernels().size(); ++i) {
    const Kernel& k = all_kernels()[i];
    if (k.name == GetParam())
      EXPECT_GT(kernel_batches(k.name), before[i]) << k.name << " did not run";
    else
      EXPECT_EQ(kernel_batches(k.name), before[i]) << k.name << " ran instead";
  }
}

// The join's baseline-ISA build (what machines without AVX-512 run; the dispatcher picks the
// AVX-512 one here) against the scalar search, on the row-split plan and on front-end prefixes.
TEST(JoinBuilds, BaselineBuildMatchesTheSearch) {
  std::size_t checked = 0;
  for (int n = 8; n <= 14; ++n)
    for (bool rowsplit : {true, false}) {
      std::vector<Subproblem> subs = plan_canonical(n, 2).subproblems;
      std::vector<std::uint8_t> weights;
      if (rowsplit) detail::rowsplit_all(n, subs, weights);
      std::vector<Tally> got(subs.size());
      detail::join_ops_scalar().count(subs, got);
      for (std::size_t i = 0; i < subs.size(); ++i)
        ASSERT_EQ(got[i].solutions, count_one_scalar(subs[i]).solutions)
            << "n=" << n << " subproblem " << i;
      checked += subs.size();
    }
  EXPECT_GT(checked, 4000u);
}

// The pairs of a and b that share no bit, counted by columns (the join's counter's plainest
// oracle after a double loop, and several times fewer steps): for each bit, the members of b that
// hold it, as a bitset; a member x of a is disjoint from the members outside the union of its
// bits' sets. Raw pointers and indices: the sanitizer builds compile this file at -O0, where
// each iterator step of a range loop is a call.
std::uint64_t disjoint_pairs_by_columns(const std::vector<std::uint64_t>& a,
                                        const std::vector<std::uint64_t>& b) {
  const std::size_t words = (b.size() + 63) / 64;
  std::vector<std::uint64_t> columns(64 * words, 0), met(words);
  std::uint64_t* column = columns.data();
  for (std::size_t j = 0; j < b.size(); ++j)
    for (std::uint64_t y = b[j]; y != 0; y &= y - 1)
      column[std::countr_zero(y) * words + j / 64] |= std::uint64_t{1} << (j % 64);
  std::uint64_t pairs = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::uint64_t* m = met.data();
    std::fill(m, m + words, 0);
    for (std::uint64_t x = a[i]; x != 0; x &= x - 1) {
      const std::uint64_t* c = column + std::countr_zero(x) * words;
      for (std::size_t w = 0; w < words; ++w) m[w] |= c[w];
    }
    std::uint64_t held = 0;
    for (std::size_t w = 0; w < words; ++w) held += std::popcount(m[w]);
    pairs += b.size() - held;
  }
  return pairs;
}

TEST(JoinPairs, ColumnsCountAsTheDoubleLoop) {
  std::mt19937_64 rng(3);
  for (const std::size_t nb : {0, 1, 63, 64, 65, 200}) {
    std::vector<std::uint64_t> a(50), b(nb);
    for (auto& x : a) x = rng() & rng() & rng();
    for (auto& y : b) y = rng() & rng() & rng();
    if (nb > 0) b[0] = 0;  // a member with no bit meets every member of the other side
    a[1] = ~std::uint64_t{0};
    std::uint64_t want = 0;
    for (const std::uint64_t x : a)
      for (const std::uint64_t y : b) want += (x & y) == 0;
    EXPECT_EQ(disjoint_pairs_by_columns(a, b), want) << nb;
  }
}

// The join's pair counter (bit slices, chunk tables, the sieve from 512 sliced members and 1e7
// pairs, its blocks of 512 across groups with a last one of 256, and the diagonals only one side
// occupies dropped) against a plain double loop, on random patterns of several densities and
// sizes around every threshold (32 for slices, 256/512 for the block width, the sieve's), with
// both sides on all bits or on overlapping windows of them.
TEST(JoinPairs, MatchDoubleLoopAtEverySizeAndDensity) {
  std::mt19937_64 rng(11);
  std::size_t checked = 0;
  for (const bool skew : {false, true})
    for (const int bits : {10, 34, 38, 62})
      for (const auto& [na, nb] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 5},
                                                                                   {1, 1},
                                                                                   {31, 700},
                                                                                   {32, 33},
                                                                                   {257, 1000},
                                                                                   {600, 513},
                                                                                   {3000, 2000},
                                                                                   {511, 40000},
                                                                                   {512, 19532},
                                                                                   {700, 20000},
                                                                                   {1023, 40000},
                                                                                   {1024, 29297},
                                                                                   {2600, 12000},
                                                                                   {9000, 12000},
                                                                                   {20000, 8192}}) {
        const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
        // Skewed: a on all but the top 4 bits, b on all but the bottom 3 (as the join's east and
        // west halves leave some crossing diagonals empty).
        const std::uint64_t mask_a = skew ? mask >> 4 : mask, mask_b = skew ? mask & ~7ull : mask;
        // About a quarter of the bits set (the join's patterns have about a third).
        auto pattern = [&] { return rng() & rng() & mask; };
        std::vector<std::uint64_t> a(na), b(nb);
        for (auto& x : a) x = pattern() & mask_a;
        for (auto& y : b) y = pattern() & mask_b;
        const std::uint64_t want = disjoint_pairs_by_columns(a, b);
        EXPECT_EQ(detail::join_ops_scalar().count_disjoint_pairs(a, b, bits, false), want)
            << bits << " " << na << "x" << nb << " " << skew;
        if (test_support::join_avx512()) {
          // Both ways a visit of half a block can go: half-entries (as on Zen 4) or whole ones.
          for (const bool narrow : {false, true})
            EXPECT_EQ(test_support::join_avx512()->count_disjoint_pairs(a, b, bits, narrow), want)
                << bits << " " << na << "x" << nb << " " << skew << " " << narrow;
        }
        checked += na * nb;
      }
  EXPECT_GT(checked, 100'000'000u);
}

// The sieve's cuts on large sides are chosen on the pairs that the cuts before leave: here
// diagonals 0 and 1 are always occupied together (each by 60% of both sides), diagonal 2 by
// half of each, independently, the others by a quarter. By each diagonal's own occupancy the
// two cuts would be 0 and 1, but once 0 is cut, cutting 1 rules out no pair more; so the second
// cut is 2. DeepSievesMatchSubsetSums below counts through this choice.
TEST(JoinPairs, CutsAreChosenOnThePairsLeft) {
  std::mt19937_64 rng(5);
  auto member = [&] {
    std::uint64_t x = rng() & rng() & 0x3f8;  // diagonals 3..9, a quarter each
    if (rng() % 10 < 6) x |= 3;               // 0 and 1 together
    if (rng() % 2 == 0) x |= 4;
    return x;
  };
  std::vector<std::uint64_t> a(3000), b(5000);
  for (auto& x : a) x = member();
  for (auto& y : b) y = member();
  EXPECT_EQ(detail::join_ops_scalar().sieve_cuts(a, b, 0x3ff, 2), 0b101u);
  EXPECT_EQ(detail::join_ops_scalar().sieve_cuts(a, b, 0x3fe, 2),
            0b110u);  // 0 not shared: 1, then 2
  if (test_support::join_avx512()) {
    EXPECT_EQ(test_support::join_avx512()->sieve_cuts(a, b, 0x3ff, 2), 0b101u);
    EXPECT_EQ(test_support::join_avx512()->sieve_cuts(a, b, 0x3fe, 2), 0b110u);
  }
}

// Slow: sides large enough for the sieve's deepest cuts (10 and 12 diagonals: more than a byte of
// key, up to 2^12 groups), as the halves of n = 22 and beyond reach; the sieve cuts that deep
// only where the sides share 38 diagonals or more, or 36 in a call of 1e10 pairs or more. The
// members have 22 random bits, so the expected count comes from subset sums instead of a double
// loop (with F[m] the members of b inside m, the pairs are the sum over a of F[~a]); then one
// member of each side also takes the bits above them up to `shared` (so the sides share that
// many), which takes exactly the pair of those two out. The third case has the fewest sliced
// members that take 12 cuts (64 a group). The fourth sizes are lopsided, as the halves of odd n
// are: 16 times more visiting members than sliced ones, where the sieve settles the most low
// key bits (three more than balanced sides). The last case is a chunk pair of n = 25..28
// (kJoinChunk, kernels.hpp): 1.8e13 pairs and 2^22 sliced members, where the sieve cuts 16
// diagonals (2^16 groups); its members have each bit at five eighths, so that the pairs left
// after the cuts stay few enough for a second or two.
TEST(SlowJoinPairs, DeepSievesMatchSubsetSums) {
  constexpr int kBits = 22;
  constexpr std::uint64_t kFull = (std::uint64_t{1} << kBits) - 1;
  std::mt19937_64 rng(23);
  struct Case {
    std::size_t na, nb;
    int shared;
    bool dense;
  };
  for (const auto& [na, nb, shared, dense] : std::vector<Case>{{150000, 300000, 40, false},
                                                               {150000, 300000, 36, false},
                                                               {270000, 280000, 40, false},
                                                               {20000, 320000, 40, false},
                                                               {4200000, 4300000, 44, true}}) {
    const std::uint64_t wide = ((std::uint64_t{1} << shared) - 1) & ~kFull;
    std::vector<std::uint64_t> a(na), b(nb);
    for (auto& x : a) x = (dense ? rng() | (rng() & rng()) : rng() & rng()) & kFull;
    for (auto& y : b) y = (dense ? rng() | (rng() & rng()) : rng() & rng()) & kFull;
    std::vector<std::uint64_t> inside(kFull + 1, 0);
    for (const std::uint64_t y : b) ++inside[y];
    for (int bit = 0; bit < kBits; ++bit)
      for (std::uint64_t m = 0; m <= kFull; ++m)
        if (m >> bit & 1) inside[m] += inside[m ^ (std::uint64_t{1} << bit)];
    std::uint64_t want = 0;
    for (const std::uint64_t x : a) want += inside[kFull & ~x];
    a[rng() % na] |= wide;
    b[rng() % nb] |= wide;
    std::uint64_t wide_a = 0, wide_b = 0;
    for (const std::uint64_t x : a)
      if (x & wide) wide_a = x;
    for (const std::uint64_t y : b)
      if (y & wide) wide_b = y;
    if (((wide_a & wide_b) & kFull) == 0) --want;
    EXPECT_GT(want, 0u);
    EXPECT_EQ(detail::join_ops_scalar().count_disjoint_pairs(a, b, shared, false), want)
        << na << "x" << nb << " " << shared;

    if (test_support::join_avx512()) {
      for (const bool narrow : {false, true})
        EXPECT_EQ(test_support::join_avx512()->count_disjoint_pairs(a, b, shared, narrow), want)
            << na << "x" << nb << " " << shared << " " << narrow;
    }
  }
}

// Slow: whole counts large enough to refill, flush and steal for seconds: n = 16 against the
// scalar kernel's nodes, n = 17 (the 64-bit lanes) against the table. The scalar search has one
// word width for every n, so it counts n = 16 only (its n = 17 took ten seconds of CPU).
class SlowKernelTest : public KernelTest {};

TEST_P(SlowKernelTest, WholeCountsMatchTheTableAndScalarNodes) {
  for (int n : {16, 17}) {
    if (n == 17 && GetParam() == "scalar") continue;
    CountConfig c;
    c.n = n;
    c.threads = 2;
    c.kernel = GetParam();
    const auto got = count(c);
    ASSERT_TRUE(got.ok()) << n;
    const auto known = known_value(n);
    ASSERT_TRUE(known.has_value());
    EXPECT_TRUE(got->orbits.total == known->total) << n;
    EXPECT_TRUE(got->orbits.unique == known->unique) << n;
    if (n == 16 && GetParam() != "scalar" && find_kernel(GetParam())->search_nodes) {
      c.kernel = "scalar";
      const auto want = count(c);
      ASSERT_TRUE(want.ok());
      EXPECT_TRUE(got->nodes == want->nodes) << n;
    }
  }
}

// ---- the join against the search on the join's own plan ---------------------------------

// The join kernel and the backtracking (scalar) kernel, subproblem by subproblem, in batches.
// Adds the solutions found to `solutions`, so that a test can tell it did not compare zeros.
void expect_join_matches_search(const std::vector<Subproblem>& subs, const std::string& what,
                                std::uint64_t& solutions) {
  const Kernel* join = find_kernel("join");
  ASSERT_NE(join, nullptr);
  std::vector<Tally> got(subs.size());
  for (std::size_t b = 0; b < subs.size(); b += 16) {
    const std::size_t m = std::min<std::size_t>(16, subs.size() - b);
    join->count(std::span(subs).subspan(b, m), std::span(got).subspan(b, m));
  }
  for (std::size_t i = 0; i < subs.size(); ++i) {
    ASSERT_EQ(got[i].solutions, count_one_scalar(subs[i]).solutions) << what << " subproblem " << i;
    solutions += got[i].solutions;
  }
}

TEST(JoinKernel, MatchesSearchOnEveryRowSplitSubproblem) {
  std::size_t checked = 0;
  std::uint64_t solutions = 0;
  for (int n = 8; n <= 14; ++n) {
    std::vector<Subproblem> subs;
    std::vector<std::uint8_t> weights;
    detail::rowsplit_all(n, subs, weights);
    ASSERT_FALSE(subs.empty()) << n;
    expect_join_matches_search(subs, "n=" + std::to_string(n), solutions);
    checked += subs.size();
  }
  EXPECT_GT(checked, 1000u);
  EXPECT_GT(solutions, 0u);
}

// Large boards' halves come out in chunks (kJoinMaxLeaves placements), their top placements in
// batches (at most a chunk's count), and their bottom parts move down a row past kJoinMaxParts;
// tiny limits make small boards do all three, often: both builds, against the search and
// against the default limits (same solutions and nodes).
TEST(JoinKernel, ChunkedHalvesAndMovedBottomsCountTheSame) {
  struct Limits {
    std::size_t chunk, parts;
  };
  std::uint64_t solutions = 0;
  for (int n = 9; n <= 13; ++n) {
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
      if (test_support::join_avx512()) {
        test_support::join_avx512()->count(subs, got);
        for (std::size_t i = 0; i < subs.size(); ++i)
          ASSERT_EQ(got[i].solutions, plain[i].solutions) << what << " avx512, subproblem " << i;
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
  const JoinWatch watch{[](void* context, std::uint64_t pairs) {
                          auto& h = *static_cast<Heard*>(context);
                          h.pairs += pairs;
                          return ++h.polls == h.stop_after;
                        },
                        &heard};
  set_join_watch(watch);
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
  set_join_watch({});
  test_support::set_join_limits(0, 0);
}

// Halves of 11 and 12 rows (n = 22 and 23), whose top part takes half their rows: runs of
// consecutive row-split subproblems with about 3 in 8 of every row's squares blocked (the
// same squares for a row across the runs, so that bottom parts are reused as in a count), small
// enough for the search.
TEST(JoinKernel, LargeHalvesWithBlockedSquaresMatchTheSearch) {
  std::mt19937_64 rng(11);
  std::uint64_t solutions = 0;
  for (int n : {22, 23}) {
    Mask keep[kMaxN];
    for (int i = 0; i < n; ++i) keep[i] = static_cast<Mask>(rng() | (rng() & rng()));
    std::vector<Subproblem> subs;
    std::vector<std::uint8_t> weights;
    rowsplit_runs(n, 3, 6, subs, weights);
    for (Subproblem& s : subs)
      for (int i = 0; i < s.rows; ++i) {
        const Mask open = open_row_squares(s, i);
        Mask block = open & ~keep[i];
        if (block == open) block &= block - 1;  // the row keeps its lowest square
        s.blocked[i] |= block;
      }
    expect_join_matches_search(subs, "n=" + std::to_string(n), solutions);
  }
  EXPECT_GT(solutions, 0u);
}

TEST(JoinKernel, MatchesSearchOnRowSplitSubproblemsWithRandomQueensOnTop) {
  // A few queens placed on top of a row-split subproblem leave free columns that no longer
  // match its halves, so the join takes its general path (rows whose half is open).
  std::mt19937 rng(2024);
  std::uint64_t solutions = 0;
  for (int n = 8; n <= 16; ++n) {
    std::vector<Subproblem> plan;
    std::vector<std::uint8_t> weights;
    detail::rowsplit_all(n, plan, weights);
    std::vector<Subproblem> subs;
    while (subs.size() < 300) {
      const Subproblem& base = plan[rng() % plan.size()];
      std::vector<Subproblem> children;
      detail::split_subproblem(base, 1 + static_cast<int>(rng() % 4), children);
      if (!children.empty()) subs.push_back(children[rng() % children.size()]);
    }
    expect_join_matches_search(subs, "n=" + std::to_string(n), solutions);
  }
  EXPECT_GT(solutions, 0u);
}

// The table's kernels; with `any_subproblem`, those that count any subproblem.
std::vector<std::string> kernel_names(bool any_subproblem = false) {
  std::vector<std::string> names;
  for (const Kernel& k : all_kernels())
    if (!any_subproblem || k.plan != PlanKind::kClassic) names.emplace_back(k.name);
  return names;
}

TEST(Kernels, TheTableNamesEachKernelsPlanAndInstructionSet) {
  std::size_t classic = 0, rowsplit = 0;
  for (const Kernel& k : all_kernels()) {
    ASSERT_NE(k.isa, nullptr) << k.name;
    const std::string_view isa = k.isa();
    EXPECT_TRUE(isa == "avx512" || isa == "avx2" || isa == "scalar") << k.name << ": " << isa;
    EXPECT_FALSE(k.description.empty()) << k.name;
    classic += k.plan == PlanKind::kClassic;
    rowsplit += k.plan == PlanKind::kRowSplit;
  }
  EXPECT_EQ(classic, 1u);
  EXPECT_EQ(rowsplit, 1u);
  ASSERT_NE(find_kernel("reference"), nullptr);
  EXPECT_EQ(find_kernel("reference")->plan, PlanKind::kClassic);
  EXPECT_EQ(find_kernel("join")->plan, PlanKind::kRowSplit);
  // The join's bit slices run in AVX-512 exactly where that kernel can run and the CPU has the
  // join's VBMI and GFNI too.
  EXPECT_EQ(find_kernel("join")->isa() == "avx512",
            find_kernel("avx512")->supported() && test_support::join_avx512());
  EXPECT_EQ(plan_kind_name(PlanKind::kRowSplit), "rowsplit");
}

TEST(Kernels, ReferenceBatchCountsEmptyBoardsLikeTheClassicKernel) {
  std::vector<Subproblem> boards;
  for (int n = 1; n <= 11; ++n) {
    Subproblem s;
    s.full = (Mask{1} << n) - 1;
    s.rows = n;
    boards.push_back(s);
  }
  std::vector<Tally> got(boards.size());
  find_kernel("reference")->count(boards, got);
  for (std::size_t i = 0; i < boards.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    EXPECT_EQ(got[i].solutions, test::all_solutions(n).size()) << n;
    EXPECT_EQ(got[i].nodes, count_classic(n, 0, 0, 0, n).nodes) << n;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, KernelTest, ::testing::ValuesIn(kernel_names()),
                         [](const auto& p) { return p.param; });
INSTANTIATE_TEST_SUITE_P(EveryKernel, AnySubproblemKernelTest,
                         ::testing::ValuesIn(kernel_names(true)),
                         [](const auto& p) { return p.param; });
// The reference kernel's whole counts at n = 16 are checked against the canonical plan's in
// run_test; n = 17 on it would double this suite's time.
INSTANTIATE_TEST_SUITE_P(SlowEveryKernel, SlowKernelTest, ::testing::ValuesIn(kernel_names(true)),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace nq
