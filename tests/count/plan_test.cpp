// The front end: the canonical classes, with their weights, cover every solution exactly as
// the weights claim. Checked against brute force, not against the table.
#include "engine/count/plan.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <map>
#include <set>

#include "engine/count/dealer.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"
#include "tests/brute_force.hpp"
#include "tests/support/testing.hpp"

namespace nq {

using namespace detail;  // the splits (splits.hpp) are what this file tests, beside the plans
namespace {

bool in_class(const ClassPrefix& c, const test::Perm& s) {
  for (int r = 0; r < static_cast<int>(s.size()); ++r) {
    const int fixed = c.fixed.col_of_row(r);
    if (fixed >= 0 && s[r] != fixed) return false;
    if (fixed < 0 && ((c.forbidden[r] >> s[r]) & 1u)) return false;
  }
  return true;
}

std::vector<ClassPrefix> classes(int n) {
  std::vector<ClassPrefix> out;
  for_each_class(n, [&](const ClassPrefix& c) { out.push_back(c); });
  return out;
}

// Every solution orbit meets exactly one class, in exactly one orbit of the class's
// stabilizer H: |O ∩ class| = |H| / |Stab_H(s)|.
TEST(Frontend, ClassesPartitionTheOrbitsAsTheWeightsSay) {
  for (int n = 4; n <= 10; ++n) {
    const auto cls = classes(n);
    std::set<test::Perm> seen_orbits;
    for (const test::Perm& s : test::all_solutions(n)) {
      auto imgs = test::images(s);
      const std::set<test::Perm> orbit(imgs.begin(), imgs.end());
      if (!seen_orbits.insert(*orbit.begin()).second) continue;
      int meeting = 0;
      for (const ClassPrefix& c : cls) {
        int members = 0;
        for (const test::Perm& o : orbit) members += in_class(c, o);
        if (members == 0) continue;
        ++meeting;
        // Stab_H(s) for a member: the elements of H that fix it (H only holds rotations
        // that can fix a solution; reflections never do for n > 1).
        const test::Perm* member = nullptr;
        for (const test::Perm& o : orbit)
          if (in_class(c, o)) member = &o;
        const auto mi = test::images(*member);
        int stab_h = 0;
        for (int g = 0; g < 8; ++g) stab_h += ((c.stabilizer >> g) & 1u) && mi[g] == *member;
        EXPECT_EQ(members, std::popcount(static_cast<unsigned>(c.stabilizer)) / stab_h)
            << "n=" << n;
      }
      EXPECT_EQ(meeting, 1) << "n=" << n;
    }
  }
}

TEST(Frontend, WeightedCompletionsSumToTheBruteForceTotal) {
  for (int n = 4; n <= 10; ++n) {
    const auto sols = test::all_solutions(n);
    long long weighted = 0, by_kernel = 0;
    for (const ClassPrefix& c : classes(n)) {
      long long members = 0;
      for (const auto& s : sols) members += in_class(c, s);
      weighted += c.weight() * members;
      by_kernel +=
          c.weight() * static_cast<long long>(count_one_scalar(class_subproblem(c)).solutions);
    }
    EXPECT_EQ(weighted, static_cast<long long>(sols.size())) << n;
    EXPECT_EQ(by_kernel, static_cast<long long>(sols.size())) << n;
  }
}

TEST(Frontend, FixedCompletionCountsMatchBruteForce) {
  for (int n = 4; n <= 10; ++n) {
    const auto sols = test::all_solutions(n);
    for (const ClassPrefix& c : classes(n))
      for (Sym g : {Sym::kRot180, Sym::kRot90}) {
        if (!(c.stabilizer & sym_bit(g))) continue;
        std::uint64_t want = 0;
        for (const auto& s : sols)
          want += in_class(c, s) && test::images(s)[static_cast<int>(g)] == s;
        EXPECT_EQ(count_fixed_completions(c.fixed, c.forbidden, g), want) << n;
      }
    // Whole board (the Burnside route of the classic kernel).
    for (Sym g : {Sym::kRot180, Sym::kRot90}) {
      std::uint64_t want = 0;
      for (const auto& s : sols) want += test::images(s)[static_cast<int>(g)] == s;
      EXPECT_EQ(count_fixed_completions(Placement(n), nullptr, g), want) << n;
    }
  }
}

// The bitboard half-turn search behind the row-split plan's Burnside terms, against the
// brute force (n = 4..10) and against the generic orbit-placing search (to n = 14, both
// parities and every n mod 4: the quarter turn fixes solutions only for n = 0, 1 mod 4).
TEST(Frontend, WholeBoardSymmetricCountsMatchBothSearches) {
  for (int n = 4; n <= 14; ++n) {
    std::uint64_t want180 = 0, want90 = 0;
    if (n <= 10) {
      for (const auto& s : test::all_solutions(n)) {
        want180 += test::images(s)[static_cast<int>(Sym::kRot180)] == s;
        want90 += test::images(s)[static_cast<int>(Sym::kRot90)] == s;
      }
    } else {
      want180 = count_fixed_completions(Placement(n), nullptr, Sym::kRot180);
      want90 = count_fixed_completions(Placement(n), nullptr, Sym::kRot90);
    }
    const SymmetricCounts got = whole_board_symmetric(n);
    EXPECT_EQ(got.sym2, want90) << n;
    EXPECT_EQ(got.sym4, want180 - want90) << n;
    if (n % 4 == 2 || n % 4 == 3) {
      EXPECT_EQ(got.sym2, 0u) << n;
    }
    if (n >= 8) {
      EXPECT_GT(got.sym4, 0u) << n;  // not a vacuous comparison
    }
  }
}

TEST(Plan, WholeBoardSymmetricStopsWhenCancelled) {
  std::atomic<bool> cancel{false};
  const SymmetricCounts whole = whole_board_symmetric(12, &cancel);
  EXPECT_TRUE(whole.complete);
  EXPECT_GT(whole.sym4, 0u);
  cancel = true;
  const SymmetricCounts stopped = whole_board_symmetric(12, &cancel);
  EXPECT_FALSE(stopped.complete);
  EXPECT_EQ(stopped.sym4 + stopped.sym2, 0u);  // stopped before its first queen
}

TEST(Frontend, SplittingKeepsTheCount) {
  for (int n = 6; n <= 12; ++n)
    for (int split = 0; split <= 4; ++split) {
      const Plan a = plan_canonical(n, 0), b = plan_canonical(n, split);
      auto weighted = [](const Plan& p) {
        u128 t = 0;
        for (std::size_t i = 0; i < p.subproblems.size(); ++i)
          t += static_cast<u128>(p.weights[i]) * count_one_scalar(p.subproblems[i]).solutions;
        return t;
      };
      EXPECT_TRUE(weighted(a) == weighted(b)) << n << " " << split;
      for (const Subproblem& sub : b.subproblems) EXPECT_GE(sub.rows, std::min(n - split, 2));
    }
}

// The join's plan: one subproblem per orbit of row splits under the flip and the mirror, each
// weighted by its orbit's size. Its weighted completions (counted by the scalar search, not the
// join) must give the brute-force total, and its size must be what rowsplit_subproblems says
// without building it.
TEST(Frontend, RowSplitPlanWeightsGiveTheBruteForceTotal) {
  for (int n = 4; n <= 10; ++n) {
    std::vector<Subproblem> subproblems;
    std::vector<std::uint8_t> weights;
    rowsplit_all(n, subproblems, weights);
    ASSERT_EQ(subproblems.size(), weights.size());
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < subproblems.size(); ++i) {
      EXPECT_TRUE(weights[i] == 2 || weights[i] == 4) << n;
      total += weights[i] * count_one_scalar(subproblems[i]).solutions;
    }
    EXPECT_EQ(total, test::all_solutions(n).size()) << n;
  }
}

// Odd n: a subproblem fixes the west rows only; the middle column goes with the east half, its
// queen free in one or more of the other rows, and every row's squares lie in one half (so the
// join takes its settled path). Most subproblems leave the middle queen several rows.
TEST(Frontend, OddRowSplitPlanLeavesTheMiddleQueenSeveralRows) {
  for (int n : {9, 11, 13}) {
    std::vector<Subproblem> subproblems;
    std::vector<std::uint8_t> weights;
    rowsplit_all(n, subproblems, weights);
    const int h = n / 2;
    const Mask west = (Mask{1} << h) - 1, middle = Mask{1} << h,
               east = subproblems[0].full & ~west & ~middle;
    std::size_t several = 0;
    for (const Subproblem& s : subproblems) {
      int west_rows = 0, middle_rows = 0;
      for (int i = 0; i < n; ++i) {
        const Mask free = open_row_squares(s, i);
        ASSERT_TRUE((free & west) == 0 || (free & (east | middle)) == 0) << n;
        west_rows += (free & west) != 0;
        middle_rows += (free & middle) != 0;
      }
      EXPECT_EQ(west_rows, h) << n;
      EXPECT_GE(middle_rows, 1) << n;
      several += middle_rows > 1;
    }
    EXPECT_GT(several, subproblems.size() / 2) << n;
  }
}

// The runs the join's tests and benchmark take: run w holds the representatives that follow
// rank (2w + 1) / (2 windows) of the plan, in rank order, as many as asked for (fewer where the
// plan ends first).
TEST(Frontend, RowSplitRunsAreConsecutiveRepresentatives) {
  for (int n : {13, 14, 15}) {
    std::vector<Subproblem> all, runs;
    std::vector<std::uint8_t> all_weights, run_weights;
    rowsplit_all(n, all, all_weights);
    const std::uint64_t ranks = row_splits(n);
    const int windows = 3, run = 5;
    test_support::rowsplit_runs(n, windows, run, runs, run_weights);
    ASSERT_EQ(run_weights.size(), runs.size());
    std::size_t at = 0;  // in runs
    for (int w = 0; w < windows; ++w) {
      // The representatives below the run's first rank come before it in `all`.
      std::size_t first = 0;
      for (std::uint64_t r = 0; r < ranks * static_cast<std::uint64_t>(2 * w + 1) / (2 * windows);
           ++r)
        first += rowsplit_key(n, r).weight != 0;
      for (std::size_t i = 0; i < static_cast<std::size_t>(run) && first + i < all.size();
           ++i, ++at) {
        ASSERT_LT(at, runs.size()) << n << " " << w;
        const Subproblem& got = runs[at];
        const Subproblem& want = all[first + i];
        EXPECT_EQ(run_weights[at], all_weights[first + i]);
        EXPECT_EQ(got.rows, want.rows);
        for (int row = 0; row < got.rows; ++row)
          EXPECT_EQ(open_row_squares(got, row), open_row_squares(want, row)) << n << " " << w;
      }
    }
    EXPECT_EQ(at, runs.size()) << n;
    EXPECT_GT(at, static_cast<std::size_t>(run)) << n;
  }
}

TEST(Frontend, RowSplitPlanSizeFormulaMatchesThePlan) {
  for (int n = 4; n <= 23; ++n) {
    std::vector<Subproblem> subproblems;
    std::vector<std::uint8_t> weights;
    rowsplit_all(n, subproblems, weights);
    EXPECT_EQ(rowsplit_subproblems(n), subproblems.size()) << n;
  }
}

// The representatives the ranks pick: one per orbit of the row splits under the flip and the
// mirror, checked against the orbits themselves (every split of a small board, its four images).
// A split is (r, E): the middle queen's row (odd n; -1 for even n) and the east rows, the west
// rows being the others.
void expect_one_representative_per_orbit(int n, OddSplit shape) {
  const int h = n / 2;
  const bool odd = n % 2 == 1;
  auto flip = [&](std::uint32_t set) {
    std::uint32_t f = 0;
    for (int i = 0; i < n; ++i)
      if (set >> i & 1u) f |= 1u << (n - 1 - i);
    return f;
  };
  const std::uint32_t all_rows = (1u << n) - 1;
  std::map<std::pair<int, std::uint32_t>, int> seen;  // every split of a ranked orbit
  std::uint32_t previous_west = 0;
  for (std::uint64_t rank = 0; rank < row_splits(n, shape); ++rank) {
    const RowSplitKey key = rowsplit_key(n, rank, shape);
    const std::uint32_t west = all_rows & ~key.east;
    if (odd) {
      ASSERT_EQ(std::popcount(west), h);
      ASSERT_EQ(key.middle_rows & ~key.east, 0u) << "the middle queen stands in an east row";
      if (shape == OddSplit::kByWestRows) {
        EXPECT_LE(previous_west, west) << "ranks in increasing west rows";
        previous_west = west;
      } else {
        ASSERT_EQ(std::popcount(key.middle_rows), 1) << "one middle row per rank";
      }
    } else {
      ASSERT_EQ(std::popcount(key.east), h);
      ASSERT_FALSE(key.east >> (n - 1) & 1u);
      ASSERT_EQ(key.middle_rows, 0u);
    }
    if (key.weight == 0) continue;
    // The splits the key holds: one per middle row (odd n), the one E (even n).
    std::vector<int> middle;
    for (int r = 0; r < n; ++r)
      if (key.middle_rows >> r & 1u) middle.push_back(r);
    if (!odd) middle.push_back(-1);
    ASSERT_FALSE(middle.empty());
    for (const int r : middle) {
      const std::uint32_t east = key.east & ~(odd ? 1u << r : 0u);
      const int fr = odd ? n - 1 - r : -1;
      const std::set<std::pair<int, std::uint32_t>> orbit = {
          {r, east}, {r, west}, {fr, flip(east)}, {fr, flip(west)}};
      EXPECT_EQ(static_cast<int>(orbit.size()), key.weight) << n;
      for (const auto& member : orbit) EXPECT_TRUE(seen.emplace(member, key.weight).second) << n;
    }
  }
  // Every split belongs to exactly one ranked orbit: seen holds all of them.
  const int m = odd ? n - 1 : n;  // the rows besides r
  std::uint64_t per_row = 1;
  for (int i = 1; i <= h; ++i) per_row = per_row * static_cast<std::uint64_t>(m - h + i) / i;
  const std::uint64_t all = per_row * static_cast<std::uint64_t>(odd ? n : 1);
  EXPECT_EQ(seen.size(), all) << n;
}

TEST(Frontend, RowSplitsPickOneRepresentativePerOrbit) {
  for (int n = 4; n <= 13; ++n)
    for (const OddSplit shape : {OddSplit::kByWestRows, OddSplit::kByMiddleRow})
      expect_one_representative_per_orbit(n, shape);
}

TEST(Frontend, OddBoardsPickTheirSplitBySize) {
  EXPECT_EQ(odd_split(kOddByWestRowsMaxN), OddSplit::kByWestRows);
  EXPECT_EQ(odd_split(kOddByWestRowsMaxN + 2), OddSplit::kByMiddleRow);
  // Where the plan splits by middle row, its size is Burnside's (checked against every rank of
  // that shape at small n by the representatives test) and every middle row is forced.
  for (int n : {25, 27}) {
    EXPECT_LT(rowsplit_subproblems(n), row_splits(n)) << n;
    EXPECT_GT(4 * rowsplit_subproblems(n), row_splits(n)) << n;
    for (std::uint64_t rank = 0; rank < row_splits(n); rank += row_splits(n) / 7)
      EXPECT_EQ(std::popcount(rowsplit_key(n, rank).middle_rows), 1) << n;
  }
}

// A part of a subproblem (the estimate's check at large n): its first rows each hold one queen,
// on a square the subproblem leaves open and no queen above attacks; the other rows are the
// subproblem's; the same seed gives the same part. Over the open squares of the first row, the
// parts' counts add up to the subproblem's.
TEST(Frontend, FixFirstRowsCutsASubproblemIntoParts) {
  int partitioned = 0;
  for (int n : {9, 10, 13, 16}) {
    for (std::uint64_t rank = 0; rank < row_splits(n); rank += row_splits(n) / 24 + 1) {
      const RowSplitKey key = rowsplit_key(n, rank);
      if (key.weight == 0) continue;
      const Subproblem s = rowsplit_subproblem(n, key);
      for (int rows = 0; rows <= 3; ++rows)  // none fixed: s itself
        for (std::uint64_t seed = 0; seed < 8; ++seed) {
          const Subproblem part = fix_first_rows(s, rows, seed);
          const Subproblem again = fix_first_rows(s, rows, seed);
          std::vector<std::pair<int, int>> queens;  // (row, column)
          for (int i = 0; i < n; ++i) {
            EXPECT_EQ(again.blocked[i], part.blocked[i]);
            const Mask open = open_row_squares(part, i);
            if (i >= rows) {
              EXPECT_EQ(part.blocked[i], s.blocked[i]) << n << " " << i;
              continue;
            }
            EXPECT_LE(std::popcount(open), 1) << n << " " << i;
            EXPECT_EQ(open & ~open_row_squares(s, i), 0u) << n << " " << i;
            if (open != 0) queens.emplace_back(i, std::countr_zero(open));
          }
          for (std::size_t a = 0; a < queens.size(); ++a)
            for (std::size_t b = a + 1; b < queens.size(); ++b) {
              const int dr = queens[b].first - queens[a].first;
              const int dc = queens[b].second - queens[a].second;
              EXPECT_TRUE(dc != 0 && dc != dr && dc != -dr) << n << " attacking queens";
            }
        }
      if (n > 13) continue;
      // Every open square of the first row, from some seed: the parts partition s.
      std::map<Mask, std::uint64_t> by_square;
      for (std::uint64_t seed = 0; seed < 256; ++seed) {
        const Subproblem part = fix_first_rows(s, 1, seed);
        by_square[open_row_squares(part, 0)] = count_one_scalar(part).solutions;
      }
      EXPECT_EQ(static_cast<int>(by_square.size()), std::popcount(open_row_squares(s, 0))) << n;
      std::uint64_t sum = 0;
      for (const auto& [square, count] : by_square) sum += count;
      EXPECT_EQ(sum, count_one_scalar(s).solutions) << n << " " << rank;
      partitioned += sum > 0;
    }
  }
  EXPECT_GE(partitioned, 12);
}

// A cluster's plan is cut finer (plan_rowsplit's min_tasks): one rank a task at most, every rank
// in exactly one task, and below kMaxRowSplitTasks tasks the plan's own cut.
TEST(Plan, RowSplitTasksFollowTheCluster) {
  EXPECT_EQ(rowsplit_block(1000, 0), 1u);
  EXPECT_EQ(rowsplit_block(1000, 1u << 30), 1u);
  EXPECT_EQ(rowsplit_block(kMaxRowSplitTasks * 10, 0), 10u);
  EXPECT_EQ(rowsplit_block(kMaxRowSplitTasks * 10 + 1, 0), 11u);
  EXPECT_EQ(rowsplit_block(kMaxRowSplitTasks * 10, kMaxRowSplitTasks * 5), 2u);
  EXPECT_EQ(rowsplit_block(kMaxRowSplitTasks * 10, 3), 10u);  // never coarser than the default
  for (const int n : {25, 28}) {
    const Plan usual = plan_rowsplit(n, false);
    const Plan fine = plan_rowsplit(n, false, {}, 4 * kMaxRowSplitTasks);
    EXPECT_LE(usual.size(), kMaxRowSplitTasks) << n;
    EXPECT_LE(fine.size(), 4 * kMaxRowSplitTasks) << n;  // between half and all of them
    EXPECT_GE(2 * fine.size(), std::min<std::uint64_t>(fine.splits, 4 * kMaxRowSplitTasks)) << n;
    EXPECT_LT(fine.block, usual.block) << n;
    EXPECT_EQ(fine.first_split(0), 0u);
    EXPECT_EQ(fine.end_split(fine.size() - 1), fine.splits) << n;
    for (std::size_t i = 1; i < fine.size(); i += fine.size() / 97)
      EXPECT_EQ(fine.first_split(i), fine.end_split(i - 1)) << n << " " << i;
    const Plan rank_a_task = plan_rowsplit(n, false, {}, usual.splits);
    EXPECT_EQ(rank_a_task.block, 1u) << n;
    EXPECT_EQ(rank_a_task.pieces, 1u) << n;
    EXPECT_EQ(rank_a_task.size(), rank_a_task.splits) << n;
  }
}

// Past one rank a task the plan cuts each rank into pieces (rowsplit_pieces): at most n / 2, the
// tasks under 2^32; task i is piece i % parts of rank i / parts; and a plan cut so is cut again
// so from its number of tasks (a journal's). A cluster asks for pieces from n = 25 only.
TEST(Plan, PastOneSplitATaskASplitIsCutIntoPieces) {
  EXPECT_EQ(rowsplit_pieces(20, 1000, 1999), 1u);
  EXPECT_EQ(rowsplit_pieces(20, 1000, 2000), 2u);
  EXPECT_EQ(rowsplit_pieces(20, 1000, 7999), 7u);
  EXPECT_EQ(rowsplit_pieces(20, 1000, 1u << 30), 10u);  // n / 2
  EXPECT_EQ(rowsplit_pieces(21, 1000, 1u << 30), 10u);
  EXPECT_EQ(rowsplit_pieces(28, std::uint64_t{1} << 30, std::uint64_t{1} << 40), 3u);  // 2^32
  for (const int n : {16, 20, 25}) {
    const Plan whole = plan_rowsplit(n, false);
    for (const std::uint64_t parts : {2u, 3u, 7u}) {
      const Plan cut = plan_rowsplit(n, false, {}, whole.splits * parts);
      ASSERT_EQ(cut.block, 1u) << n;
      ASSERT_EQ(cut.pieces, parts) << n;
      EXPECT_EQ(cut.size(), whole.splits * parts) << n;
      for (std::size_t i = 0; i < cut.size(); i += cut.size() / 89 + 1) {
        EXPECT_EQ(cut.first_split(i), i / parts) << n << " " << i;
        EXPECT_EQ(cut.end_split(i), i / parts + 1) << n << " " << i;
        EXPECT_EQ(cut.piece(i), i % parts) << n << " " << i;
        const SplitSubproblem task = rowsplit_task(cut, i), rank = split_subproblem(cut, i / parts);
        EXPECT_EQ(task.weight, rank.weight) << n << " " << i;
        EXPECT_EQ(open_row_squares(task.subproblem, 0),
                  open_row_squares(rowsplit_piece(rank.subproblem, i % parts, parts), 0))
            << n << " " << i;
      }
      EXPECT_EQ(plan_rowsplit(n, false, {}, cut.size()).pieces, parts) << n;
    }
  }
  const std::uint64_t ranks24 = plan_rowsplit(24, false).splits;
  EXPECT_EQ(cluster_plan_tasks(24, 1u << 20), ranks24);  // a rank a task at most
  EXPECT_EQ(cluster_plan_tasks(24, 64), dealer_plan_tasks(64));
  EXPECT_EQ(cluster_plan_tasks(25, 1u << 20), dealer_plan_tasks(1u << 20));
}

// A rank's pieces share out its solutions: for every representative at n = 9 to 13 and every
// cut up to n / 2, the pieces' first rows split the rank's first row into disjoint non-empty
// sets, and their counts add up to the rank's, by the search (the cross-check's kernels count
// the pieces as subproblems like any other).
TEST(Plan, PiecesOfASplitAddUpToItsCount) {
  for (int n = 9; n <= 13; ++n) {
    std::vector<Subproblem> subproblems;
    std::vector<std::uint8_t> weights;
    rowsplit_all(n, subproblems, weights);
    for (const Subproblem& s : subproblems)
      for (std::uint64_t parts = 2; parts <= static_cast<std::uint64_t>(n / 2); ++parts) {
        std::uint64_t sum = 0;
        Mask seen = 0;
        for (std::uint64_t p = 0; p < parts; ++p) {
          const Subproblem piece = rowsplit_piece(s, p, parts);
          const Mask row = open_row_squares(piece, 0);
          EXPECT_NE(row, 0u) << n;
          EXPECT_EQ(row & seen, 0u) << n;
          seen |= row;
          for (int i = 1; i < s.rows; ++i)
            EXPECT_EQ(open_row_squares(piece, i), open_row_squares(s, i)) << n;
          sum += count_one_scalar(piece).solutions;
        }
        EXPECT_EQ(seen, open_row_squares(s, 0)) << n;
        EXPECT_EQ(sum, count_one_scalar(s).solutions) << n << " parts " << parts;
      }
  }
  const Subproblem none{};
  EXPECT_EQ(rowsplit_piece(none, 0, 3).rows, 0);
}

}  // namespace
}  // namespace nq
