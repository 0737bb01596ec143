// The D4 algebra on permutations (engine/algebra/algebra.hpp), the orbit tools
// (engine/algebra/orbits.hpp), the lexicographic enumeration (kernels/enumerate.hpp) and the
// Rivin-Zabih DP (engine/algebra/dp.hpp).
#include "engine/algebra/algebra.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "engine/algebra/dp.hpp"
#include "engine/algebra/orbits.hpp"
#include "engine/count/known.hpp"
#include "kernels/enumerate.hpp"
#include "tests/brute_force.hpp"
#include "tests/support/sanitized.hpp"

namespace nq {
namespace {

Perm one_based(std::initializer_list<int> v) {
  Perm p;
  for (int x : v) p.push_back(x - 1);
  return p;
}

Perm random_perm(int n, std::mt19937& rng) {
  Perm p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

std::vector<Perm> solutions(int n) {
  std::vector<Perm> out;
  for_each_solution(n, [&](const int* rows) {
    out.emplace_back(rows, rows + n);
    return true;
  });
  return out;
}

int index_of(PermOp op) {
  return static_cast<int>(op);
}

// The 8 x 8 table of f∘g (apply g first), computed from the definitions on a permutation whose
// eight images are distinct, so that each product is identified by its action.
std::array<std::array<int, 8>, 8> product_table() {
  std::mt19937 rng(7);
  Perm p;
  do p = random_perm(9, rng);
  while (orbit_of(p).size != 8);
  std::array<std::array<int, 8>, 8> table{};
  for (PermOp f : kAllPermOps)
    for (PermOp g : kAllPermOps) {
      const Perm fg = apply_op(f, apply_op(g, p));
      int found = -1;
      for (PermOp h : kAllPermOps)
        if (apply_op(h, p) == fg) found = index_of(h);
      table[index_of(f)][index_of(g)] = found;
    }
  return table;
}

TEST(D4Group, ProductTableIsClosedAndConsistent) {
  const auto table = product_table();
  std::mt19937 rng(11);
  for (int f = 0; f < 8; ++f)
    for (int g = 0; g < 8; ++g) {
      ASSERT_GE(table[f][g], 0) << "po" << f + 1 << "∘po" << g + 1 << " is not one of the eight";
      // The product acts the same way on every permutation, not only on the one it came from.
      for (int trial = 0; trial < 5; ++trial) {
        const Perm q = random_perm(1 + trial * 3, rng);
        EXPECT_EQ(apply_op(kAllPermOps[f], apply_op(kAllPermOps[g], q)),
                  apply_op(kAllPermOps[table[f][g]], q));
      }
    }
  // A group table is a Latin square.
  for (int f = 0; f < 8; ++f) {
    std::set<int> row, col;
    for (int g = 0; g < 8; ++g) {
      row.insert(table[f][g]);
      col.insert(table[g][f]);
    }
    EXPECT_EQ(row.size(), 8u);
    EXPECT_EQ(col.size(), 8u);
  }
  // Associativity, on the table itself.
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      for (int c = 0; c < 8; ++c) EXPECT_EQ(table[table[a][b]][c], table[a][table[b][c]]);
}

TEST(D4Group, IdentityInversesAndInvolutions) {
  const auto t = product_table();
  const int po1 = 0, po6 = 5, po7 = 6, po8 = 7;
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(t[po1][g], g);
    EXPECT_EQ(t[g][po1], g);
  }
  EXPECT_EQ(t[po6][po8], po1);
  EXPECT_EQ(t[po8][po6], po1);
  EXPECT_EQ(t[po7][po7], po1);
  EXPECT_EQ(t[po6][po6], po7);  // two quarter turns make a half turn
  for (int reflection : {1, 2, 3, 4}) EXPECT_EQ(t[reflection][reflection], po1);
  // D4 is not abelian: a reflection and a quarter turn do not commute.
  EXPECT_NE(t[1][po6], t[po6][1]);
}

TEST(D4Group, MatchesTheSquareSymmetriesOfTheFrontEnd) {
  std::mt19937 rng(3);
  std::set<Sym> used;
  for (PermOp op : kAllPermOps) used.insert(square_symmetry(op));
  EXPECT_EQ(used.size(), 8u);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 1 + trial % 12;
    const Perm p = random_perm(n, rng);
    for (PermOp op : kAllPermOps) {
      const Perm q = apply_op(op, p);
      std::set<std::pair<int, int>> moved, expected;
      for (int i = 0; i < n; ++i) {
        const Square s = apply(square_symmetry(op), Square{p[i], i}, n);
        moved.insert({s.row, s.col});
        expected.insert({q[i], i});
      }
      EXPECT_EQ(moved, expected) << info(op).name;
    }
  }
}

TEST(D4Group, ImagesOfSolutionsAreSolutions) {
  for (int n = 1; n <= 9; ++n)
    for (const Perm& p : solutions(n)) {
      ASSERT_TRUE(is_solution(p));
      for (PermOp op : kAllPermOps) EXPECT_TRUE(is_solution(apply_op(op, p))) << info(op).name;
    }
}

TEST(Orbits, SizesAndCanonicalForms) {
  // (2,4,1,3): fixed by the quarter turn, so its orbit has two members.
  const OrbitInfo o = orbit_of(one_based({2, 4, 1, 3}));
  EXPECT_EQ(o.size, 2);
  EXPECT_EQ(o.canonical, one_based({2, 4, 1, 3}));
  EXPECT_EQ(o.stabilizer, 0xe1);  // po1, po6, po7, po8
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const Perm p = random_perm(1 + trial % 10, rng);
    const OrbitInfo info = orbit_of(p);
    EXPECT_EQ(is_canonical(p), info.canonical == p);
    EXPECT_EQ(8 / std::popcount(static_cast<unsigned>(info.stabilizer)), info.size);
    for (const Perm& img : info.images) EXPECT_EQ(canonical_form(img), info.canonical);
  }
}

TEST(Orbits, EnumerationMatchesTheTableAndTheBruteForce) {
  for (int n = 1; n <= 12; ++n) {
    auto orbits = enumerate_orbits(n);
    ASSERT_TRUE(orbits.ok());
    std::uint64_t total = 0;
    std::map<int, long long> by_size;
    for (const Orbit& o : *orbits) {
      EXPECT_TRUE(is_solution(o.canonical));
      EXPECT_TRUE(is_canonical(o.canonical));
      total += static_cast<std::uint64_t>(o.size);
      ++by_size[o.size];
      if (n > 1) {
        EXPECT_TRUE(o.size == 8 || o.size == 4 || o.size == 2);
      }
    }
    const auto known = known_value(n);
    ASSERT_TRUE(known);
    EXPECT_EQ(orbits->size(), known->unique) << n;
    EXPECT_EQ(total, known->total) << n;
    EXPECT_TRUE(std::is_sorted(orbits->begin(), orbits->end(), [](const Orbit& a, const Orbit& b) {
      return a.canonical < b.canonical;
    }));
    if (n <= 8) {
      const test::BruteCounts b = test::brute_counts(n);
      EXPECT_EQ(by_size[2], b.u2);
      EXPECT_EQ(by_size[4], b.u4);
      EXPECT_EQ(by_size[8], b.u8);
    }
  }
  EXPECT_FALSE(enumerate_orbits(0).ok());
  EXPECT_FALSE(enumerate_orbits(kMaxOrbitsN + 1).ok());
}

TEST(Enumeration, EverySolutionOnceInLexicographicOrder) {
  for (int n = 1; n <= 12; ++n) {
    std::vector<Perm> all = solutions(n);
    EXPECT_EQ(all.size(), known_value(n)->total) << n;
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
    for (const Perm& p : all) {
      ASSERT_TRUE(is_permutation(p));
      ASSERT_TRUE(is_solution(p));
    }
  }
  // The brute force over all permutations gives the same list (n <= 8).
  for (int n = 1; n <= 8; ++n) EXPECT_EQ(solutions(n), test::all_solutions(n)) << n;
  int seen = 0;
  EXPECT_FALSE(for_each_solution(10, [&](const int*) { return ++seen < 5; }));
  EXPECT_EQ(seen, 5);
}

TEST(Signature, HandWorkedExample) {
  // (2,4,1,3): (2,4,1) -> (1+4, |1-8+2|, 1+9) = (5,5,10); (4,1,3) -> (10,5,5).
  const Signature s = signature(one_based({2, 4, 1, 3}));
  const std::vector<SignatureTriple> x{{5, 5, 10}, {10, 5, 5}};
  EXPECT_EQ(s.x, x);
  // The inverse of (2,4,1,3) is (3,1,4,2): (3,1,4) -> (5,5,10); (1,4,2) -> (10,5,5).
  EXPECT_EQ(s.y, x);
  // Reversal reverses Sig_x and swaps the lengths in each triple; Inv swaps x and y.
  const Perm p = one_based({1, 5, 8, 6, 3, 7, 2, 4});
  const Signature r = signature(reverse(p));
  ASSERT_EQ(r.x.size(), 6u);
  const Signature base = signature(p);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(r.x[i].ab2, base.x[5 - i].bc2);
    EXPECT_EQ(r.x[i].bc2, base.x[5 - i].ab2);
  }
  EXPECT_EQ(signature(inverse(p)).x, base.y);
  EXPECT_TRUE(same_signature(base, r));
  EXPECT_TRUE(same_signature(base, signature(inverse(p))));
}

// Equal on every member of an orbit; different between orbits. A counterexample to the
// paper's claim would make check_signatures list the colliding pair; here it must list none.
void expect_signatures_separate_orbits(int n) {
  auto orbits = enumerate_orbits(n);
  ASSERT_TRUE(orbits.ok());
  const SignatureCheck check = check_signatures(*orbits);
  EXPECT_TRUE(check.not_invariant.empty()) << n;
  EXPECT_EQ(check.distinct, orbits->size()) << n;
  for (const SignatureCollision& c : check.collisions) {
    std::string a, b;
    for (int v : (*orbits)[c.first].canonical) a += std::to_string(v + 1) + ",";
    for (int v : (*orbits)[c.second].canonical) b += std::to_string(v + 1) + ",";
    ADD_FAILURE() << "counterexample at n = " << n << ": " << a << " and " << b;
  }
}

TEST(Signature, SeparatesOrbitsUpTo12) {
  for (int n = 1; n <= 12; ++n) expect_signatures_separate_orbits(n);
  // Independently of check_signatures: every pair of orbits for n <= 9, and every member.
  for (int n = 4; n <= 9; ++n) {
    auto orbits = *enumerate_orbits(n);
    for (std::size_t a = 0; a < orbits.size(); ++a) {
      const Signature sa = signature(orbits[a].canonical);
      for (PermOp op : kAllPermOps)
        EXPECT_TRUE(same_signature(sa, signature(apply_op(op, orbits[a].canonical))));
      for (std::size_t b = a + 1; b < orbits.size(); ++b)
        EXPECT_FALSE(same_signature(sa, signature(orbits[b].canonical)));
    }
  }
}

// The key made in place (check_signatures' form) is the key of the built signature: for every
// member of every orbit to n = 9, and for random permutations on both sides of the 64 rows that
// the inverse keeps on the stack.
TEST(Signature, KeyMadeInPlaceIsTheKeyOfTheSignature) {
  auto in_place = [](const Perm& p) {
    SignatureKey key(signature_key_size(static_cast<int>(p.size())));
    signature_key_into(p.data(), static_cast<int>(p.size()), key.data());
    return key;
  };
  for (int n = 1; n <= 9; ++n) {
    const auto orbits = enumerate_orbits(n);
    ASSERT_TRUE(orbits.ok());
    for (const Orbit& o : *orbits)
      for (PermOp op : kAllPermOps) {
        const Perm q = apply_op(op, o.canonical);
        EXPECT_EQ(in_place(q), signature_key(signature(q))) << n;
      }
  }
  std::mt19937 rng(13);
  for (int n : {3, 4, 5, 63, 64, 65, 200})
    for (int trial = 0; trial < 20; ++trial) {
      const Perm p = random_perm(n, rng);
      const SignatureKey key = in_place(p);
      ASSERT_EQ(key.size(), n < 3 ? 0u : 6u * (n - 2));
      EXPECT_EQ(key, signature_key(signature(p))) << n;
    }
}

TEST(Signature, ACollisionIsReported) {
  // Two members of one orbit passed off as two orbits: the check must name the pair.
  const Perm p = one_based({1, 5, 8, 6, 3, 7, 2, 4});
  const std::vector<Orbit> fake{
      {p, 8}, {apply_op(PermOp::kPo6, p), 8}, {one_based({2, 4, 1, 3}), 2}};
  const SignatureCheck check = check_signatures(fake);
  EXPECT_EQ(check.distinct, 2u);
  ASSERT_EQ(check.collisions.size(), 1u);
  EXPECT_EQ(std::min(check.collisions[0].first, check.collisions[0].second), 0u);
  EXPECT_EQ(std::max(check.collisions[0].first, check.collisions[0].second), 1u);
}

TEST(SlowSignature, SeparatesOrbitsUpTo16) {
  for (int n = 13; n <= 16; ++n) expect_signatures_separate_orbits(n);
}

Expected<Perm> edit(const Perm& p, EditKind kind, std::initializer_list<int> doubled) {
  Edit e;
  e.kind = kind;
  const std::vector<int> v(doubled);
  e.row2 = v[0];
  e.col2 = v[1];
  if (v.size() == 4) {
    e.new_row2 = v[2];
    e.new_col2 = v[3];
  }
  return apply_edit(p, e);
}

TEST(Operators, HandWorkedExamples) {
  const Perm p = one_based({2, 4, 1, 3});
  // Inc(0.5, 0.5): every row moves up, and the new first column holds row 1.
  EXPECT_EQ(*edit(p, EditKind::kInc, {1, 1}), one_based({1, 3, 5, 2, 4}));
  // Inc(4.5, 4.5): nothing moves, a new last column holds row 5.
  EXPECT_EQ(*edit(p, EditKind::kInc, {9, 9}), one_based({2, 4, 1, 3, 5}));
  // Inc(2.5, 1.5): rows 3 and 4 move up; the new column 2 holds row 3.
  EXPECT_EQ(*edit(p, EditKind::kInc, {5, 3}), one_based({2, 3, 5, 1, 4}));
  // Del(1, 1) undoes the first Inc.
  EXPECT_EQ(*edit(one_based({1, 3, 5, 2, 4}), EditKind::kDel, {2, 2}), p);
  // Del(4, 2): column 2 goes, nothing is above row 4.
  EXPECT_EQ(*edit(p, EditKind::kDel, {8, 4}), one_based({2, 1, 3}));
  // Mov(2, 1, 4.5, 4.5): Del(2, 1) leaves (3,1,2); the gaps 4.5 lie above the removed row and
  // column, so they become 3.5: (3,1,2,4).
  EXPECT_EQ(*edit(p, EditKind::kMov, {4, 2, 9, 9}), one_based({3, 1, 2, 4}));
  // Mov(4, 2, 0.5, 0.5): Inc(0.5, 0.5) first gives (1,3,5,2,4), the old queen is now at (5, 3);
  // removing it leaves (1,3,2,4).
  EXPECT_EQ(*edit(p, EditKind::kMov, {8, 4, 1, 1}), one_based({1, 3, 2, 4}));
}

TEST(Operators, BadPositionsAreErrors) {
  const Perm p = one_based({2, 4, 1, 3});
  EXPECT_FALSE(edit(p, EditKind::kInc, {2, 1}).ok());   // 1 is not a gap
  EXPECT_FALSE(edit(p, EditKind::kInc, {11, 1}).ok());  // 5.5 > n + 0.5
  EXPECT_FALSE(edit(p, EditKind::kDel, {2, 4}).ok());   // no queen at row 1, column 2
  EXPECT_FALSE(edit(p, EditKind::kDel, {3, 2}).ok());   // 1.5 is not a row
  EXPECT_FALSE(edit(p, EditKind::kDel, {10, 2}).ok());  // row 5 does not exist
  EXPECT_FALSE(edit(p, EditKind::kMov, {4, 2, 2, 1}).ok());
  EXPECT_FALSE(edit(p, EditKind::kMov, {2, 2, 1, 1}).ok());
  EXPECT_FALSE(apply_edit(Perm{0, 0}, Edit{}).ok());  // not a permutation
}

TEST(Operators, DelUndoesIncAndMovOrdersItsSteps) {
  std::mt19937 rng(17);
  std::vector<Perm> cases = solutions(8);
  for (int k = 0; k < 50; ++k) cases.push_back(random_perm(1 + k % 9, rng));
  for (const Perm& p : cases) {
    const int n = static_cast<int>(p.size());
    for (int rg = 0; rg <= n; ++rg)
      for (int cg = 0; cg <= n; ++cg) {
        const Perm grown = insert_queen(p, rg, cg);
        ASSERT_TRUE(is_permutation(grown));
        EXPECT_EQ(grown[cg], rg);
        EXPECT_EQ(delete_queen(grown, cg), p);  // Del∘Inc = identity
      }
    for (int col = 0; col < n; ++col) {
      const int row = p[col];
      // A move to a gap next to the queen's own square leaves everything where it was.
      for (int rg : {row, row + 1})
        for (int cg : {col, col + 1}) EXPECT_EQ(move_queen(p, col, rg, cg), p);
      // Inc-then-Del (move_queen) and Del-then-Inc with the gaps shifted agree.
      for (int rg = 0; rg <= n; ++rg)
        for (int cg = 0; cg <= n; ++cg) {
          const Perm del_first =
              insert_queen(delete_queen(p, col), rg - (rg > row ? 1 : 0), cg - (cg > col ? 1 : 0));
          EXPECT_EQ(move_queen(p, col, rg, cg), del_first);
        }
    }
  }
}

TEST(AlgebraicSearch, AgreesWithEnumerationFrom5To10) {
  for (int n = 1; n <= nq::test_support::sized(10, 9); ++n) {
    auto grown = algebraic_orbits(n);
    ASSERT_TRUE(grown.ok());
    auto listed = enumerate_orbits(n);
    ASSERT_EQ(grown->orbits.size(), listed->size()) << n;
    for (std::size_t i = 0; i < listed->size(); ++i) {
      EXPECT_EQ(grown->orbits[i].canonical, (*listed)[i].canonical);
      EXPECT_EQ(grown->orbits[i].size, (*listed)[i].size);
    }
    const AlgebraicLevel& top = grown->levels.back();
    EXPECT_EQ(top.n, n);
    EXPECT_EQ(top.orbits, listed->size());
    if (n > 4) {
      EXPECT_EQ(top.inc_steps, static_cast<std::uint64_t>(top.seeds) * n * n);
      EXPECT_LE(top.from_inc, top.from_mov);
      EXPECT_LE(top.from_mov, top.orbits);
      EXPECT_GT(top.mov_steps, 0u);
    }
  }
  EXPECT_FALSE(algebraic_orbits(kMaxAlgebraicN + 1).ok());
}

TEST(DynamicProgramme, AgreesWithTheTable) {
  for (int n = 1; n <= 12; ++n) {
    auto r = count_by_closed_lines(n);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->total, known_value(n)->total) << n;
    EXPECT_GE(r->peak_states, 1u);
  }
  EXPECT_FALSE(count_by_closed_lines(0).ok());
  EXPECT_FALSE(count_by_closed_lines(kMaxDpN + 1).ok());
}

// The states of each row split across tasks: the same total as the table at 1 and 2 threads,
// and the same peak and merges (the distinct closed-line sets do not depend on the cut).
TEST(DynamicProgramme, ThreadsGiveTheSameResults) {
  for (int n = 1; n <= 12; ++n) {
    auto one = count_by_closed_lines(n, 1);
    auto two = count_by_closed_lines(n, 2);
    ASSERT_TRUE(one.ok() && two.ok()) << n;
    EXPECT_EQ(one->threads, 1);
    EXPECT_EQ(two->threads, 2);
    EXPECT_EQ(one->total, known_value(n)->total) << n;
    EXPECT_EQ(two->total, known_value(n)->total) << n;
    EXPECT_EQ(two->peak_states, one->peak_states) << n;
    EXPECT_EQ(two->merges, one->merges) << n;
  }
  EXPECT_FALSE(count_by_closed_lines(8, -1).ok());
}

TEST(SlowDynamicProgramme, AgreesWithTheTableTo14) {
  for (int n = 13; n <= 14; ++n) EXPECT_EQ(count_by_closed_lines(n)->total, known_value(n)->total);
}

}  // namespace
}  // namespace nq
