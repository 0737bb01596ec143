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

struct SolveConfig {
  std::int64_t n = 0;
  SolveMethod method = SolveMethod::qs4;
  std::uint64_t seed = 0;
  int threads = 0;                // 0: every hardware thread
  int solutions = 1;              // distinct solutions wanted
  bool modular = false;           // every cyclic column shift must again be a solution
  std::int64_t max_tries = 0;     // swap method: failed tries before a restart; 0: default
  double time_limit_seconds = 0;  // 0: no limit
};

enum class SolveStatus {
  found,        // `solutions` holds the requested number of distinct, verified solutions
  no_solution,  // n = 2 or n = 3: none exists
  time_limit,   // the time limit passed first (`solutions` holds what was found by then)
  exhausted,    // the search stopped finding new distinct solutions (small n, large K)
  cancelled,    // Monitor::cancel stopped it
};

struct SolveResult {
  std::int64_t n = 0;
  SolveMethod method = SolveMethod::qs4;
  std::uint64_t seed = 0;
  int threads = 0;
  SolveStatus status = SolveStatus::found;
  std::uint64_t restarts = 0;  // attempts that ended without a solution
  double seconds = 0;          // search and verification, not printing
  bool verified = false;       // every solution passed verify_solution
  // How a modular solution was obtained: "search" (toroidal local search) or "construction"
  // (p(i) = a*i + b mod n, the fallback when the search ran out of its budget). Empty otherwise.
  std::string modular_route;
  // 0-based rows: solutions[k][i] is the row of the queen in column i.
  std::vector<Permutation> solutions;
};

Expected<SolveResult> solve(const SolveConfig& config, Monitor* monitor = nullptr);

// The threads a solve runs on (a TBB arena and its thread cap), kept from one solve to the next:
// a batch of many small boards (solve --batch) would otherwise create and tear down a pair of
// them per board, which cost more than the search itself and, torn down lazily by TBB, slowed
// down and grew the memory as the batch went on (16,000 boards of n = 10 on 2 threads: 8.2 s
// and 125 MB, against 2.4 s and 10 MB on 1).
class SolveThreads {
 public:
  explicit SolveThreads(int threads);  // 0: every hardware thread
  ~SolveThreads();
  SolveThreads(const SolveThreads&) = delete;
  SolveThreads& operator=(const SolveThreads&) = delete;
  int threads() const;

 private:
  friend Expected<SolveResult> solve(const SolveConfig&, Monitor*, SolveThreads&);
  struct State;
  std::unique_ptr<State> state_;
};

// solve() on `threads`, which must have config.threads' count (resolved: 0 is every hardware
// thread); the same result as solve(config, monitor).
Expected<SolveResult> solve(const SolveConfig& config, Monitor* monitor, SolveThreads& threads);

}  // namespace nq
