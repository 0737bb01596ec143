// An independent oracle for the tests: every solution of a small board, by plain recursion
// over permutations, with each solution's canonical form and orbit size computed from the
// eight transformations written out directly (nothing shared with the engine).
#pragma once

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>

namespace nq::test {

using Perm = std::vector<int>;  // perm[row] = column, 0-based

// Every solution, in lexicographic order: rows filled one by one, each new queen checked
// against all earlier ones for a shared column or diagonal (plain arrays, no bitboards).
inline std::vector<Perm> all_solutions(int n) {
  std::vector<Perm> out;
  Perm p(n);
  auto place = [&](auto&& self, int row) -> void {
    if (row == n) {
      out.push_back(p);
      return;
    }
    for (int c = 0; c < n; ++c) {
      bool ok = true;
      for (int i = 0; i < row && ok; ++i) ok = p[i] != c && std::abs(p[i] - c) != row - i;
      if (!ok) continue;
      p[row] = c;
      self(self, row + 1);
    }
  };
  place(place, 0);
  return out;
}

// The eight images of a placement given as row -> column.
inline std::array<Perm, 8> images(const Perm& p) {
  const int n = static_cast<int>(p.size());
  std::array<Perm, 8> out;
  for (auto& q : out) q.assign(n, -1);
  for (int r = 0; r < n; ++r) {
    const int c = p[r], m = n - 1;
    const int sq[8][2] = {{r, c},     {c, m - r}, {m - r, m - c}, {m - c, r},
                          {m - r, c}, {r, m - c}, {c, r},         {m - c, m - r}};
    for (int g = 0; g < 8; ++g) out[g][sq[g][0]] = sq[g][1];
  }
  return out;
}

struct BruteCounts {
  long long total = 0, unique = 0, u1 = 0, u2 = 0, u4 = 0, u8 = 0;
};

inline BruteCounts brute_counts(int n) {
  BruteCounts b;
  std::set<Perm> canon;
  for (const Perm& p : all_solutions(n)) {
    ++b.total;
    auto imgs = images(p);
    std::set<Perm> orbit(imgs.begin(), imgs.end());
    const Perm c = *orbit.begin();
    if (canon.insert(c).second) {
      ++b.unique;
      switch (orbit.size()) {
        case 1:
          ++b.u1;
          break;
        case 2:
          ++b.u2;
          break;
        case 4:
          ++b.u4;
          break;
        case 8:
          ++b.u8;
          break;
      }
    }
  }
  return b;
}

}  // namespace nq::test
