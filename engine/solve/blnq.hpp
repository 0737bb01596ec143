// BLNQ, the swap hill climber of Candia & Astudillo, as they run it: from a uniformly random
// permutation, examine random neighbours (swap the rows of two random columns), keep a swap only
// if it lowers the collisions, and never restart. Their try counter goes back to zero after
// every kept swap: the budget L bounds the neighbours examined *in a row* without an improvement,
// and a run ends at 0 collisions or when that counter exceeds L, after L + 1 failed tries in a
// row, as the paper's Figure 3 has it (BlnqBudgetRule::consecutive, the default).
// BlnqBudgetRule::total is the other reading, L neighbours in all, kept for comparison. A run may
// end with collisions left; the statistics of many runs (their tables) are the point, not one
// solution. `solve --method swap` is the restarting variant that always returns a solution.
//
// Collisions: for every diagonal (both directions), the queens on it minus one, summed; 0
// exactly when the permutation is a solution.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "base/huge_pages.hpp"
#include "base/types.hpp"
#include "engine/solve/solve.hpp"
#include "engine/solve/src/local_search.hpp"

namespace nq {

// --method's word for it (solve's other methods are in solve_methods()).
inline constexpr const char* kBlnqMethodName = "blnq";
inline constexpr std::uint64_t kMaxBlnqRuns = 1'000'000;
inline constexpr std::int64_t kMaxBlnqN = 100'000'000;

enum class BlnqBudgetRule {
  consecutive,  // the paper's: a run ends after L + 1 failed tries in a row (reset on improvement)
  total,        // a run ends after L neighbours examined in all
};
// The words --budget-rule takes ("consecutive", "total"); false for anything else.
bool parse_blnq_budget_rule(const std::string& word, BlnqBudgetRule& rule);
const char* blnq_budget_rule_name(BlnqBudgetRule rule);

struct BlnqConfig {
  std::int64_t n = 0;
  std::uint64_t budget = 0;  // L (e.g. n^2 or 3n), read as `rule` says
  std::uint64_t runs = 1;
  std::uint64_t seed = 0;  // run k uses a seed derived from (seed, k): any thread count, same runs
  int threads = 0;         // 0: every hardware thread
  BlnqBudgetRule rule = BlnqBudgetRule::consecutive;
  double time_limit_seconds = 0;  // 0: no limit; else runs not finished by then are dropped
  // Refuse (an Error) a run whose blnq_memory_estimate is above this many bytes; 0: no limit.
  std::uint64_t memory_limit = 0;
};

struct BlnqRun {
  std::uint64_t seed = 0;  // this run's own seed
  std::int64_t initial_collisions = 0;
  std::int64_t final_collisions = 0;
  std::uint64_t neighbours = 0;  // neighbours examined in all
  std::uint64_t improving = 0;   // swaps kept
  bool success = false;          // final_collisions == 0 (the solution passed verify_solution)
  bool stopped = false;          // cut short by the time limit or a cancel: not a result
};

// The four per-run quantities of the paper's tables.
struct BlnqFigures {
  double initial = 0, final_collisions = 0, neighbours = 0, improving = 0;
};

enum class BlnqStatus {
  done,        // every run finished
  time_limit,  // the time limit passed first: the statistics cover the runs finished by then
};

struct BlnqResult {
  std::int64_t n = 0;
  std::uint64_t budget = 0;
  BlnqBudgetRule rule = BlnqBudgetRule::consecutive;
  std::uint64_t seed = 0;
  int threads = 0;
  BlnqStatus status = BlnqStatus::done;
  std::vector<BlnqRun> runs;             // every run asked for, in order (stopped ones flagged)
  std::uint64_t runs_done = 0;           // runs that finished: the statistics are over these
  std::uint64_t successes = 0;           // among the runs done
  std::uint64_t distinct_solutions = 0;  // among the successful runs
  BlnqFigures mean;
  // Standard errors of the means: the sample standard deviation (n - 1) over sqrt(runs done);
  // 0 with fewer than 2 runs done.
  BlnqFigures standard_error;
  double success_rate = 0;  // successes / runs done
  double seconds = 0;
  bool verified = false;  // every one of `solutions` passed verify_solution
  // The distinct solutions found (0-based rows), in the order of their first run.
  std::vector<Permutation> solutions;
};

// Errors: a config out of range, a run above config.memory_limit, memory or a thread the system
// refused (never an exception), or "blnq: interrupted" when monitor->cancel stopped it (within
// a fraction of a second at any n, as the time limit does).
Expected<BlnqResult> run_blnq(const BlnqConfig& config, Monitor* monitor = nullptr);

// The exact mean of the initial collisions, over the uniformly random permutations of n that
// every run starts from. A direction's collisions are its queens (n) minus its occupied
// diagonals, so the mean is 2 (sum over the 2n - 1 diagonals d of P(d empty) - (n - 1)), the
// two directions alike (a reflection maps one onto the other and keeps the distribution). The
// L squares of a diagonal lie in L distinct rows and columns, so any j of them hold queens with
// probability (n - j)! / n!, and by inclusion-exclusion
//   P(empty) = sum_{j=0..L} (-1)^j C(L, j) (n - j)! / n!.
// The terms are at most 1 / j! in size: the sum is exact to double precision at any n.
double blnq_expected_initial_collisions(std::int64_t n);

// The peak memory of run_blnq(config) in bytes: the runs that go on at once (one a thread),
// each with its permutation and diagonal counters.
std::uint64_t blnq_memory_estimate(const BlnqConfig& config);

// One run, for tests: `rows` ends as the run's final permutation. `stop` is polled every 2^16
// neighbours (and set-up steps); a run it stops is marked `stopped`.
BlnqRun blnq_run(std::uint32_t n, std::uint64_t budget, BlnqBudgetRule rule, std::uint64_t seed,
                 Permutation& rows, const detail::StopSignal& stop = {});

}  // namespace nq
