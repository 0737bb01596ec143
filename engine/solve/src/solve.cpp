// Attempt scheduling for `solve`: restarts, the parallel race, --solutions, verification.
//
// Attempt k of a run uses the seed mix_seed(seed, k), and what it returns depends on nothing
// else (not on the thread count, not on timing). The race keeps that property:
//   - T workers (TBB task_group tasks) take attempts k = w, w + T, w + 2T, ...;
//   - the first success publishes its index as `winner`; every attempt with a higher index
//     sees it at its next poll and stops (first success cancels the rest), and no worker starts
//     an attempt above it; attempts below it run to the end, since one of them could still win;
//   - the answer is the attempt with the lowest index that solved.
// So a seed gives the same solution at every thread count, and `restarts` (the winner's index:
// every attempt before it failed) is reproducible too.
// At large n one attempt is the whole job, and racing T copies would multiply the memory by T:
// there a single worker runs attempts one by one and the threads split each attempt's
// start-up instead (qs4 only; the other methods are for comparison at small n).
#include "engine/solve/solve.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "base/threads.hpp"
#include "engine/solve/src/local_search.hpp"
#include "engine/solve/verify.hpp"
#include "kernels/enumerate.hpp"

namespace nq {

namespace {

constexpr SolveMethodInfo kSolveMethods[] = {
    {SolveMethod::qs4, "qs4", "QS4 with a thread-split start-up"},
    {SolveMethod::qs4_plain, "qs4-plain",
     "the single-threaded textbook QS4, the benchmark baseline"},
    {SolveMethod::minconflict, "minconflict",
     "random attacked-queen swaps with restarts; n <= 4000000"},
    {SolveMethod::swap, "swap",
     "random-pair swap hill climbing, restarted after --max-tries failed tries; n <= 300000"},
};

}  // namespace

std::span<const SolveMethodInfo> solve_methods() {
  return kSolveMethods;
}

bool parse_solve_method(const std::string& word, SolveMethod& method) {
  for (const SolveMethodInfo& m : kSolveMethods)
    if (word == m.name) {
      method = m.method;
      return true;
    }
  return false;
}

const char* solve_method_name(SolveMethod method) {
  for (const SolveMethodInfo& m : kSolveMethods)
    if (m.method == method) return m.name;
  return "?";
}

namespace {

using detail::AttemptOptions;
using detail::AttemptOutcome;
using detail::AttemptStats;
using detail::StopSignal;

constexpr std::uint32_t kSplitStartupFrom = 1u << 17;  // one attempt at a time from here on
// Modular: toroidal search attempts before falling back to the linear construction, and the
// largest n searched at all. Toroidal solutions are rare (n = 13: 4524 of 73712 solutions), and
// the toroidal local search gets stuck: in our runs it finds them up to n = 13 within a few
// dozen restarts and failed all 256 restarts at n = 25, 101 and 1009. Above this bound the
// search is skipped and the result says "construction".
constexpr std::uint64_t kModularSearchAttempts = 128;
constexpr std::uint32_t kModularSearchUpTo = 23;
// --solutions K: stop when this many successes in a row bring nothing new (small n), and
// then, up to kCompleteByEnumerationUpTo, take the rest from the enumeration of every solution
// (lexicographic), so that a board with K solutions or more always gives K: a local search does
// not reach its solutions evenly, and at n = 8 it missed one of the 92 about one run in ten.
constexpr std::uint64_t kDuplicatesBeforeExhausted = 200;
constexpr std::uint32_t kCompleteByEnumerationUpTo = 12;  // 14200 solutions: milliseconds

struct Race {
  const SolveConfig& config;
  std::uint32_t n;
  int workers;
  bool split_startup;
  const std::atomic<bool>* cancel;
  bool has_deadline;
  std::chrono::steady_clock::time_point deadline;
  std::uint64_t max_restarts;  // the config's, or kDefaultMaxRestarts
  std::atomic<bool> timed_out{false};
  std::atomic<bool> abort{false};  // an attempt threw (out of memory): every other one stops
  std::atomic<std::uint64_t> failed_attempts{0};  // attempts that ended without a solution
  std::uint64_t last_accepted = 0;  // many(): index of the last attempt whose solution was kept

  // The toroidal search is skipped above kModularSearchUpTo; below, its attempts run out after
  // kModularSearchAttempts, or at the last attempt the restart limit allows.
  bool modular_by_construction(std::uint64_t k) const {
    return config.modular &&
           (n > kModularSearchUpTo || k >= std::min(kModularSearchAttempts, max_restarts));
  }

  // Runs attempt k, and stops every other attempt if it throws (the exception goes on to the
  // caller, which turns it into an Error).
  AttemptOutcome guarded_attempt(std::uint64_t k, Permutation& rows,
                                 const std::atomic<std::uint64_t>* winner) {
    try {
      return attempt(k, rows, winner);
    } catch (...) {
      abort.store(true);
      throw;
    }
  }

  // Runs attempt k into `rows`.
  AttemptOutcome attempt(std::uint64_t k, Permutation& rows,
                         const std::atomic<std::uint64_t>* winner) {
    const std::uint64_t seed = detail::mix_seed(config.seed, k);
    if (modular_by_construction(k)) {
      detail::modular_construction(n, seed, rows);
      return AttemptOutcome::solved;
    }
    StopSignal stop{cancel, &abort, winner, k, has_deadline, deadline, &timed_out};
    if (stop.should_stop()) return AttemptOutcome::stopped;
    AttemptOptions o{n, seed, config.modular, split_startup, std::uint64_t(config.max_tries)};
    AttemptStats stats;
    switch (config.method) {
      case SolveMethod::qs4:
        return detail::qs4_attempt(o, rows, stop, stats);
      case SolveMethod::qs4_plain:
        return detail::qs4_plain_attempt(o, rows, stop, stats);
      case SolveMethod::minconflict:
        return detail::minconflict_attempt(o, rows, stop, stats);
      case SolveMethod::swap:
        return detail::swap_attempt(o, rows, stop, stats);
    }
    return AttemptOutcome::failed;
  }

  bool out_of_time() const {
    return (cancel && cancel->load()) || timed_out.load() || abort.load() ||
           (has_deadline && std::chrono::steady_clock::now() >= deadline);
  }

  // The race for one solution: attempts 0..max_restarts (every restart the limit allows). Returns
  // the winner's index, or UINT64_MAX if stopped or if every attempt failed (out_of_time() tells
  // which).
  std::uint64_t first(Permutation& best) {
    std::atomic<std::uint64_t> winner{std::numeric_limits<std::uint64_t>::max()};
    std::mutex lock;
    tbb::task_group group;
    try {
      for (int w = 0; w < workers; ++w)
        group.run([&, w] {
          Permutation rows;
          for (std::uint64_t k = w; k < winner.load() && k <= max_restarts; k += workers) {
            if (out_of_time()) return;
            const AttemptOutcome outcome = guarded_attempt(k, rows, &winner);
            if (outcome == AttemptOutcome::failed) failed_attempts.fetch_add(1);
            if (outcome != AttemptOutcome::solved) continue;
            std::lock_guard<std::mutex> hold(lock);
            if (k < winner.load()) {
              winner.store(k);
              best.swap(rows);
            }
            return;
          }
        });
    } catch (...) {  // a worker could not be started: the ones running stop before the wait
      abort.store(true);
      group.wait();
      throw;
    }
    group.wait();
    return winner.load();
  }

  // K distinct solutions: rounds of attempts in index order, duplicates skipped in order.
  SolveStatus many(int wanted, std::vector<Permutation>& found, std::uint64_t& restarts) {
    // Solutions are told apart by a 64-bit hash, then compared in full on a hash match: at
    // large n a set of copies would double the memory.
    std::unordered_multimap<std::uint64_t, std::size_t> seen;
    auto fingerprint = [](const Permutation& p) {
      std::uint64_t h = p.size();
      for (std::uint32_t v : p) h = (h ^ v) * 0x100000001b3ULL;
      return h;
    };
    std::uint64_t next = 0, duplicates_in_a_row = 0, failures_in_a_row = 0;
    const std::uint64_t round = static_cast<std::uint64_t>(workers);
    while (static_cast<int>(found.size()) < wanted) {
      std::vector<Permutation> rows(round);
      std::vector<AttemptOutcome> outcome(round, AttemptOutcome::failed);
      tbb::parallel_for(std::uint64_t{0}, round, [&](std::uint64_t r) {
        outcome[r] = guarded_attempt(next + r, rows[r], nullptr);
      });
      for (std::uint64_t r = 0; r < round && static_cast<int>(found.size()) < wanted; ++r) {
        if (outcome[r] == AttemptOutcome::stopped) return out_of_time_status();
        if (outcome[r] == AttemptOutcome::failed) {
          ++restarts;
          if (++failures_in_a_row > max_restarts) return SolveStatus::restart_limit;
          continue;
        }
        failures_in_a_row = 0;
        const std::uint64_t key = fingerprint(rows[r]);
        const auto [from, to] = seen.equal_range(key);
        const bool repeated = std::any_of(
            from, to, [&](const auto& entry) { return found[entry.second] == rows[r]; });
        if (!repeated) {
          seen.emplace(key, found.size());
          found.push_back(std::move(rows[r]));
          last_accepted = next + r;
          duplicates_in_a_row = 0;
        } else if (++duplicates_in_a_row >= kDuplicatesBeforeExhausted) {
          return complete_by_enumeration(wanted, found, seen, fingerprint);
        }
      }
      next += round;
      if (out_of_time()) return out_of_time_status();
    }
    return SolveStatus::found;
  }

  // The solutions the search missed, from the enumeration, until `wanted` (small n only).
  template <class Seen, class Fingerprint>
  SolveStatus complete_by_enumeration(int wanted, std::vector<Permutation>& found, Seen& seen,
                                      Fingerprint fingerprint) {
    if (n > kCompleteByEnumerationUpTo) return SolveStatus::exhausted;
    Permutation p(n);
    for_each_solution(static_cast<int>(n), [&](const int* rows) {
      for (std::uint32_t i = 0; i < n; ++i) p[i] = static_cast<std::uint32_t>(rows[i]);
      if (config.modular && !verify_solution(p.data(), p.size(), true)) return true;
      const std::uint64_t key = fingerprint(p);
      const auto [from, to] = seen.equal_range(key);
      if (std::none_of(from, to, [&](const auto& entry) { return found[entry.second] == p; })) {
        seen.emplace(key, found.size());
        found.push_back(p);
      }
      return static_cast<int>(found.size()) < wanted;
    });
    return static_cast<int>(found.size()) < wanted ? SolveStatus::exhausted : SolveStatus::found;
  }

  SolveStatus out_of_time_status() const {
    return (cancel && cancel->load()) ? SolveStatus::cancelled : SolveStatus::time_limit;
  }
};

}  // namespace

// The threads asked for (resolved) and the call's arena (base/threads.hpp: within the host's
// cap, the calling thread one of them; above the hardware, as many as asked).
struct SolveThreads::State {
  explicit State(int threads) : requested(resolve_threads(threads)), arena(threads) {}
  int requested;
  CallArena arena;
};

SolveThreads::SolveThreads(int threads) : state_(std::make_unique<State>(threads)) {}
SolveThreads::~SolveThreads() = default;
int SolveThreads::threads() const {
  return state_->requested;
}

namespace {

std::optional<Error> threads_error(int threads) {
  if (threads >= 0 && threads <= kMaxThreads) return std::nullopt;
  return Error{"--threads " + std::to_string(threads) + " is out of range; solve takes 1.." +
               std::to_string(kMaxThreads) + " (or 0: every hardware thread)"};
}

bool known_method(SolveMethod method) {
  return std::any_of(std::begin(kSolveMethods), std::end(kSolveMethods),
                     [&](const SolveMethodInfo& m) { return m.method == method; });
}

// Everything wrong with `config` before any work, as the command line names the options.
std::optional<Error> config_error(const SolveConfig& config) {
  if (!known_method(config.method))
    return Error{"solve: method " + std::to_string(static_cast<int>(config.method)) +
                 " is not a SolveMethod (solve_methods() lists them)"};
  if (config.n < 1 || config.n > kMaxSolveN)
    return Error{"--n " + std::to_string(config.n) + " is out of range; solve takes 1.." +
                 std::to_string(kMaxSolveN)};
  if (config.solutions < 1)
    return Error{"--solutions " + std::to_string(config.solutions) + " must be at least 1"};
  if (auto bad = threads_error(config.threads)) return bad;
  if (config.max_tries < 0) return Error{"--max-tries must be positive"};
  if (config.max_tries > 0 && config.method != SolveMethod::swap)
    return Error{"--max-tries applies to --method swap only"};
  // NaN fails every comparison: it is refused here, not taken for "no limit".
  if (!(config.time_limit_seconds >= 0 && config.time_limit_seconds <= kMaxTimeLimitSeconds))
    return Error{"--time-limit must be a number of seconds in 0..1e9 (0: no limit)"};
  if (config.method == SolveMethod::minconflict && config.n > kMaxMinconflictN)
    return Error{"--method minconflict solves up to n = " + std::to_string(kMaxMinconflictN) +
                 " (about 35 s there, 3 s at n = 10^6: its random start leaves many queens "
                 "attacked, and n = 10^7 did not finish in a minute); use --method qs4 for n = " +
                 std::to_string(config.n)};
  if (config.method == SolveMethod::swap && config.n > kMaxSwapN)
    return Error{"--method swap solves up to n = " + std::to_string(kMaxSwapN) +
                 " (about 25 s there; it tries random pairs, of which fewer and fewer help, and "
                 "did not finish n = 10^6 in a minute); use --method qs4 for n = " +
                 std::to_string(config.n)};
  if (config.modular && std::gcd(config.n, std::int64_t{6}) != 1)
    return Error{
        "--modular needs gcd(n, 6) = 1 (n not divisible by 2 or 3): a modular "
        "(toroidal) solution exists for no other n; n = " +
        std::to_string(config.n) + " is divisible by " + (config.n % 2 == 0 ? "2" : "3")};
  if (config.memory_limit > 0) {
    const std::uint64_t need = solve_memory_estimate(config);
    if (need > config.memory_limit) {
      char sizes[96];
      std::snprintf(sizes, sizeof sizes, "about %.1f GiB (%llu bytes)",
                    static_cast<double>(need) / (1 << 30), static_cast<unsigned long long>(need));
      return Error{"solve --n " + std::to_string(config.n) + " --method " +
                   solve_method_name(config.method) + " needs " + sizes +
                   " at its peak, above the memory limit of " +
                   std::to_string(config.memory_limit) + " bytes (--memory-limit)"};
    }
  }
  return std::nullopt;
}

// Bytes of one attempt's arrays: the permutation (4 bytes a column) and its diagonals (QS4's
// bitsets and plan, or a 32-bit counter per diagonal: 2 x (2n - 1) of them), minconflict's
// lists of attacked queens too.
std::uint64_t attempt_bytes(SolveMethod method, std::uint64_t n) {
  const std::uint64_t rows = 4 * n, counters = 4 * 2 * (2 * n);
  switch (method) {
    case SolveMethod::qs4:
      // bitsets n/2, the plan and the leftovers about n/4, the dense repair of small boards
      return rows + n / 2 + n / 4 + (n <= (1u << 15) ? counters : 0);
    case SolveMethod::qs4_plain:
    case SolveMethod::swap:
      return rows + counters;
    case SolveMethod::minconflict:
      return rows + counters + 2 * rows;
  }
  return rows + counters;
}

Expected<SolveResult> solve_checked(const SolveConfig& config, Monitor* monitor, int requested,
                                    CallArena& arena);

}  // namespace

std::uint64_t solve_memory_estimate(const SolveConfig& config) {
  const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(config.n, 1));
  const auto threads = static_cast<std::uint64_t>(resolve_threads(config.threads));
  const bool split = config.method == SolveMethod::qs4 && n >= kSplitStartupFrom;
  const std::uint64_t at_once = split ? 1 : threads;  // attempts running side by side
  const std::uint64_t solutions = static_cast<std::uint64_t>(std::max(config.solutions, 1));
  // The verifier: 5 bits a column in each of up to 4 parts checked at once.
  const std::uint64_t verifier = (n >= (std::uint64_t{1} << 21) ? 4 : 1) * (5 * n / 8 + 64);
  const std::uint64_t kept = solutions > 1 ? solutions * 4 * n : 0;
  const std::uint64_t fixed = std::uint64_t{8} << 20;  // the arena, the threads' stacks
  return fixed + at_once * attempt_bytes(config.method, n) + kept + verifier;
}

Expected<SolveResult> solve(const SolveConfig& config, Monitor* monitor) {
  if (auto bad = threads_error(config.threads)) return *bad;
  return errors_as_values([&]() -> Expected<SolveResult> {
    SolveThreads threads(config.threads);
    return solve(config, monitor, threads);
  });
}

Expected<SolveResult> solve(const SolveConfig& config, Monitor* monitor, SolveThreads& threads) {
  return errors_as_values([&] {
    return solve_checked(config, monitor, threads.state_->requested, threads.state_->arena);
  });
}

Expected<SolveRuns> solve_runs(const SolveConfig& config, std::uint64_t runs, Monitor* monitor) {
  if (runs < 1 || runs > kMaxSolveRuns)
    return Error{"--runs must be between 1 and " + std::to_string(kMaxSolveRuns) + ", got " +
                 std::to_string(runs)};
  if (config.solutions != 1) return Error{"--runs counts single solutions: drop --solutions"};
  if (auto bad = config_error(config)) return *bad;
  return errors_as_values([&]() -> Expected<SolveRuns> {
    const auto start = std::chrono::steady_clock::now();
    SolveRuns out;
    out.n = config.n;
    out.method = config.method;
    out.seed = config.seed;
    out.threads = resolve_threads(config.threads);
    out.runs_asked = runs;
    SolveThreads threads(config.threads);
    double restarts = 0;
    for (std::uint64_t k = 0; k < runs; ++k) {
      SolveConfig one = config;
      one.seed = detail::mix_seed(config.seed, k);
      if (config.time_limit_seconds > 0) {  // what is left of the limit, for this run
        const double left =
            config.time_limit_seconds -
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (left <= 0) {
          out.status = SolveStatus::time_limit;
          break;
        }
        one.time_limit_seconds = left;
      }
      Expected<SolveResult> r = solve(one, monitor, threads);
      if (!r.ok()) return r.error();
      if (r->status == SolveStatus::time_limit || r->status == SolveStatus::cancelled) {
        out.status = r->status;
        break;
      }
      SolveRun run{one.seed, r->status, r->restarts, r->seconds, false};
      run.first_attempt = r->status == SolveStatus::found && r->restarts == 0;
      out.solved += r->status == SolveStatus::found;
      out.first_attempt_successes += run.first_attempt;
      restarts += static_cast<double>(r->restarts);
      out.runs.push_back(run);
    }
    if (!out.runs.empty()) out.mean_restarts = restarts / static_cast<double>(out.runs.size());
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  });
}

namespace {

Expected<SolveResult> solve_checked(const SolveConfig& config, Monitor* monitor, int requested,
                                    CallArena& arena) {
  const auto start = std::chrono::steady_clock::now();
  if (auto bad = config_error(config)) return *bad;

  SolveResult result;
  result.n = config.n;
  result.method = config.method;
  result.seed = config.seed;
  result.memory_estimate = solve_memory_estimate(config);
  if (resolve_threads(config.threads) != requested)
    return Error{"solve on " + std::to_string(requested) + " threads asked for " +
                 std::to_string(resolve_threads(config.threads))};
  result.threads = arena.threads();  // what runs: fewer under a host's lower TBB cap
  const auto n = static_cast<std::uint32_t>(config.n);

  if (n == 2 || n == 3) {
    result.status = SolveStatus::no_solution;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  const bool split = config.method == SolveMethod::qs4 && n >= kSplitStartupFrom;
  Race race{config,
            n,
            split ? 1 : result.threads,
            split,
            monitor ? &monitor->cancel : nullptr,
            config.time_limit_seconds > 0,
            {},
            config.max_restarts > 0 ? config.max_restarts : kDefaultMaxRestarts};
  if (race.has_deadline)
    race.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(config.time_limit_seconds));

  std::vector<Permutation> found;
  arena.execute([&] {
    if (n == 1) {
      found.push_back(Permutation{0});  // the only solution there is
      result.status = config.solutions == 1 ? SolveStatus::found : SolveStatus::exhausted;
    } else if (config.solutions == 1) {
      Permutation best;
      const std::uint64_t k = race.first(best);
      if (k == std::numeric_limits<std::uint64_t>::max()) {
        // Stopped, or every attempt the restart limit allows failed.
        result.status = race.out_of_time() ? race.out_of_time_status() : SolveStatus::restart_limit;
        result.restarts = race.failed_attempts.load();
      } else {
        result.restarts = k;
        result.status = SolveStatus::found;
        if (config.modular)
          result.modular_route = race.modular_by_construction(k) ? "construction" : "search";
        found.push_back(std::move(best));
      }
    } else {
      result.status = race.many(config.solutions, found, result.restarts);
      if (config.modular)
        result.modular_route =
            race.modular_by_construction(race.last_accepted) ? "construction" : "search";
    }
    // `verified` speaks of what is returned as the answer: nothing is, unless it was found.
    result.verified = result.status == SolveStatus::found && !found.empty();
    for (const Permutation& p : found)
      result.verified = result.verified && verify_solution(p.data(), p.size(), config.modular);
  });
  result.solutions = std::move(found);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

}  // namespace nq
