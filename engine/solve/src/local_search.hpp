// Internals of the solver, shared by solve.cpp and the tests: the attempts of each
// method, one seed each. An attempt either solves, fails (hits its step or try limit: the
// caller restarts with the next seed) or is stopped (a better attempt won, time ran out, the
// user cancelled). Attempts never allocate inside their loops and never print.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/huge_pages.hpp"
#include "engine/solve/solve.hpp"

namespace nq::detail {

// wyrand (Wang Yi): one 64-bit add and one 64x64->128 multiply per number; it passes BigCrush
// and PractRand, which is more than local search needs, and its state is one word.
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    state += 0xa0761d6478bd642fULL;
    const u128 t = static_cast<u128>(state) * (state ^ 0xe7037ed1a0b428dbULL);
    return static_cast<std::uint64_t>(t >> 64) ^ static_cast<std::uint64_t>(t);
  }
  // Uniform enough in [0, bound) for bound < 2^32: Lemire's multiply-shift, no division.
  std::uint32_t below(std::uint32_t bound) {
    return static_cast<std::uint32_t>(((next() >> 32) * bound) >> 32);
  }
};

// The seed of sub-stream k of a seed (attempt k, block k): two rounds of splitmix64.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t k);

// Why an attempt should stop early. Polled every few thousand steps, never per step, and often
// enough in every phase (start-up, set-up of large arrays, repair) that an attempt stops within
// a small fraction of a second at any n.
struct StopSignal {
  const std::atomic<bool>* cancel = nullptr;           // the user's Monitor::cancel
  const std::atomic<bool>* abort = nullptr;            // the run failed elsewhere (an exception)
  const std::atomic<std::uint64_t>* winner = nullptr;  // lowest attempt index that solved
  std::uint64_t attempt = 0;                           // this attempt's index
  bool has_deadline = false;
  std::chrono::steady_clock::time_point deadline{};
  std::atomic<bool>* timed_out = nullptr;  // set when the deadline is seen

  bool should_stop() const;
};

enum class AttemptOutcome { solved, failed, stopped };

struct AttemptOptions {
  std::uint32_t n = 0;
  std::uint64_t seed = 0;
  bool modular = false;           // toroidal diagonals
  bool parallel_startup = false;  // qs4: split the start-up over the current TBB arena
  std::uint64_t max_tries = 0;    // swap: failed tries before giving up; 0: the default
};

// Counters an attempt reports (for tests and the run record).
struct AttemptStats {
  std::uint64_t conflict_free = 0;  // queens the start-up placed without a diagonal conflict
  std::uint64_t repaired = 0;       // queens placed with conflicts, then repaired
  std::uint64_t rescans = 0;        // O(n) scans for attacked queens the work list lost
};

AttemptOutcome qs4_attempt(const AttemptOptions& o, Permutation& rows, const StopSignal& stop,
                           AttemptStats& stats);
AttemptOutcome qs4_plain_attempt(const AttemptOptions& o, Permutation& rows, const StopSignal& stop,
                                 AttemptStats& stats);
AttemptOutcome minconflict_attempt(const AttemptOptions& o, Permutation& rows,
                                   const StopSignal& stop, AttemptStats& stats);
AttemptOutcome swap_attempt(const AttemptOptions& o, Permutation& rows, const StopSignal& stop,
                            AttemptStats& stats);
// A modular solution p(i) = a*i + b mod n with a, a-1, a+1 prime to n (needs gcd(n, 6) = 1):
// the classical linear construction, used when the toroidal search runs out of its budget.
void modular_construction(std::uint32_t n, std::uint64_t seed, Permutation& rows);

// Faults in the pages of `words` (fresh, zero memory from the system) a few tens of megabytes at a
// time, polling `stop` in between; false if it fired. Random first touches of a large array
// fault in (and zero) a huge page each: thousands of them could fall between two polls of a
// search loop, where this does the same work in steps that can stop.
bool fault_in(ZeroedWords& words, const StopSignal& stop);

// The default of --max-tries for the swap method.
std::uint64_t default_swap_max_tries(std::uint32_t n);

}  // namespace nq::detail
