// BLNQ, the swap hill climber of Candia & Astudillo, exactly as they run it: from a uniformly
// random permutation, examine L random neighbours (swap the rows of two random columns), keep a
// swap only if it lowers the collisions, stop at 0 collisions or when the budget of L
// neighbours is spent, and never restart. A run may end with collisions left; the statistics
// of many runs (their tables) are the point, not one solution. `solve --method swap` is the
// restarting variant that always returns a solution.
//
// Collisions: for every diagonal (both directions), the queens on it minus one, summed; 0
// exactly when the permutation is a solution.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/huge_pages.hpp"
#include "common/types.hpp"

namespace nq {

// --method's word for it (solve's other methods are in solve_methods()).
inline constexpr const char* kBlnqMethodName = "blnq";
inline constexpr std::uint64_t kMaxBlnqRuns = 1'000'000;
inline constexpr std::int64_t kMaxBlnqN = 100'000'000;

struct BlnqConfig {
  std::int64_t n = 0;
  std::uint64_t budget = 0;  // L: neighbours examined per run (e.g. n^2 or 3n)
  std::uint64_t runs = 1;
  std::uint64_t seed = 0;  // run k uses a seed derived from (seed, k): any thread count, same runs
  int threads = 0;         // 0: every hardware thread
};

struct BlnqRun {
  std::uint64_t seed = 0;  // this run's own seed
  std::int64_t initial_collisions = 0;
  std::int64_t final_collisions = 0;
  std::uint64_t neighbours = 0;  // neighbours examined (at most the budget)
  std::uint64_t improving = 0;   // swaps kept
  bool success = false;          // final_collisions == 0 (the solution passed verify_solution)
};

struct BlnqResult {
  std::int64_t n = 0;
  std::uint64_t budget = 0;
  std::uint64_t seed = 0;
  int threads = 0;
  std::vector<BlnqRun> runs;
  std::uint64_t successes = 0;
  std::uint64_t distinct_solutions = 0;  // among the successful runs
  double mean_initial = 0, mean_final = 0, mean_neighbours = 0, mean_improving = 0;
  double success_rate = 0;  // successes / runs
  double seconds = 0;
  // The distinct solutions found (0-based rows), in the order of their first run.
  std::vector<Permutation> solutions;
};

Expected<BlnqResult> run_blnq(const BlnqConfig& config, Monitor* monitor = nullptr);

// One run, for tests: `rows` ends as the run's final permutation. `cancel` (if given) is polled
// every 2^16 neighbours: a run stopped by it ends early, as a failure.
BlnqRun blnq_run(std::uint32_t n, std::uint64_t budget, std::uint64_t seed, Permutation& rows,
                 const std::atomic<bool>* cancel = nullptr);

}  // namespace nq
