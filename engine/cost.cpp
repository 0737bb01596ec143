#include "cost.hpp"

#include <algorithm>

#include "frontend.hpp"

namespace nq {
namespace {

std::uint64_t width_at(const Subproblem& s, Mask cols, Mask ld, Mask rd, int row, int depth) {
  if (row == s.rows || depth == 0) return 1;
  Mask avail = ~(cols | ld | rd | s.blocked[row]) & s.full;
  std::uint64_t w = 0;
  while (avail) {
    const Mask bit = avail & (0u - avail);
    avail ^= bit;
    w += width_at(s, cols | bit, (ld | bit) << 1, (rd | bit) >> 1, row + 1, depth - 1);
  }
  return w;
}

}  // namespace

int cost_probe_rows(int n) {
  return std::clamp(n / 4, 2, 5);
}

std::uint64_t estimate_cost(const Subproblem& s, int probe_rows) {
  // +1: a subproblem that dies at once still costs its setup.
  return 1 + width_at(s, s.cols, s.ld, s.rd, 0, probe_rows);
}

std::vector<std::uint64_t> estimate_costs(const Plan& plan) {
  std::vector<std::uint64_t> costs;
  costs.reserve(plan.subproblems.size());
  const int rows = cost_probe_rows(plan.n);
  for (const Subproblem& s : plan.subproblems) costs.push_back(estimate_cost(s, rows));
  return costs;
}

}  // namespace nq
