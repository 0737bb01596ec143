// BLNQ (blnq.hpp): random-pair swap hill climbing with a budget of failed tries, no restarts,
// with the statistics of Candia & Astudillo's tables. Runs are independent TBB tasks, each with
// its own seed derived from (seed, run index), so the statistics do not depend on the thread
// count.
#include "engine/solve/blnq.hpp"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <set>
#include <string>

#include "base/threads.hpp"
#include "engine/solve/verify.hpp"

namespace nq {

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
  // `tries` counts against the budget: every neighbour under the total rule, the failures
  // since the last kept swap under the consecutive one.
  const bool reset_on_improvement = rule == BlnqBudgetRule::consecutive;
  std::uint64_t examined = 0, improving = 0, tries = 0;
  while (collisions > 0 && tries < budget && n > 1) {
    if ((++examined & 0xffff) == 0 && stop.should_stop()) {
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

Expected<BlnqResult> run_blnq(const BlnqConfig& c, Monitor* monitor) {
  if (c.n < 1 || c.n > kMaxBlnqN)
    return Error{"blnq: n must be between 1 and " + std::to_string(kMaxBlnqN) + ", got " +
                 std::to_string(c.n)};
  if (c.runs < 1 || c.runs > kMaxBlnqRuns)
    return Error{"blnq: runs must be between 1 and " + std::to_string(kMaxBlnqRuns) + ", got " +
                 std::to_string(c.runs)};
  if (c.budget < 1) return Error{"blnq: the budget must be at least 1 neighbour"};
  if (!(c.time_limit_seconds >= 0)) return Error{"blnq: the time limit must be >= 0 seconds"};
  const auto start = std::chrono::steady_clock::now();
  BlnqResult r;
  r.n = c.n;
  r.budget = c.budget;
  r.rule = c.rule;
  r.seed = c.seed;
  r.threads = resolve_threads(c.threads);
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
                                std::chrono::duration<double>(std::min(c.time_limit_seconds, 1e9)));
  stop.timed_out = &timed_out;
  // TBB runs at most the hardware's threads unless told otherwise (and warns on stderr in its
  // own words): --threads above the hardware is honoured, as in count and solve.
  tbb::global_control cap(tbb::global_control::max_allowed_parallelism,
                          static_cast<std::size_t>(r.threads));
  tbb::task_arena arena(r.threads);
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

}  // namespace nq
