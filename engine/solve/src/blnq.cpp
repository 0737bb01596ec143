// BLNQ (blnq.hpp): random-pair swap hill climbing with a budget of failed tries, no restarts,
// with the statistics of Candia & Astudillo's tables. Runs are independent TBB tasks, each with
// its own seed derived from (seed, run index), so the statistics do not depend on the thread
// count.
#include "engine/solve/blnq.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <set>
#include <string>

#include "base/threads.hpp"
#include "engine/solve/verify.hpp"

namespace nq {

namespace {
constexpr std::uint32_t kBlnqPollEvery = 1u << 16;  // neighbours (or set-up steps) between polls
Expected<BlnqResult> run_blnq_checked(const BlnqConfig& c, Monitor* monitor);
}  // namespace

bool parse_blnq_budget_rule(const std::string& word, BlnqBudgetRule& rule) {
  for (const BlnqBudgetRule r : {BlnqBudgetRule::consecutive, BlnqBudgetRule::total})
    if (word == blnq_budget_rule_name(r)) {
      rule = r;
      return true;
    }
  return false;
}

const char* blnq_budget_rule_name(BlnqBudgetRule rule) {
  return rule == BlnqBudgetRule::consecutive ? "consecutive" : "total";
}

BlnqRun blnq_run(std::uint32_t n, std::uint64_t budget, BlnqBudgetRule rule, std::uint64_t seed,
                 Permutation& rows, const detail::StopSignal& stop) {
  BlnqRun run;
  run.seed = seed;
  detail::Rng rng(seed);
  // The set-up passes (the shuffle, the diagonal counts) are random accesses into arrays of
  // gigabytes at large n: seconds, so they poll `stop` too.
  auto stopped = [&](std::uint32_t i) {
    if (i % kBlnqPollEvery != 0 || !stop.should_stop()) return false;
    run.stopped = true;
    return true;
  };
  rows.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (stopped(i)) return run;
    rows[i] = i;
  }
  for (std::uint32_t i = 0; i + 1 < n; ++i) {
    if (stopped(i)) return run;
    std::swap(rows[i], rows[i + rng.below(n - i)]);
  }
  // Queens per diagonal: up[i + r] and down[i - r + n - 1], 2n - 1 of each, in memory that
  // comes zeroed from the system (no zeroing pass over them).
  ZeroedWords up_words(std::size_t{n} + 1), down_words(std::size_t{n} + 1);
  if (!detail::fault_in(up_words, stop) || !detail::fault_in(down_words, stop)) {
    run.stopped = true;
    return run;
  }
  auto* up = reinterpret_cast<std::uint32_t*>(up_words.data());
  auto* down = reinterpret_cast<std::uint32_t*>(down_words.data());
  std::int64_t collisions = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (stopped(i)) return run;
    collisions += up[i + rows[i]]++ > 0;
    collisions += down[i + n - 1 - rows[i]]++ > 0;
  }
  run.initial_collisions = collisions;
  // `tries` counts against the budget: every neighbour under the total rule (a run ends after L
  // in all), the failures since the last kept swap under the consecutive one. The paper's
  // Figure 3 ends a run when that counter exceeds L, so the consecutive rule ends after L + 1
  // failed tries in a row.
  const bool reset_on_improvement = rule == BlnqBudgetRule::consecutive;
  const std::uint64_t last_try =
      reset_on_improvement ? (budget == ~std::uint64_t{0} ? budget : budget + 1) : budget;
  std::uint64_t examined = 0, improving = 0, tries = 0;
  while (collisions > 0 && tries < last_try && n > 1) {
    if (++examined % kBlnqPollEvery == 0 && stop.should_stop()) {
      run.stopped = true;
      break;
    }
    ++tries;
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
      if (reset_on_improvement) tries = 0;
      continue;
    }
    --up[i + b], --down[i + n - 1 - b], --up[j + a], --down[j + n - 1 - a];
    ++up[i + a], ++down[i + n - 1 - a], ++up[j + b], ++down[j + n - 1 - b];
  }
  run.final_collisions = collisions;
  run.neighbours = examined;
  run.improving = improving;
  run.success = !run.stopped && collisions == 0 && verify_solution(rows.data(), n);
  return run;
}

namespace {

// Mean and standard error of the mean of `values`, accumulated with Welford's update (the
// neighbours reach 10^7 per run and more: a plain sum of squares would lose the digits).
class MeanAndError {
 public:
  void add(double x) {
    ++count_;
    const double d = x - mean_;
    mean_ += d / static_cast<double>(count_);
    m2_ += d * (x - mean_);
  }
  double mean() const { return mean_; }
  double standard_error() const {
    if (count_ < 2) return 0;
    const auto k = static_cast<double>(count_);
    return std::sqrt(m2_ / (k - 1) / k);
  }

 private:
  std::uint64_t count_ = 0;
  double mean_ = 0, m2_ = 0;
};

}  // namespace

double blnq_expected_initial_collisions(std::int64_t n) {
  if (n < 1) return 0;
  const auto N = static_cast<double>(n);
  // P(a diagonal of `length` squares holds no queen): the alternating sum of the terms
  // t_j = C(length, j) (n - j)! / n!, each from the one before.
  auto empty = [&](std::int64_t length) {
    double term = 1, sum = 1;
    for (std::int64_t j = 1; j <= length; ++j) {
      term *= static_cast<double>(length - j + 1) / static_cast<double>(j * (n - j + 1));
      sum += (j % 2 ? -term : term);
      // The terms fall (each at most 1/j of the one before) and alternate: the rest of the sum
      // is smaller than this term.
      if (term < 1e-18) break;
    }
    return sum;
  };
  // Lengths 1..n-1 twice, n once (the main diagonal).
  double all_empty = empty(n);
  for (std::int64_t length = 1; length < n; ++length) all_empty += 2 * empty(length);
  return 2 * (all_empty - (N - 1));
}

std::uint64_t blnq_memory_estimate(const BlnqConfig& c) {
  const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(c.n, 1));
  const std::uint64_t at_once =
      std::min<std::uint64_t>(std::max<std::uint64_t>(c.runs, 1), resolve_threads(c.threads));
  // A run: its permutation (4 bytes a column) and two directions of 2n 32-bit counters.
  return (std::uint64_t{8} << 20) + at_once * (4 * n + 16 * n);
}

Expected<BlnqResult> run_blnq(const BlnqConfig& c, Monitor* monitor) {
  return errors_as_values([&] { return run_blnq_checked(c, monitor); });
}

namespace {

Expected<BlnqResult> run_blnq_checked(const BlnqConfig& c, Monitor* monitor) {
  if (c.rule != BlnqBudgetRule::consecutive && c.rule != BlnqBudgetRule::total)
    return Error{"blnq: budget rule " + std::to_string(static_cast<int>(c.rule)) +
                 " is not a BlnqBudgetRule"};
  if (c.threads < 0 || c.threads > kMaxThreads)
    return Error{"blnq: threads must be between 1 and " + std::to_string(kMaxThreads) +
                 " (or 0: every hardware thread), got " + std::to_string(c.threads)};
  if (c.n < 1 || c.n > kMaxBlnqN)
    return Error{"blnq: n must be between 1 and " + std::to_string(kMaxBlnqN) + ", got " +
                 std::to_string(c.n)};
  if (c.runs < 1 || c.runs > kMaxBlnqRuns)
    return Error{"blnq: runs must be between 1 and " + std::to_string(kMaxBlnqRuns) + ", got " +
                 std::to_string(c.runs)};
  if (c.budget < 1) return Error{"blnq: the budget must be at least 1 neighbour"};
  // NaN fails every comparison: refused, not taken for "no limit".
  if (!(c.time_limit_seconds >= 0 && c.time_limit_seconds <= kMaxTimeLimitSeconds))
    return Error{"blnq: the time limit must be a number of seconds in 0..1e9 (0: no limit)"};
  if (c.memory_limit > 0 && blnq_memory_estimate(c) > c.memory_limit)
    return Error{"blnq: " + std::to_string(blnq_memory_estimate(c)) +
                 " bytes at the peak (the runs on every thread at once) are above the memory "
                 "limit of " +
                 std::to_string(c.memory_limit) + " bytes (--memory-limit)"};
  const auto start = std::chrono::steady_clock::now();
  BlnqResult r;
  r.n = c.n;
  r.budget = c.budget;
  r.rule = c.rule;
  r.seed = c.seed;
  r.runs.resize(c.runs);
  std::vector<Permutation> finals(c.runs);
  const auto n = static_cast<std::uint32_t>(c.n);
  // The same stop signal as solve's attempts: the user's cancel and the deadline.
  std::atomic<bool> timed_out{false};
  detail::StopSignal stop;
  stop.cancel = monitor ? &monitor->cancel : nullptr;
  stop.has_deadline = c.time_limit_seconds > 0;
  if (stop.has_deadline)
    stop.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(c.time_limit_seconds));
  stop.timed_out = &timed_out;
  // The call's own arena, within the host's TBB cap (base/threads.hpp).
  CallArena arena(c.threads);
  r.threads = arena.threads();
  arena.execute([&] {
    tbb::parallel_for(std::uint64_t{0}, c.runs, [&](std::uint64_t k) {
      // A run not started before the stop is not run at all.
      if (timed_out.load(std::memory_order_relaxed) || stop.should_stop()) {
        r.runs[k].stopped = true;
        return;
      }
      r.runs[k] = blnq_run(n, c.budget, c.rule, detail::mix_seed(c.seed, k), finals[k], stop);
      if (!r.runs[k].success) Permutation().swap(finals[k]);  // keep only the solutions
    });
  });
  if (monitor && monitor->cancel.load()) return Error{"blnq: interrupted"};
  if (timed_out.load()) r.status = BlnqStatus::time_limit;
  std::set<Permutation> seen;
  MeanAndError initial, final_collisions, neighbours, improving;
  for (std::uint64_t k = 0; k < c.runs; ++k) {
    const BlnqRun& run = r.runs[k];
    if (run.stopped) continue;
    ++r.runs_done;
    initial.add(static_cast<double>(run.initial_collisions));
    final_collisions.add(static_cast<double>(run.final_collisions));
    neighbours.add(static_cast<double>(run.neighbours));
    improving.add(static_cast<double>(run.improving));
    if (!run.success) continue;
    ++r.successes;
    if (seen.insert(finals[k]).second) r.solutions.push_back(std::move(finals[k]));
  }
  r.mean = {initial.mean(), final_collisions.mean(), neighbours.mean(), improving.mean()};
  r.standard_error = {initial.standard_error(), final_collisions.standard_error(),
                      neighbours.standard_error(), improving.standard_error()};
  r.success_rate =
      r.runs_done ? static_cast<double>(r.successes) / static_cast<double>(r.runs_done) : 0;
  r.distinct_solutions = r.solutions.size();
  // Each run checked its own solution; the ones handed out are checked once more, as solve does.
  r.verified = std::all_of(r.solutions.begin(), r.solutions.end(), [](const Permutation& p) {
    return verify_solution(p.data(), p.size());
  });
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

}  // namespace nq
