#include "engine/count/estimate.hpp"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "engine/count/cost.hpp"
#include "engine/count/count.hpp"
#include "engine/count/memory.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/schedule.hpp"
#include "engine/count/splits.hpp"
#include "kernels/kernels.hpp"

namespace nq {
namespace {

constexpr int kMaxStrata = 32;
// Draws a stratum holds at --samples' count: four, not two. With two, each stratum's variance is
// known to one degree of freedom, and the subproblems' solutions over their estimated cost are
// skewed enough that the 95% interval of Q(n) then missed 15 times in 100 seeds at n = 21; with
// four it missed 5, and came out narrower (perf/results/log.md).
constexpr int kDrawsPerStratum = 4;
constexpr double kZ95 = 1.959964;
// The timing passes after the first are gathered into this many blocks of the window, each a
// measure of the machine's speed (draws_per_pass cuts passes longer than a block).
constexpr int kSpeedBlocks = 8;

// One stratum: positions [begin, end) of the tasks sorted by cost, and their total cost.
struct Stratum {
  std::size_t begin = 0, end = 0;
  double cost = 0;
};

// A drawn subproblem: its rank and the probability of drawing it, relative to its stratum
// (its estimated cost over the stratum's).
struct Draw {
  std::uint64_t rank = 0;
  std::uint64_t part = 0;  // its piece of the rank (Plan::parts)
  double cost = 0;         // its estimated cost (the cost model's)
  double share = 0;
  int stratum = 0;
  std::vector<double> seconds;  // its estimated seconds, one per timing pass
  double solutions = 0;         // weighted
  bool within = false;          // only some of its chunk pairs counted
  double spent = 0;             // CPU seconds this draw took
  // Its estimated seconds over every pass.
  double mean_seconds() const {
    return std::accumulate(seconds.begin(), seconds.end(), 0.0) /
           static_cast<double>(seconds.size());
  }
};

// The two-sided 95% quantile of Student's t with `df` degrees of freedom (the normal's from 30):
// with few draws per stratum the standard error is itself uncertain.
double t95(int df) {
  static constexpr double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                  2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                  2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                  2.060,  2.056, 2.052, 2.048, 2.045};
  return df >= 1 && df <= 29 ? kT[df - 1] : kZ95;
}

// Satterthwaite's degrees of freedom of a sum of independent variance estimates v_h, each with
// d_h degrees of freedom: (sum v_h)^2 / sum (v_h^2 / d_h), given as the variance and
// `spread` = sum v_h^2 / d_h; at least 1, at most `most` (the d_h summed). A variance of 0 (every
// draw alike) keeps `most`.
int effective_df(double variance, double spread, int most) {
  if (!(spread > 0) || !(variance > 0)) return std::max(most, 1);
  return std::clamp(static_cast<int>(variance * variance / spread), 1, std::max(most, 1));
}

// Both estimates (seconds, solutions) are never negative, and neither is their interval.
Interval interval(double value, double variance, int df) {
  const double half = t95(df) * std::sqrt(std::max(variance, 0.0));
  return {value, std::max(0.0, value - half), value + half};
}

}  // namespace

std::size_t draws_per_pass(std::size_t draws, int threads, double pass_seconds, double window) {
  if (draws == 0 || !(pass_seconds * kSpeedBlocks > window)) return draws;
  const double part =
      std::ceil(static_cast<double>(draws) * window / (kSpeedBlocks * pass_seconds));
  const std::size_t least =
      std::min<std::size_t>(draws, static_cast<std::size_t>(std::max(1, threads)));
  return std::clamp(static_cast<std::size_t>(std::max(part, 1.0)), least, draws);
}

PassSpeeds pass_speeds(const std::vector<double>& weights,
                       const std::vector<std::vector<std::pair<std::size_t, double>>>& passes) {
  PassSpeeds out;
  if (passes.size() < 2) return out;
  const std::size_t draws = weights.size();
  std::vector<double> first(draws, 0), sum(draws, 0), times(draws, 0);
  for (const auto& [d, t] : passes[0]) first[d] = t;
  for (const auto& pass : passes)
    for (const auto& [d, t] : pass) {
      sum[d] += t;
      times[d] += 1;
    }
  std::vector<double> speed;
  for (const auto& pass : passes) {
    double now = 0, then = 0;
    for (const auto& [d, t] : pass) {
      now += weights[d] * t;
      then += weights[d] * first[d];
    }
    if (then > 0) speed.push_back(now / then);
  }
  out.passes = static_cast<int>(speed.size());
  const double p = static_cast<double>(speed.size());
  if (p >= 2) {
    const double mean = std::accumulate(speed.begin(), speed.end(), 0.0) / p;
    double ss = 0;
    for (const double f : speed) ss += (f - mean) * (f - mean);
    out.spread = std::sqrt(ss / (p - 1));
  }
  // c_p: the estimate's share carried by pass p's timings (a draw's weighted mean seconds, over
  // the estimate, split evenly among its timings).
  double estimate = 0;
  for (std::size_t d = 0; d < draws; ++d)
    if (times[d] > 0) estimate += weights[d] * sum[d] / times[d];
  if (estimate > 0)
    for (const auto& pass : passes) {
      double c = 0;
      for (const auto& [d, t] : pass) c += weights[d] * sum[d] / times[d] / times[d];
      c /= estimate;
      out.mean_share += c * c;
    }
  return out;
}

Expected<EstimateResult> estimate_count(const EstimateConfig& config) {
  const int n = config.n;
  if (n < 4 || n > kMaxN)
    return Error{"n must be between 4 and " + std::to_string(kMaxN) + ", got " + std::to_string(n)};
  if (config.samples < 1)
    return Error{"samples must be at least 1, got " + std::to_string(config.samples)};
  if (config.pieces < 1)
    return Error{"pieces must be at least 1, got " + std::to_string(config.pieces)};
  if (!(config.seconds >= 0) || !std::isfinite(config.seconds))
    return Error{"seconds must be a number >= 0, got " + std::to_string(config.seconds)};
  if (!(config.spread >= 0) || !std::isfinite(config.spread))
    return Error{"spread must be a number of seconds >= 0, got " + std::to_string(config.spread)};
  if (config.procs < 1) return Error{"procs must be at least 1"};
  if (config.ranks < 0) return Error{"ranks must be at least 1"};
  if (config.cores < 0) return Error{"cores must be at least 1"};
  if (!(config.root_seconds >= 0) || !std::isfinite(config.root_seconds))
    return Error{"root seconds must be a number >= 0"};
  if (config.node_cores < 1) return Error{"node cores must be at least 1"};
  if (config.threads < 0) return Error{"threads must be at least 1"};
  if (config.check < 0) return Error{"check must be at least 0"};
  if (config.check_rows < 0 || config.check_rows >= n)
    return Error{"check rows must be between 0 and n - 1 = " + std::to_string(n - 1) + ", got " +
                 std::to_string(config.check_rows)};
  const Kernel* join = find_kernel("join");
  if (!join || !join->supported()) return Error{"the join kernel cannot run here"};
  const auto start = std::chrono::steady_clock::now();
  // Wall seconds since t.
  const auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  CallArena arena(config.threads);  // within what the host allows TBB (base/threads.hpp)
  const int threads = arena.threads();

  // A cluster's plan is cut as nqcount-mpi cuts it for all its threads.
  const std::uint64_t all_threads = static_cast<std::uint64_t>(std::max(config.ranks, 1)) *
                                    static_cast<std::uint64_t>(config.procs);
  const Plan plan = plan_rowsplit(n, false, {},
                                  config.ranks == 0      ? 0
                                  : config.min_tasks > 0 ? config.min_tasks
                                                         : cluster_plan_tasks(n, all_threads));
  const int probe = detail::cost_probe_rows(n);
  std::vector<std::uint64_t> costs;
  arena.execute([&] { costs = estimate_costs(plan); });
  // Tasks by cost (ascending), those with none (no representative rank) left out.
  std::vector<std::uint32_t> sorted;
  sorted.reserve(costs.size());
  for (std::size_t i = 0; i < costs.size(); ++i)
    if (costs[i] > 0) sorted.push_back(static_cast<std::uint32_t>(i));
  arena.execute([&] {
    tbb::parallel_sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) {
      return costs[a] != costs[b] ? costs[a] < costs[b] : a < b;
    });
  });
  std::vector<double> prefix(sorted.size() + 1, 0);  // cost of sorted positions [0, k)
  for (std::size_t k = 0; k < sorted.size(); ++k)
    prefix[k + 1] = prefix[k] + static_cast<double>(costs[sorted[k]]);
  const double total_cost = prefix.back();

  // Strata of about equal estimated cost, kDrawsPerStratum draws each (at least two).
  const int wanted = std::clamp(config.samples / kDrawsPerStratum, 1, kMaxStrata);
  std::vector<Stratum> strata;
  for (std::size_t b = 0; b < sorted.size();) {
    const double goal = total_cost * static_cast<double>(strata.size() + 1) / wanted;
    std::size_t e = static_cast<std::size_t>(
        std::lower_bound(prefix.begin() + static_cast<std::ptrdiff_t>(b) + 1, prefix.end(), goal) -
        prefix.begin());
    e = std::clamp<std::size_t>(e, b + 1, sorted.size());
    if (static_cast<int>(strata.size()) + 1 == wanted) e = sorted.size();
    strata.push_back({b, e, prefix[e] - prefix[b]});
    b = e;
  }

  std::mt19937_64 rng(config.seed ^ (static_cast<std::uint64_t>(n) << 56));
  auto draw_from = [&](int h) {
    const Stratum& s = strata[static_cast<std::size_t>(h)];
    std::uniform_real_distribution<double> u(prefix[s.begin], prefix[s.end]);
    std::size_t k = static_cast<std::size_t>(
        std::upper_bound(prefix.begin() + static_cast<std::ptrdiff_t>(s.begin) + 1,
                         prefix.begin() + static_cast<std::ptrdiff_t>(s.end) + 1, u(rng)) -
        prefix.begin() - 1);
    k = std::min(k, s.end - 1);
    const std::uint32_t task = sorted[k];
    // One of the task's representative ranks, by its own cost.
    std::vector<std::pair<std::uint64_t, double>> ranks;
    double sum = 0;
    for (std::uint64_t r = plan.first_rank(task); r < plan.end_rank(task); ++r)
      if (const detail::RowSplitKey key = detail::rowsplit_key(n, r); key.weight != 0) {
        const auto c = static_cast<double>(
            detail::estimate_join_cost(detail::rowsplit_task_part(plan, task, key), probe));
        ranks.emplace_back(r, c);
        sum += c;
      }
    std::uniform_real_distribution<double> v(0, sum);
    double x = v(rng);
    std::size_t pick = 0;
    while (pick + 1 < ranks.size() && x >= ranks[pick].second) x -= ranks[pick++].second;
    Draw d;
    d.rank = ranks[pick].first;
    d.part = plan.part(task);
    d.cost = ranks[pick].second;
    d.share = ranks[pick].second / s.cost;
    d.stratum = h;
    return d;
  };

  // Counts and times one draw (once more on every pass: its seconds get one more entry).
  auto time_draw = [&](Draw& d) {
    thread_local int prepared = -1;
    if (join->prepare && prepared != n) {
      join->prepare(n);
      prepared = n;
    }
    const double start_cpu = thread_cpu_seconds();
    const detail::RowSplitKey key = detail::rowsplit_key(n, d.rank);
    const Subproblem whole = detail::rowsplit_subproblem(n, key);
    const Subproblem s = detail::rowsplit_part(whole, d.part, plan.parts);
    // In a count the kernel comes to a subproblem from its neighbour in plan order: it mostly
    // reuses the neighbour's bottom parts, and finds the pairing's scratch in cache, warm from
    // the neighbour's last chunk pair. So the neighbour is counted first, untimed, and the timed
    // count sees what it would see in the run. Counted cold, the samples' time was 2 to 2.5
    // times the measured at n = 18 and 20; after the neighbour's bottom parts alone, 13 to 17%
    // above it at n = 21 (a subproblem takes about 2 ms there, and the pairing's scratch,
    // evicted by the bottom parts, is megabytes). A subproblem too large to count whole (from
    // about n = 26) is timed after the neighbour's bottom parts only: its chunk pairs take
    // seconds, a cache warmed in milliseconds does not show in them, and a chunk pair of the
    // neighbour would be a third of the draw's work. Its first timing tells which it is.
    // (The neighbour of a rank's piece is its previous piece, or the last of the rank before.)
    const auto warm = [&](std::uint64_t pieces) {
      if (d.part > 0) {
        sample_join(detail::rowsplit_part(whole, d.part - 1, plan.parts), pieces, d.rank,
                    &thread_cpu_seconds);
        return;
      }
      for (std::uint64_t before = d.rank; before-- > 0 && before + 64 > d.rank;)
        if (const detail::RowSplitKey k = detail::rowsplit_key(n, before); k.weight != 0) {
          sample_join(
              detail::rowsplit_part(detail::rowsplit_subproblem(n, k), plan.parts - 1, plan.parts),
              pieces, before, &thread_cpu_seconds);
          return;
        }
    };
    const auto timed = [&] {
      return sample_join(s, static_cast<std::uint64_t>(config.pieces),
                         config.seed * 0x9e3779b97f4a7c15ull + d.rank, &thread_cpu_seconds);
    };
    const bool first = d.seconds.empty();
    warm(first || d.within ? 0 : 1);
    JoinSample js = timed();
    const bool within = js.pieces < js.east_chunks * js.west_chunks;
    if (first && !within) {  // small enough to count whole: warm as in the run, and again
      warm(1);
      js = timed();
    }
    // The two-stage estimate of the subproblem's count and time (kernels.hpp, JoinSample).
    const double pieces = static_cast<double>(js.east_chunks) * static_cast<double>(js.west_chunks);
    const double scale = js.pieces ? pieces / static_cast<double>(js.pieces) : 0;
    d.within = within;
    d.seconds.push_back(js.setup_seconds +
                        static_cast<double>(js.west_chunks <= 1 ? 1 : js.east_chunks) *
                            js.west_seconds +
                        scale * js.pair_seconds);
    d.solutions = static_cast<double>(key.weight) * static_cast<double>(js.solutions) * scale;
    d.spent += thread_cpu_seconds() - start_cpu;
  };

  std::vector<Draw> draws;
  int rounds_done = 0;  // rounds drawn (one draw per stratum each)
  const int rounds_wanted = std::max(
      2, (config.samples + static_cast<int>(strata.size()) - 1) / static_cast<int>(strata.size()));
  for (int round = 0; round < rounds_wanted; ++round) {
    if (round >= 2 && config.seconds > 0 && since(start) >= config.seconds) break;
    const std::size_t first = draws.size();
    for (int h = 0; h < static_cast<int>(strata.size()); ++h) draws.push_back(draw_from(h));
    ++rounds_done;
    arena.execute([&] {
      tbb::parallel_for(first, draws.size(), [&](std::size_t i) { time_draw(draws[i]); });
    });
  }
  // Each later pass times the draws again, until the passes after the first have taken the
  // spread's seconds (at most half the count's estimated wall time on these threads: the count
  // meets the machine's mean speed over its hours, and the passes should see a fair part of
  // them); each pass all of them, or the next `per_pass` in turn where a pass over all would
  // leave too few passes in the window (draws_per_pass). The passes' timings are gathered by
  // the eighth of the window they end in, its block; the first pass is a block of its own.
  // timings[b]: block b's (draw, seconds).
  std::vector<std::vector<std::pair<std::size_t, double>>> timings(1);
  for (std::size_t i = 0; i < draws.size(); ++i) timings[0].emplace_back(i, draws[i].seconds[0]);
  int passes = 1;
  double retimed = 0;  // wall seconds of the passes after the first
  std::size_t per_pass = draws.size();
  if (config.spread > 0) {
    double first_pass = 0, spent = 0;
    for (const Draw& d : draws) {
      first_pass += d.seconds[0] / d.share;
      spent += d.spent;
    }
    first_pass /= static_cast<double>(rounds_done);  // each round estimates the total
    const double window = std::min(config.spread, 0.5 * first_pass / threads);
    const std::size_t busy = std::min<std::size_t>(draws.size(), static_cast<std::size_t>(threads));
    per_pass = draws_per_pass(draws.size(), threads, spent / static_cast<double>(busy), window);
    const auto again = std::chrono::steady_clock::now();
    std::size_t next = 0;  // the first draw of the next pass
    int block = 0;         // the last pass's block
    do {
      // This pass's draws: the `per_pass` from `from` on, round the sample.
      const std::size_t from = next;
      auto draw = [&](std::size_t k) { return (from + k) % draws.size(); };
      next = draw(per_pass);
      arena.execute([&] {
        tbb::parallel_for(std::size_t{0}, per_pass,
                          [&](std::size_t k) { time_draw(draws[draw(k)]); });
      });
      ++passes;
      // The eighth of the window this pass ended in (the last one past it, or with no window).
      const double part = window > 0 ? std::min(1.0, since(again) / window) : 1.0;
      const int now = 1 + std::min(kSpeedBlocks - 1, static_cast<int>(kSpeedBlocks * part));
      if (now != block) timings.emplace_back();
      block = now;
      for (std::size_t k = 0; k < per_pass; ++k)
        timings.back().emplace_back(draw(k), draws[draw(k)].seconds.back());
    } while (since(again) < window);
    retimed = since(again);
  }

  // The stratified Hansen-Hurwitz estimates, of the seconds from each draw's mean over its
  // timings; and each draw's weight in the seconds' estimate, for the passes' speeds.
  EstimateResult r;
  double sec = 0, sec_var = 0, q = 0, q_var = 0;
  // Per estimate, the sum over the strata of v_h^2 / (k_h - 1): Satterthwaite's denominator.
  double sec_var_spread = 0, q_var_spread = 0;
  std::vector<double> weights(draws.size(), 0.0);
  for (int h = 0; h < static_cast<int>(strata.size()); ++h) {
    std::vector<double> zs, zq;
    for (const Draw& d : draws)
      if (d.stratum == h) {
        zs.push_back(d.mean_seconds() / d.share);
        zq.push_back(d.solutions / d.share);
      }
    for (std::size_t i = 0; i < draws.size(); ++i)
      if (draws[i].stratum == h) weights[i] = 1 / (draws[i].share * static_cast<double>(zs.size()));
    auto add = [](const std::vector<double>& z, double& value, double& variance, double& spread) {
      const double k = static_cast<double>(z.size());
      const double mean = std::accumulate(z.begin(), z.end(), 0.0) / k;
      double ss = 0;
      for (double x : z) ss += (x - mean) * (x - mean);
      const double v = ss / (k - 1) / k;
      value += mean;
      variance += v;
      spread += v * v / (k - 1);
    };
    add(zs, sec, sec_var, sec_var_spread);
    add(zq, q, q_var, q_var_spread);
  }
  for (const Draw& d : draws) {
    r.sample_seconds += d.spent;
    r.sampled_within += d.within;
  }
  r.n = n;
  r.subproblems = rowsplit_subproblems(n);
  r.ranks = plan.ranks;
  r.tasks = plan.size();
  r.strata = static_cast<int>(strata.size());
  r.samples = static_cast<int>(draws.size());
  // Degrees of freedom: Satterthwaite's for a sum of the strata's variances, each estimated with
  // its draws less one: at most the draws less one per stratum, where every stratum's variance
  // is alike, and fewer where a few strata hold most of it (with two draws a stratum, each of
  // those is known to one degree of freedom, and the normal's 1.96 then covered Q(21) 85 times
  // in 100, not 95).
  const int most = static_cast<int>(draws.size() - strata.size());
  const int df = effective_df(q_var, q_var_spread, most);
  r.total = interval(q, q_var, df);
  const int sec_sampling_df = effective_df(sec_var, sec_var_spread, most);
  // The core-seconds' interval is for the count's measured time, which runs at the machine's
  // speed of its own hours, not the sample's: so it adds to the sampling variance the spread of
  // the blocks' speeds s^2 (B blocks, the first pass one of them, B - 1 degrees of freedom) once
  // for the count, and once for the speeds in the draws' means (pass_speeds: its mean share).
  // The two combine by Welch and Satterthwaite's degrees of freedom. A block, not a pass: a
  // pass of milliseconds (64 draws at n = 20 take 30 ms on 2 threads) measures the draws'
  // timing noise more than the machine's speed, which the count averages over its hours: pass
  // by pass, the intervals came out several times wider than the error of their mean against
  // the counts (perf/results/log.md).
  r.passes = passes;
  r.speed_blocks = static_cast<int>(timings.size());
  r.pass_draws = static_cast<int>(per_pass);
  r.spread_seconds = retimed;
  r.sampling_error = sec > 0 ? std::sqrt(sec_var) / sec : 0;
  double speed_var = 0;
  int sec_df = sec_sampling_df;
  if (const PassSpeeds speeds = pass_speeds(weights, timings); speeds.passes >= 2) {
    r.speed_spread = speeds.spread;
    speed_var = sec * sec * speeds.spread * speeds.spread * (1 + speeds.mean_share);
    const double total = sec_var + speed_var;
    const double denominator = (sec_sampling_df > 0 ? sec_var * sec_var / sec_sampling_df : 0) +
                               speed_var * speed_var / (speeds.passes - 1);
    if (denominator > 0) sec_df = std::max(1, static_cast<int>(total * total / denominator));
  }
  r.core_seconds = interval(sec, sec_var + speed_var, sec_df);
  r.sample_core_seconds = interval(sec, sec_var, sec_sampling_df);

  // Memory: one worker's scratch, and the process's arrays for the whole plan.
  CountConfig one;
  one.n = n;
  one.threads = 1;
  const MemoryEstimate m = estimate_memory(plan, one, plan.size());
  r.worker_bytes = m.threads;
  r.process_bytes = m.fixed + m.plan + m.run;

  // The wall time: the plan's tasks, each its estimated cost's share of the estimated seconds,
  // replayed by the simulator in the runner's own order and policy.
  std::vector<TaskStat> tasks(plan.size());
  const double per_cost = total_cost > 0 ? sec / total_cost : 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].id = static_cast<std::uint32_t>(i);
    tasks[i].estimate = static_cast<double>(costs[i]);
    tasks[i].seconds = static_cast<double>(costs[i]) * per_cost;
    tasks[i].plan_order = true;
  }
  r.procs = config.procs;
  if (config.ranks > 0) {
    // nqcount-mpi deals runs of consecutive tasks largest first (dealer_order).
    const double shared =
        config.cores > 0 ? std::max(1.0, static_cast<double>(all_threads) / config.cores) : 1.0;
    for (TaskStat& t : tasks) {
      t.plan_order = false;
      t.seconds *= shared;
    }
    r.cluster = true;
    r.root_seconds = config.root_seconds;
    r.cores = config.cores;
    r.deal = simulate_dealer(tasks, config.ranks, config.procs, config.root_seconds);
    r.wall_seconds = r.deal.makespan;
    r.efficiency = r.deal.efficiency;
    // Again with every task's time scattered around its cost's share as the draws' times were:
    // each draw's mean seconds over its cost's share of the sampled seconds, these ratios taken
    // to a mean of 1 (over draws made in proportion to cost, the mean is the cost-weighted one,
    // so the work stays the same), and each task given one of them, drawn at random (seeded);
    // a task of several ranks the mean of as many (64 at most). A draw counted in part (from
    // n = 26) adds its chunk pairs' sampling error to its ratio, so the scatter may err wide
    // there (at n = 28, 8 chunk pairs a draw gave the same +-44% as 2).
    std::vector<double> strays;
    for (const Draw& d : draws) {
      if (d.cost > 0 && per_cost > 0) strays.push_back(d.mean_seconds() / (d.cost * per_cost));
    }
    const double mean_stray = strays.empty() ? 0
                                             : std::accumulate(strays.begin(), strays.end(), 0.0) /
                                                   static_cast<double>(strays.size());
    if (mean_stray > 0) {
      double ss = 0;
      for (double& x : strays) {
        x /= mean_stray;
        ss += (x - 1) * (x - 1);
      }
      r.scatter = strays.size() > 1 ? std::sqrt(ss / static_cast<double>(strays.size() - 1)) : 0;
      std::mt19937_64 pick(config.seed ^ 0x73636174746572ull);
      std::uniform_int_distribution<std::size_t> any(0, strays.size() - 1);
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        const std::uint64_t ranks_in = std::max<std::uint64_t>(
            1, std::min<std::uint64_t>(plan.end_rank(i) - plan.first_rank(i), 64));
        double sum = 0;
        for (std::uint64_t k = 0; k < ranks_in; ++k) sum += strays[any(pick)];
        tasks[i].seconds *= sum / static_cast<double>(ranks_in);
      }
      r.scattered = simulate_dealer(tasks, config.ranks, config.procs, config.root_seconds);
    }
  } else {
    const SimulatedRun run =
        simulate_schedule(tasks, config.procs, std::min(config.node_cores, config.procs), 0, true);
    r.wall_seconds = run.makespan;
    r.efficiency = run.efficiency;
  }
  tasks = {};
  tasks.shrink_to_fit();
  // The check: uniform draws, the cheapest counted whole by both kernels.
  if (config.check > 0) {
    std::mt19937_64 pick(config.seed ^ 0x636865636bull ^ (static_cast<std::uint64_t>(n) << 48));
    std::uniform_int_distribution<std::uint64_t> any(0, plan.ranks - 1);
    // The part of a rank's subproblem with check_rows rows fixed (all of it with none).
    auto checked_part = [&](std::uint64_t rank) {
      return detail::fix_first_rows(detail::rowsplit_subproblem(n, detail::rowsplit_key(n, rank)),
                                    config.check_rows, config.seed * 0x2545f4914f6cdd1dull ^ rank);
    };
    std::vector<std::pair<std::uint64_t, std::uint64_t>> drawn;  // (cost, rank)
    const std::size_t want = 64 * static_cast<std::size_t>(config.check);
    while (drawn.size() < want)
      if (const std::uint64_t rank = any(pick); detail::rowsplit_key(n, rank).weight != 0)
        drawn.emplace_back(detail::estimate_join_cost(checked_part(rank), probe), rank);
    std::sort(drawn.begin(), drawn.end());
    drawn.resize(static_cast<std::size_t>(config.check));
    struct Checked {
      std::uint64_t join = 0, search = 0;
      double seconds = 0;
    };
    std::vector<Checked> checked(drawn.size());
    const Kernel& search = best_kernel();
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, drawn.size(), [&](std::size_t i) {
        const Subproblem s = checked_part(drawn[i].second);
        Tally a, b;
        join->count(std::span<const Subproblem>(&s, 1), std::span<Tally>(&a, 1));
        const double t0 = thread_cpu_seconds();
        search.count(std::span<const Subproblem>(&s, 1), std::span<Tally>(&b, 1));
        checked[i] = {a.solutions, b.solutions, thread_cpu_seconds() - t0};
      });
    });
    for (std::size_t i = 0; i < checked.size(); ++i) {
      r.check_seconds += checked[i].seconds;
      r.checked_solutions += checked[i].search;
      if (checked[i].join != checked[i].search && r.check_failure.empty())
        r.check_failure = "rank " + std::to_string(drawn[i].second) +
                          (config.check_rows > 0
                               ? " (its first " + std::to_string(config.check_rows) + " rows fixed)"
                               : std::string()) +
                          ": the join counted " + std::to_string(checked[i].join) +
                          " solutions, the " + std::string(search.name) + " search " +
                          std::to_string(checked[i].search);
    }
    r.checked = static_cast<int>(checked.size());
    r.check_rows = config.check_rows;
  }
  r.seconds = since(start);
  return r;
}

}  // namespace nq
