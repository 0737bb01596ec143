// Single solutions for large n: local search in the manner of Sosic & Gu's QS4.
// A plain config in, verified solutions (or an error) out. The engine never prints and never
// exits; the CLI decides what a status means for the exit code.
//
// Where each phase lives: solve.cpp (attempt scheduling, restarts, cancellation, --solutions),
// qs4.cpp (the QS4 start-up and repair, the baseline plain QS4, the two simpler searches, the
// modular search), verify.cpp (the O(n) check every returned solution passes).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/huge_pages.hpp"
#include "base/types.hpp"

namespace nq {

// The largest board `solve` accepts: 32-bit rows, diagonal indices below 2^32.
inline constexpr std::int64_t kMaxSolveN = 2'000'000'000;

// The largest boards the comparison methods are run on: beyond them they do not finish in
// reasonable time, and `solve` refuses them rather than search for minutes in vain. Measured
// (one thread, this project's 2-core machine, seed 1): minconflict n = 10^6 in 3.3 s,
// 2 * 10^6 in 12 s, 4 * 10^6 in 34 s, n = 10^7 not within 60 s (random accesses to 2n diagonal
// counters); swap n = 10^5 in 2.6 s, 3 * 10^5 in 23 s, n = 10^6 not within 60 s (random
// pairs: near the end few of them help).
inline constexpr std::int64_t kMaxMinconflictN = 4'000'000;
inline constexpr std::int64_t kMaxSwapN = 300'000;

enum class SolveMethod {
  qs4,          // QS4 with the cache-blocked, thread-split start-up (the default)
  qs4_plain,    // textbook single-threaded QS4: the baseline scripts/bench-solve compares with
  minconflict,  // random permutation, random swaps of attacked queens, restarts
  swap,         // random-pair swap hill climbing, stops after L failed tries, restarts
};

// The methods as the command line names them, the default first: one table for the parser, the
// names in results and --method's choices and help.
struct SolveMethodInfo {
  SolveMethod method;
  const char* name;         // as typed after --method
  const char* description;  // a phrase for --method's help
};
std::span<const SolveMethodInfo> solve_methods();

// Parses a name of solve_methods(); false for anything else.
bool parse_solve_method(const std::string& word, SolveMethod& method);
const char* solve_method_name(SolveMethod method);

// Restarts (attempts that ended without a solution) in a row before a search gives up, unless
// SolveConfig::max_restarts says otherwise: far above what any method needs where it can
// succeed (small boards with few solutions need the most), and it ends a setting that cannot
// succeed (--method swap --max-tries 1 at n = 50 would restart forever).
inline constexpr std::uint64_t kDefaultMaxRestarts = 1000;
// The longest time limit: 10^9 seconds (about 31 years).
inline constexpr double kMaxTimeLimitSeconds = 1e9;

struct SolveConfig {
  std::int64_t n = 0;
  SolveMethod method = SolveMethod::qs4;
  std::uint64_t seed = 0;
  int threads = 0;                // 0: every hardware thread
  int solutions = 1;              // distinct solutions wanted
  bool modular = false;           // every cyclic column shift must again be a solution
  std::int64_t max_tries = 0;     // swap method: failed tries before a restart; 0: default
  double time_limit_seconds = 0;  // 0: no limit; else finite, at most kMaxTimeLimitSeconds
  // Restarts in a row (attempts in index order that ended without a solution, counted from the
  // last success) after which the search gives up with SolveStatus::restart_limit; 0:
  // kDefaultMaxRestarts. A modular search's last allowed attempt is the construction.
  std::uint64_t max_restarts = 0;
  // Refuse (an Error) a run whose estimated peak memory (solve_memory_estimate) is above this
  // many bytes; 0: no limit of the engine's own.
  std::uint64_t memory_limit = 0;
};

enum class SolveStatus {
  found,          // `solutions` holds the requested number of distinct, verified solutions
  no_solution,    // n = 2 or n = 3: none exists
  time_limit,     // the time limit passed first (`solutions` holds what was found by then)
  exhausted,      // the search stopped finding new distinct solutions (small n, large K)
  cancelled,      // Monitor::cancel stopped it
  restart_limit,  // max_restarts attempts in a row ended without a solution
};

struct SolveResult {
  std::int64_t n = 0;
  SolveMethod method = SolveMethod::qs4;
  std::uint64_t seed = 0;
  int threads = 0;
  SolveStatus status = SolveStatus::found;
  std::uint64_t restarts = 0;         // attempts that ended without a solution
  std::uint64_t memory_estimate = 0;  // solve_memory_estimate(config), bytes
  double seconds = 0;                 // search and verification, not printing
  bool verified = false;              // every solution passed verify_solution
  // How a modular solution was obtained: "search" (toroidal local search) or "construction"
  // (p(i) = a*i + b mod n, the fallback when the search ran out of its budget). Empty otherwise.
  std::string modular_route;
  // 0-based rows: solutions[k][i] is the row of the queen in column i.
  std::vector<Permutation> solutions;
};

// Errors: a config out of range (every field is checked), a run above config.memory_limit, and
// a run the system refused memory or a thread (never an exception). Monitor::cancel stops the
// search within a fraction of a second at any n (status cancelled); so does the time limit.
Expected<SolveResult> solve(const SolveConfig& config, Monitor* monitor = nullptr);

// The peak memory of solve(config), in bytes: the arrays of the attempts that run at once, the
// solutions kept and the verifier's tables. An estimate from the sizes of those arrays, for a
// valid config.
std::uint64_t solve_memory_estimate(const SolveConfig& config);

// Independent runs of one method, each a whole solve from its own seed (run k: a seed derived
// from (config.seed, k), the same at any thread count), and how many of them succeeded at their
// first attempt: the figure Candia & Astudillo's Table 4 gives for Gu's algorithm. A run that
// ends without a solution (its restart limit) is a result, not an error.
struct SolveRun {
  std::uint64_t seed = 0;  // the run's own seed (SolveConfig::seed of its solve)
  SolveStatus status = SolveStatus::found;
  std::uint64_t restarts = 0;
  double seconds = 0;
  bool first_attempt = false;  // found with no restart
};

struct SolveRuns {
  std::int64_t n = 0;
  SolveMethod method = SolveMethod::qs4;
  std::uint64_t seed = 0;
  int threads = 0;
  // found: every run ended; time_limit or cancelled: the runs stopped early (the unfinished run
  // is not in `runs`).
  SolveStatus status = SolveStatus::found;
  std::vector<SolveRun> runs;                 // the finished runs, in order
  std::uint64_t runs_asked = 0;               // runs the call asked for
  std::uint64_t solved = 0;                   // runs that found a solution
  std::uint64_t first_attempt_successes = 0;  // runs that found one at their first attempt
  double mean_restarts = 0;                   // over the finished runs
  double seconds = 0;
};

inline constexpr std::uint64_t kMaxSolveRuns = 1'000'000;

// `runs` solves of config (config.solutions must be 1), one after another, each on every
// thread; config.time_limit_seconds bounds them all together.
Expected<SolveRuns> solve_runs(const SolveConfig& config, std::uint64_t runs,
                               Monitor* monitor = nullptr);

// The threads a solve runs on (a TBB arena and its thread cap), kept from one solve to the next:
// a batch of many small boards (solve --batch) would otherwise create and tear down a pair of
// them per board, which cost more than the search itself and, torn down lazily by TBB, slowed
// down and grew the memory as the batch went on.
class SolveThreads {
 public:
  explicit SolveThreads(int threads);  // 0: every hardware thread
  ~SolveThreads();
  SolveThreads(const SolveThreads&) = delete;
  SolveThreads& operator=(const SolveThreads&) = delete;
  int threads() const;  // the count it was made for (resolved)

 private:
  friend Expected<SolveResult> solve(const SolveConfig&, Monitor*, SolveThreads&);
  struct State;
  std::unique_ptr<State> state_;
};

// solve() on `threads`, which must have been made for config.threads' count (resolved: 0 is
// every hardware thread); the same result as solve(config, monitor).
Expected<SolveResult> solve(const SolveConfig& config, Monitor* monitor, SolveThreads& threads);

}  // namespace nq
