// The LDPC parity-check matrix of a modular solution (engine/algebra/ldpc.hpp): its shape and
// weights, and its 4-cycle count against a brute-force check on the dense matrix (every pair of
// rows, every pair of columns).
#include "engine/algebra/ldpc.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace nq {
namespace {

// p(i) = a i + b mod n with a - 1, a, a + 1 prime to n: a modular solution.
Permutation linear_modular(std::uint32_t n, std::uint32_t a, std::uint32_t b) {
  Permutation p(n);
  for (std::uint32_t i = 0; i < n; ++i) p[i] = static_cast<std::uint32_t>((a * i + b) % n);
  return p;
}

std::uint64_t brute_force_four_cycles(const LdpcMatrix& h) {
  std::vector<std::vector<char>> dense(h.rows, std::vector<char>(h.columns, 0));
  for (const auto& [r, c] : h.entries) dense[r][c] = 1;
  std::uint64_t cycles = 0;
  for (std::size_t r1 = 0; r1 < h.rows; ++r1)
    for (std::size_t r2 = r1 + 1; r2 < h.rows; ++r2) {
      std::uint64_t shared = 0;
      for (std::size_t c = 0; c < h.columns; ++c) shared += dense[r1][c] && dense[r2][c];
      if (shared > 1) cycles += shared * (shared - 1) / 2;  // pairs of shared columns
    }
  return cycles;
}

TEST(Ldpc, ShapeWeightsAndFourCyclesAgainstBruteForce) {
  struct Case {
    std::uint32_t n, a, b, J, K;
  };
  // Primes (no 4-cycle expected for J, K <= n) and composites prime to 6 (25, 35: some
  // (j1 - j2)(k1 - k2) is 0 mod n when J and K are large enough).
  for (const Case& c :
       {Case{5, 2, 0, 2, 3}, Case{7, 3, 1, 3, 4}, Case{11, 2, 5, 3, 5}, Case{13, 5, 2, 4, 6},
        Case{25, 2, 3, 3, 5}, Case{25, 2, 3, 6, 6}, Case{35, 2, 1, 6, 8}}) {
    const Permutation p = linear_modular(c.n, c.a, c.b);
    const auto h = ldpc_matrix(p, c.J, c.K);
    ASSERT_TRUE(h.ok()) << h.error().message;
    EXPECT_EQ(h->rows, std::uint64_t{c.J} * c.n);
    EXPECT_EQ(h->columns, std::uint64_t{c.K} * c.n);
    EXPECT_EQ(h->entries.size(), std::uint64_t{c.J} * c.K * c.n);
    const LdpcCheck check = check_ldpc(*h).value();
    EXPECT_EQ(check.min_row_weight, c.K);
    EXPECT_EQ(check.max_row_weight, c.K);
    EXPECT_EQ(check.min_column_weight, c.J);
    EXPECT_EQ(check.max_column_weight, c.J);
    EXPECT_EQ(check.four_cycles, brute_force_four_cycles(*h)) << "n = " << c.n;
    // The block argument: a 4-cycle needs (j1 - j2)(k1 - k2) = 0 mod n.
    bool collide = false;
    for (std::uint32_t d1 = 1; d1 < c.J; ++d1)
      for (std::uint32_t d2 = 1; d2 < c.K; ++d2) collide |= (d1 * d2) % c.n == 0;
    EXPECT_EQ(check.girth_at_least_6(), !collide) << "n = " << c.n;
  }
}

TEST(Ldpc, BlocksAreShiftedQMatricesOfModularSolutions) {
  const Permutation p = linear_modular(7, 3, 1);
  const auto h = ldpc_matrix(p, 2, 3);
  ASSERT_TRUE(h.ok());
  // Block (1, 2): shift 2; column c of the block holds the queen of column c + 2 of Q.
  for (const auto& [r, c] : h->entries) {
    if (r < 7 || c < 14) continue;
    const std::uint32_t col = c - 14, row = r - 7;
    EXPECT_EQ(row, p[(col + 2) % 7]);
  }
}

TEST(Ldpc, PaperLayoutUsesTheRowMultipliersOfEquationOne) {
  EXPECT_EQ(ldpc_row_multipliers(8, LdpcLayout::kPaper),
            (std::vector<std::uint64_t>{0, 2, 3, 5, 7, 11, 13, 17}));
  EXPECT_EQ(ldpc_row_multipliers(4, LdpcLayout::kProduct),
            (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_TRUE(ldpc_row_multipliers(0, LdpcLayout::kPaper).empty());
  // Block (j, k) is Q shifted by m(j) k: block (2, 3) of n = 11 by 3 * 3 = 9.
  const Permutation p = linear_modular(11, 2, 5);
  const auto h = ldpc_matrix(p, 3, 4, LdpcLayout::kPaper);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->layout, LdpcLayout::kPaper);
  std::size_t seen = 0;
  for (const auto& [r, c] : h->entries) {
    if (r < 22 || c < 33) continue;
    EXPECT_EQ(r - 22, p[(c - 33 + 9) % 11]);
    ++seen;
  }
  EXPECT_EQ(seen, 11u);
}

// Both layouts' 4-cycles against the brute force, and against the block argument with each
// layout's multipliers: a 4-cycle needs (m(j1) - m(j2))(k1 - k2) = 0 mod n. n = 7 with five
// block rows: the paper's m(4) = 7 = 0 mod 7 collides with m(0), the product layout does not.
TEST(Ldpc, BothLayoutsFourCyclesAgainstBruteForce) {
  struct Case {
    std::uint32_t n, a, b, J, K;
  };
  for (const LdpcLayout layout : {LdpcLayout::kProduct, LdpcLayout::kPaper})
    for (const Case& c : {Case{5, 2, 0, 3, 3}, Case{7, 3, 1, 5, 2}, Case{11, 2, 5, 4, 5},
                          Case{11, 2, 5, 6, 3}, Case{13, 5, 2, 5, 6}, Case{25, 2, 3, 6, 6}}) {
      const auto h = ldpc_matrix(linear_modular(c.n, c.a, c.b), c.J, c.K, layout);
      ASSERT_TRUE(h.ok()) << h.error().message;
      const LdpcCheck check = check_ldpc(*h).value();
      EXPECT_EQ(check.min_row_weight, c.K);
      EXPECT_EQ(check.max_column_weight, c.J);
      EXPECT_EQ(check.four_cycles, brute_force_four_cycles(*h)) << "n = " << c.n;
      const std::vector<std::uint64_t> m = ldpc_row_multipliers(c.J, layout);
      bool collide = false;
      for (std::uint32_t j1 = 0; j1 < c.J; ++j1)
        for (std::uint32_t j2 = j1 + 1; j2 < c.J; ++j2)
          for (std::uint32_t d = 1; d < c.K; ++d) collide |= (m[j2] - m[j1]) * d % c.n == 0;
      EXPECT_EQ(check.girth_at_least_6(), !collide) << "n = " << c.n << " J = " << c.J;
    }
  const Permutation p = linear_modular(7, 3, 1);
  EXPECT_TRUE(check_ldpc(*ldpc_matrix(p, 5, 2, LdpcLayout::kProduct))->girth_at_least_6());
  EXPECT_FALSE(check_ldpc(*ldpc_matrix(p, 5, 2, LdpcLayout::kPaper))->girth_at_least_6());
}

// The 4-cycles from the shifts alone (ldpc_four_cycles) against the count on H's entries, for
// every n prime to 6 up to 49 and every J, K up to min(n, 7), both layouts, on a modular
// solution and on a permutation that is no solution at all (the criterion does not depend on
// the permutation).
TEST(Ldpc, FourCyclesFromTheShiftsMatchTheFullCountInEverySmallCase) {
  std::size_t cases = 0, with_cycles = 0;
  for (std::uint32_t n = 1; n <= 49; ++n) {
    if (n % 2 == 0 || n % 3 == 0) continue;
    Permutation reversed(n);
    for (std::uint32_t i = 0; i < n; ++i) reversed[i] = n - 1 - i;
    const Permutation modular = n >= 5 ? linear_modular(n, 2, 1) : reversed;
    for (const LdpcLayout layout : {LdpcLayout::kProduct, LdpcLayout::kPaper})
      for (std::uint64_t J = 1; J <= std::min<std::uint64_t>(n, 7); ++J)
        for (std::uint64_t K = 1; K <= std::min<std::uint64_t>(n, 7); ++K)
          for (const Permutation* p : {&modular, static_cast<const Permutation*>(&reversed)}) {
            const auto h = ldpc_matrix(*p, J, K, layout);
            ASSERT_TRUE(h.ok()) << h.error().message;
            const std::uint64_t direct = count_four_cycles_directly(*h);
            ASSERT_EQ(ldpc_four_cycles(*h), direct)
                << "n = " << n << " J = " << J << " K = " << K
                << (layout == LdpcLayout::kPaper ? " paper" : " product");
            EXPECT_EQ(check_ldpc(*h)->four_cycles, direct);
            ++cases;
            with_cycles += direct > 0;
          }
  }
  EXPECT_GT(with_cycles, 100u);  // not vacuous: many cases have 4-cycles
  EXPECT_GT(cases, 2000u);
  // And against the dense brute force where H is small enough for it.
  const auto h = ldpc_matrix(linear_modular(25, 2, 3), 6, 6);
  EXPECT_EQ(ldpc_four_cycles(*h), brute_force_four_cycles(*h));
}

// H written a part at a time (ldpc_shape, ldpc_entries in pieces, LdpcChecker) is the H of
// ldpc_matrix, with the same check, whatever the pieces' sizes.
TEST(Ldpc, PartsMakeTheWholeMatrixAndItsCheck) {
  const Permutation p = linear_modular(13, 5, 2);
  const auto whole = ldpc_matrix(p, 4, 6, LdpcLayout::kPaper);
  ASSERT_TRUE(whole.ok());
  const auto shape = ldpc_shape(13, 4, 6, LdpcLayout::kPaper);
  ASSERT_TRUE(shape.ok());
  EXPECT_TRUE(shape->entries.empty());
  EXPECT_EQ(shape->ones, whole->entries.size());
  for (const std::uint64_t piece : {1u, 7u, 13u, 100u, 1000u}) {
    std::vector<LdpcEntry> all;
    auto checker = LdpcChecker::make(*shape);
    ASSERT_TRUE(checker.ok());
    for (std::uint64_t first = 0; first < shape->ones; first += piece) {
      std::vector<LdpcEntry> part;
      ldpc_entries(p, *shape, first, piece, part);
      checker.value().add(part.data(), part.size());
      all.insert(all.end(), part.begin(), part.end());
    }
    EXPECT_EQ(all, whole->entries) << piece;
    const LdpcCheck a = checker->result(), b = check_ldpc(*whole).value();
    EXPECT_EQ(a.min_row_weight, b.min_row_weight);
    EXPECT_EQ(a.max_column_weight, b.max_column_weight);
    EXPECT_EQ(a.four_cycles, b.four_cycles);
  }
  // The weights are counted, not assumed: a one dropped shows.
  auto broken = *whole;
  broken.entries.pop_back();
  EXPECT_EQ(check_ldpc(broken)->min_row_weight, 5u);
}

TEST(Ldpc, RefusesBadBlockCounts) {
  const Permutation p = linear_modular(5, 2, 0);
  EXPECT_FALSE(ldpc_matrix(p, 0, 3).ok());
  EXPECT_FALSE(ldpc_matrix(p, 2, 6).ok());
  EXPECT_FALSE(ldpc_shape(10007, 100, 100).ok());  // 10^8 + ones
  EXPECT_TRUE(ldpc_shape(10007, 99, 100).ok());
  EXPECT_FALSE(ldpc_shape(5, 2, 2, static_cast<LdpcLayout>(9)).ok());
}

}  // namespace
}  // namespace nq
