// The estimate (estimate.hpp) as a sequence of stages (estimate_stages.hpp): here the config's
// check, the plan and its strata, the intervals, the memory and the replay, and the sequence;
// drawing and timing the sample in estimate_sample.cpp, the check in estimate_check.cpp.
#include "engine/count/estimate.hpp"

#include <oneapi/tbb/parallel_sort.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "engine/count/count.hpp"
#include "engine/count/dealer.hpp"
#include "engine/count/memory.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/simulate.hpp"
#include "engine/count/src/cost.hpp"
#include "engine/count/src/estimate_stages.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"

namespace nq {

std::size_t draws_per_pass(std::size_t draws, int threads, double pass_seconds, double window) {
  if (draws == 0 || !(pass_seconds * detail::kSpeedBlocks > window)) return draws;
  const double part =
      std::ceil(static_cast<double>(draws) * window / (detail::kSpeedBlocks * pass_seconds));
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
  const auto join = detail::checked_join(config);
  if (!join) return join.error();
  const auto start = detail::EstimateClock::now();
  CallArena arena(config.threads);  // within what the host allows TBB (base/threads.hpp)
  const Plan plan = detail::estimate_plan(config);
  const detail::SamplingFrame frame = detail::sampling_frame(plan, config.samples, arena);
  const detail::Sampler sampler{**join,
                                plan,
                                frame,
                                detail::cost_probe_rows(config.n),
                                static_cast<std::uint64_t>(config.pieces),
                                config.seed};
  detail::Sample sample =
      detail::draw_sample(sampler, config.samples, config.seconds, start, arena);
  const detail::Timings timings = detail::time_again(sampler, sample, config.spread, arena);
  EstimateResult r;
  detail::describe_sample(plan, frame, sample, timings, r);
  detail::estimate_intervals(sample.draws, frame.strata.size(), timings, r);
  detail::estimate_plan_memory(plan, r);
  detail::replay(config, plan, frame, sample.draws, r.core_seconds.value, r);
  if (config.check > 0) detail::check_kernels(sampler, config, arena, r);
  r.seconds = detail::seconds_since(start);
  return r;
}

namespace detail {

double seconds_since(EstimateClock::time_point t) {
  return std::chrono::duration<double>(EstimateClock::now() - t).count();
}

Expected<const Kernel*> checked_join(const EstimateConfig& config) {
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
  return join;
}

std::uint64_t cluster_threads(const EstimateConfig& config) {
  return static_cast<std::uint64_t>(std::max(config.ranks, 1)) *
         static_cast<std::uint64_t>(config.procs);
}

Plan estimate_plan(const EstimateConfig& config) {
  return plan_rowsplit(config.n, false, {},
                       config.ranks == 0 ? 0
                       : config.min_tasks > 0
                           ? config.min_tasks
                           : cluster_plan_tasks(config.n, cluster_threads(config)));
}

SamplingFrame sampling_frame(const Plan& plan, int samples, CallArena& arena) {
  SamplingFrame f;
  arena.execute([&] { f.costs = estimate_costs(plan); });
  // Tasks by cost (ascending), those with none (no representative split) left out.
  f.sorted.reserve(f.costs.size());
  for (std::size_t i = 0; i < f.costs.size(); ++i)
    if (f.costs[i] > 0) f.sorted.push_back(static_cast<std::uint32_t>(i));
  const std::vector<std::uint64_t>& costs = f.costs;
  arena.execute([&] {
    tbb::parallel_sort(f.sorted.begin(), f.sorted.end(), [&](std::uint32_t a, std::uint32_t b) {
      return costs[a] != costs[b] ? costs[a] < costs[b] : a < b;
    });
  });
  f.prefix.assign(f.sorted.size() + 1, 0);
  for (std::size_t k = 0; k < f.sorted.size(); ++k)
    f.prefix[k + 1] = f.prefix[k] + static_cast<double>(costs[f.sorted[k]]);
  f.strata = cut_strata(f.prefix, std::clamp(samples / kDrawsPerStratum, 1, kMaxStrata));
  return f;
}

std::vector<Stratum> cut_strata(const std::vector<double>& prefix, int wanted) {
  const std::size_t positions = prefix.size() - 1;
  const double total_cost = prefix.back();
  std::vector<Stratum> strata;
  for (std::size_t b = 0; b < positions;) {
    const double goal = total_cost * static_cast<double>(strata.size() + 1) / wanted;
    std::size_t e = static_cast<std::size_t>(
        std::lower_bound(prefix.begin() + static_cast<std::ptrdiff_t>(b) + 1, prefix.end(), goal) -
        prefix.begin());
    e = std::clamp<std::size_t>(e, b + 1, positions);
    if (static_cast<int>(strata.size()) + 1 == wanted) e = positions;
    strata.push_back({b, e, prefix[e] - prefix[b]});
    b = e;
  }
  return strata;
}

void describe_sample(const Plan& plan, const SamplingFrame& frame, const Sample& sample,
                     const Timings& timings, EstimateResult& out) {
  for (const Draw& d : sample.draws) {
    out.sample_seconds += d.spent;
    out.sampled_within += d.within;
  }
  out.n = plan.n;
  out.subproblems = rowsplit_subproblems(plan.n);
  out.splits = plan.splits;
  out.tasks = plan.size();
  out.strata = static_cast<int>(frame.strata.size());
  out.samples = static_cast<int>(sample.draws.size());
  out.passes = timings.passes;
  out.speed_blocks = static_cast<int>(timings.blocks.size());
  out.pass_draws = static_cast<int>(timings.per_pass);
  out.spread_seconds = timings.spread_seconds;
}

void StratifiedSum::add(const std::vector<double>& z) {
  const double k = static_cast<double>(z.size());
  const double mean = std::accumulate(z.begin(), z.end(), 0.0) / k;
  double ss = 0;
  for (double x : z) ss += (x - mean) * (x - mean);
  const double v = ss / (k - 1) / k;
  value += mean;
  variance += v;
  spread += v * v / (k - 1);
}

double t95(int df) {
  static constexpr double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                  2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                  2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                  2.060,  2.056, 2.052, 2.048, 2.045};
  constexpr double kZ95 = 1.959964;
  return df >= 1 && df <= 29 ? kT[df - 1] : kZ95;
}

int effective_df(double variance, double spread, int most) {
  if (!(spread > 0) || !(variance > 0)) return std::max(most, 1);
  return std::clamp(static_cast<int>(variance * variance / spread), 1, std::max(most, 1));
}

int welch_df(double a, int a_df, double b, int b_df, int otherwise) {
  const double total = a + b;
  const double denominator = (a_df > 0 ? a * a / a_df : 0) + b * b / b_df;
  return denominator > 0 ? std::max(1, static_cast<int>(total * total / denominator)) : otherwise;
}

Interval interval(double value, double variance, int df) {
  const double half = t95(df) * std::sqrt(std::max(variance, 0.0));
  return {value, std::max(0.0, value - half), value + half};
}

namespace {

// The stratified sums of the seconds (each draw's mean over its timings) and of Q(n), and each
// draw's weight in the seconds' estimate (1 / (its share x its stratum's draws)), for the speeds.
struct StrataSums {
  StratifiedSum seconds, solutions;
  std::vector<double> weights;
};

StrataSums strata_sums(const std::vector<Draw>& draws, std::size_t strata) {
  StrataSums out;
  out.weights.assign(draws.size(), 0.0);
  for (int h = 0; h < static_cast<int>(strata); ++h) {
    std::vector<double> zs, zq;
    for (const Draw& d : draws)
      if (d.stratum == h) {
        zs.push_back(d.mean_seconds() / d.share);
        zq.push_back(d.solutions / d.share);
      }
    for (std::size_t i = 0; i < draws.size(); ++i)
      if (draws[i].stratum == h)
        out.weights[i] = 1 / (draws[i].share * static_cast<double>(zs.size()));
    out.seconds.add(zs);
    out.solutions.add(zq);
  }
  return out;
}

}  // namespace

void estimate_intervals(const std::vector<Draw>& draws, std::size_t strata, const Timings& timings,
                        EstimateResult& out) {
  const StrataSums sums = strata_sums(draws, strata);
  const StratifiedSum &sec = sums.seconds, &q = sums.solutions;
  // Degrees of freedom: Satterthwaite's for a sum of the strata's variances, each estimated with
  // its draws less one: at most the draws less one per stratum, where every stratum's variance
  // is alike, and fewer where a few strata hold most of it.
  const int most = static_cast<int>(draws.size() - strata);
  out.total = interval(q.value, q.variance, effective_df(q.variance, q.spread, most));
  const int sampling_df = effective_df(sec.variance, sec.spread, most);
  // The core-seconds' interval is for the count's measured time, which runs at the machine's
  // speed of its own hours, not the sample's: so it adds to the sampling variance the spread of
  // the blocks' speeds s^2 (B blocks, the first pass one of them, B - 1 degrees of freedom) once
  // for the count, and once for the speeds in the draws' means (pass_speeds: its mean share).
  // The two combine by Welch and Satterthwaite's degrees of freedom. A block, not a pass: a
  // pass of milliseconds measures the draws' timing noise more than the machine's speed, which
  // the count averages over its hours (perf/results/log.md).
  out.sampling_error = sec.value > 0 ? std::sqrt(sec.variance) / sec.value : 0;
  double speed_var = 0;
  int sec_df = sampling_df;
  if (const PassSpeeds speeds = pass_speeds(sums.weights, timings.blocks); speeds.passes >= 2) {
    out.speed_spread = speeds.spread;
    speed_var = sec.value * sec.value * speeds.spread * speeds.spread * (1 + speeds.mean_share);
    // At most the sampling's own: Welch and Satterthwaite's exceed it where a small speed
    // spread brings its blocks' degrees of freedom, and the interval with the machine's speed
    // would then be narrower than the sample's alone (a smaller t over a barely larger variance).
    sec_df =
        std::min(welch_df(sec.variance, sampling_df, speed_var, speeds.passes - 1, sampling_df),
                 sampling_df);
  }
  out.core_seconds = interval(sec.value, sec.variance + speed_var, sec_df);
  out.sample_core_seconds = interval(sec.value, sec.variance, sampling_df);
}

void estimate_plan_memory(const Plan& plan, EstimateResult& out) {
  CountConfig one;
  one.n = plan.n;
  one.threads = 1;
  const MemoryEstimate m = estimate_memory(plan, one, plan.size());
  out.worker_bytes = m.threads;
  out.process_bytes = m.fixed + m.plan + m.run;
}

namespace {

// The draws' times around their costs' shares: each draw's mean seconds over its cost's share
// of the estimated seconds (`per_cost` a unit of cost), these ratios taken to a mean of 1 (over
// draws made in proportion to cost, the mean is the cost-weighted one, so the work stays the
// same), and their relative standard deviation. No ratios where they have no mean.
struct CostRatios {
  std::vector<double> ratios;
  double scatter = 0;
};

CostRatios cost_ratios(const std::vector<Draw>& draws, double per_cost) {
  CostRatios out;
  for (const Draw& d : draws)
    if (d.cost > 0 && per_cost > 0) out.ratios.push_back(d.mean_seconds() / (d.cost * per_cost));
  std::vector<double>& strays = out.ratios;
  const double mean = strays.empty() ? 0
                                     : std::accumulate(strays.begin(), strays.end(), 0.0) /
                                           static_cast<double>(strays.size());
  if (!(mean > 0)) return {};
  double ss = 0;
  for (double& x : strays) {
    x /= mean;
    ss += (x - 1) * (x - 1);
  }
  out.scatter = strays.size() > 1 ? std::sqrt(ss / static_cast<double>(strays.size() - 1)) : 0;
  return out;
}

// nqcount-mpi's run replayed through its dealer (dealer_order deals runs of consecutive tasks
// largest first), every task slowed where the ranks' threads share fewer cores; then again with
// every task's time scattered as the draws' were: each task given one of the ratios, drawn at
// random (seeded), a task of several splits the mean of as many (64 at most). A draw counted in
// part (from n = 26) adds its chunk pairs' sampling error to its ratio, so the scatter may err
// wide there.
void replay_cluster(const EstimateConfig& config, const Plan& plan, std::vector<TaskStat>& tasks,
                    const std::vector<Draw>& draws, double per_cost, EstimateResult& out) {
  const double shared =
      config.cores > 0 ? std::max(1.0, static_cast<double>(cluster_threads(config)) / config.cores)
                       : 1.0;
  for (TaskStat& t : tasks) {
    t.plan_order = false;
    t.seconds *= shared;
  }
  out.cluster = true;
  out.root_seconds = config.root_seconds;
  out.cores = config.cores;
  out.deal = simulate_dealer(tasks, config.ranks, config.procs, config.root_seconds);
  out.wall_seconds = out.deal.makespan;
  out.efficiency = out.deal.efficiency;
  const CostRatios strays = cost_ratios(draws, per_cost);
  if (strays.ratios.empty()) return;
  out.scatter = strays.scatter;
  std::mt19937_64 pick(config.seed ^ 0x73636174746572ull);
  std::uniform_int_distribution<std::size_t> any(0, strays.ratios.size() - 1);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::uint64_t ranks_in = std::max<std::uint64_t>(
        1, std::min<std::uint64_t>(plan.end_split(i) - plan.first_split(i), 64));
    double sum = 0;
    for (std::uint64_t k = 0; k < ranks_in; ++k) sum += strays.ratios[any(pick)];
    tasks[i].seconds *= sum / static_cast<double>(ranks_in);
  }
  out.scattered = simulate_dealer(tasks, config.ranks, config.procs, config.root_seconds);
}

}  // namespace

void replay(const EstimateConfig& config, const Plan& plan, const SamplingFrame& frame,
            const std::vector<Draw>& draws, double seconds, EstimateResult& out) {
  std::vector<TaskStat> tasks(plan.size());
  const double total_cost = frame.total_cost();
  const double per_cost = total_cost > 0 ? seconds / total_cost : 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].id = static_cast<std::uint32_t>(i);
    tasks[i].estimate = static_cast<double>(frame.costs[i]);
    tasks[i].seconds = static_cast<double>(frame.costs[i]) * per_cost;
    tasks[i].plan_order = true;
  }
  out.procs = config.procs;
  if (config.ranks > 0) {
    replay_cluster(config, plan, tasks, draws, per_cost, out);
    return;
  }
  const SimulatedRun run =
      simulate_schedule(tasks, config.procs, std::min(config.node_cores, config.procs), 0, true);
  out.wall_seconds = run.makespan;
  out.efficiency = run.efficiency;
}

}  // namespace detail
}  // namespace nq
