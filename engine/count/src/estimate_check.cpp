// The estimate's check (estimate_stages.hpp): a few subproblems counted whole by the join and by
// the best backtracking kernel, which must agree.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/threads.hpp"
#include "engine/count/src/cost.hpp"
#include "engine/count/src/estimate_stages.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"

namespace nq::detail {
namespace {

// The part of `split`'s subproblem that is checked: its first `rows` rows fixed at random, seeded
// by the seed and the split (all of it with none).
Subproblem checked_part(int n, std::uint64_t split, int rows, std::uint64_t seed) {
  return fix_first_rows(rowsplit_subproblem(n, rowsplit_key(n, split)), rows,
                        seed * 0x2545f4914f6cdd1dull ^ split);
}

// The splits to check: 64 x config.check drawn uniformly among those with a subproblem (seeded),
// the cheapest config.check of them by their checked parts' estimated cost, as (cost, split).
std::vector<std::pair<std::uint64_t, std::uint64_t>> cheapest_checks(const Sampler& s,
                                                                     const EstimateConfig& config) {
  const int n = config.n;
  std::mt19937_64 pick(config.seed ^ 0x636865636bull ^ (static_cast<std::uint64_t>(n) << 48));
  std::uniform_int_distribution<std::uint64_t> any(0, s.plan.splits - 1);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> drawn;
  const std::size_t want = 64 * static_cast<std::size_t>(config.check);
  while (drawn.size() < want)
    if (const std::uint64_t split = any(pick); rowsplit_key(n, split).weight != 0)
      drawn.emplace_back(
          estimate_join_cost(checked_part(n, split, config.check_rows, config.seed), s.probe),
          split);
  std::sort(drawn.begin(), drawn.end());
  drawn.resize(static_cast<std::size_t>(config.check));
  return drawn;
}

// One checked subproblem: the join's and the search's solutions, and the search's CPU seconds.
struct Checked {
  std::uint64_t join = 0, search = 0;
  double seconds = 0;
};

}  // namespace

void check_kernels(const Sampler& s, const EstimateConfig& config, CallArena& arena,
                   EstimateResult& out) {
  const auto drawn = cheapest_checks(s, config);
  std::vector<Checked> checked(drawn.size());
  const Kernel& search = best_kernel();
  arena.execute([&] {
    tbb::parallel_for(std::size_t{0}, drawn.size(), [&](std::size_t i) {
      const Subproblem sub =
          checked_part(config.n, drawn[i].second, config.check_rows, config.seed);
      Tally a, b;
      s.join.count(std::span<const Subproblem>(&sub, 1), std::span<Tally>(&a, 1));
      const double t0 = thread_cpu_seconds();
      search.count(std::span<const Subproblem>(&sub, 1), std::span<Tally>(&b, 1));
      checked[i] = {a.solutions, b.solutions, thread_cpu_seconds() - t0};
    });
  });
  for (std::size_t i = 0; i < checked.size(); ++i) {
    out.check_seconds += checked[i].seconds;
    out.checked_solutions += checked[i].search;
    if (checked[i].join != checked[i].search && out.check_failure.empty())
      out.check_failure = "split " + std::to_string(drawn[i].second) +
                          (config.check_rows > 0
                               ? " (its first " + std::to_string(config.check_rows) + " rows fixed)"
                               : std::string()) +
                          ": the join counted " + std::to_string(checked[i].join) +
                          " solutions, the " + std::string(search.name) + " search " +
                          std::to_string(checked[i].search);
  }
  out.checked = static_cast<int>(checked.size());
  out.check_rows = config.check_rows;
}

}  // namespace nq::detail
