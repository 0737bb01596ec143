// BLNQ (blnq.hpp): fixed-budget random-pair swap hill climbing, no restarts, with the
// statistics of Candia & Astudillo's tables. Runs are independent TBB tasks, each with its own
// seed derived from (seed, run index), so the statistics do not depend on the thread count.
#include "solve/blnq.hpp"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <set>
#include <string>

#include "common/threads.hpp"
#include "solve/local_search.hpp"
#include "solve/verify.hpp"

namespace nq {

BlnqRun blnq_run(std::uint32_t n, std::uint64_t budget, std::uint64_t seed, Permutation& rows,
                 const std::atomic<bool>* cancel) {
  BlnqRun run;
  run.seed = seed;
  detail::Rng rng(seed);
  rows.resize(n);
  std::iota(rows.begin(), rows.end(), 0u);
  for (std::uint32_t i = 0; i + 1 < n; ++i) std::swap(rows[i], rows[i + rng.below(n - i)]);
  // Queens per diagonal: up[i + r] and down[i - r + n - 1], 2n - 1 of each.
  std::vector<std::uint32_t> up(2 * std::size_t{n}), down(2 * std::size_t{n});
  std::int64_t collisions = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    collisions += up[i + rows[i]]++ > 0;
    collisions += down[i + n - 1 - rows[i]]++ > 0;
  }
  run.initial_collisions = collisions;
  std::uint64_t examined = 0, improving = 0;
  while (collisions > 0 && examined < budget && n > 1) {
    if ((++examined & 0xffff) == 0 && cancel && cancel->load(std::memory_order_relaxed)) break;
    const std::uint32_t i = rng.below(n);
    std::uint32_t j = rng.below(n - 1);
    j += (j >= i);
    const std::uint32_t a = rows[i], b = rows[j];
    // Take both queens off, put them on their swapped squares; undo unless it got better.
    // (Applying and undoing handles the diagonals the four squares share without cases.)
    std::int64_t delta = 0;
    delta -= --up[i + a] > 0;
    delta -= --down[i + n - 1 - a] > 0;
    delta -= --up[j + b] > 0;
    delta -= --down[j + n - 1 - b] > 0;
    delta += up[i + b]++ > 0;
    delta += down[i + n - 1 - b]++ > 0;
    delta += up[j + a]++ > 0;
    delta += down[j + n - 1 - a]++ > 0;
    if (delta < 0) {
      rows[i] = b;
      rows[j] = a;
      collisions += delta;
      ++improving;
      continue;
    }
    --up[i + b], --down[i + n - 1 - b], --up[j + a], --down[j + n - 1 - a];
    ++up[i + a], ++down[i + n - 1 - a], ++up[j + b], ++down[j + n - 1 - b];
  }
  run.final_collisions = collisions;
  run.neighbours = examined;
  run.improving = improving;
  run.success = collisions == 0 && verify_solution(rows.data(), n);
  return run;
}

Expected<BlnqResult> run_blnq(const BlnqConfig& c, Monitor* monitor) {
  if (c.n < 1 || c.n > kMaxBlnqN)
    return Error{"blnq: n must be between 1 and " + std::to_string(kMaxBlnqN) + ", got " +
                 std::to_string(c.n)};
  if (c.runs < 1 || c.runs > kMaxBlnqRuns)
    return Error{"blnq: runs must be between 1 and " + std::to_string(kMaxBlnqRuns) + ", got " +
                 std::to_string(c.runs)};
  if (c.budget < 1) return Error{"blnq: the budget must be at least 1 neighbour"};
  const auto start = std::chrono::steady_clock::now();
  BlnqResult r;
  r.n = c.n;
  r.budget = c.budget;
  r.seed = c.seed;
  r.threads = resolve_threads(c.threads);
  r.runs.resize(c.runs);
  std::vector<Permutation> finals(c.runs);
  const auto n = static_cast<std::uint32_t>(c.n);
  // TBB runs at most the hardware's threads unless told otherwise (and warns on stderr in its
  // own words): --threads above the hardware is honoured, as in count and solve.
  tbb::global_control cap(tbb::global_control::max_allowed_parallelism,
                          static_cast<std::size_t>(r.threads));
  tbb::task_arena arena(r.threads);
  arena.execute([&] {
    tbb::parallel_for(std::uint64_t{0}, c.runs, [&](std::uint64_t k) {
      if (monitor && monitor->cancel.load(std::memory_order_relaxed)) return;
      r.runs[k] = blnq_run(n, c.budget, detail::mix_seed(c.seed, k), finals[k],
                           monitor ? &monitor->cancel : nullptr);
      if (!r.runs[k].success) Permutation().swap(finals[k]);  // keep only the solutions
    });
  });
  if (monitor && monitor->cancel.load()) return Error{"blnq: interrupted"};
  std::set<Permutation> seen;
  for (std::uint64_t k = 0; k < c.runs; ++k) {
    const BlnqRun& run = r.runs[k];
    r.mean_initial += static_cast<double>(run.initial_collisions);
    r.mean_final += static_cast<double>(run.final_collisions);
    r.mean_neighbours += static_cast<double>(run.neighbours);
    r.mean_improving += static_cast<double>(run.improving);
    if (!run.success) continue;
    ++r.successes;
    if (seen.insert(finals[k]).second) r.solutions.push_back(std::move(finals[k]));
  }
  const auto runs = static_cast<double>(c.runs);
  r.mean_initial /= runs;
  r.mean_final /= runs;
  r.mean_neighbours /= runs;
  r.mean_improving /= runs;
  r.success_rate = static_cast<double>(r.successes) / runs;
  r.distinct_solutions = r.solutions.size();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace nq
