// The cost of a count before doing it: a seeded random sample of the row-split plan's
// subproblems is counted by the join, and the totals are estimated from it.
//
// Design: the plan's tasks (plan.hpp: blocks of row splits) are sorted by their estimated cost
// (cost.hpp) and cut into strata of about equal total cost. Each round draws one subproblem per
// stratum, with probability proportional to its estimated cost c (a task by its cost, then one
// of its splits by theirs), counts it and times it (the thread's CPU time). For a draw of
// subproblem i from stratum h (cost C_h) with measurement y_i, z_i = y_i C_h / c_i estimates
// the stratum's total without bias; the stratum's estimate is the mean of its z, with variance
// s^2 / k (k draws), and the totals and their variances add over the strata (stratified
// sampling, with replacement and unequal probabilities: the Hansen-Hurwitz estimator per
// stratum). The 95% interval is the estimate +- t standard errors (Student's t, with
// Satterthwaite's degrees of freedom for the sum of the strata's variances: the draws less one
// per stratum where the strata weigh alike, fewer where a few of them hold most of the variance;
// for the core-seconds, see the machine's speed below). The same draws estimate
// the core-seconds (y = seconds) and Q(n) (y = the subproblem's weighted solutions).
// A subproblem too large for one chunk of the join (kernels.hpp: from about n = 25 its halves
// have millions of placements, and a count pairs them chunk by chunk, hours a subproblem at
// n = 28) is itself sampled: its halves are walked once, and `pieces` of its chunk pairs are
// drawn at random and counted (kernels.hpp, sample_join); y is then the unbiased two-stage
// estimate, and the same per-stratum variance covers both stages (with replacement at the
// first stage, the variance of the z's includes the second stage's).
// The machine's speed: a count's core-seconds are measured at its own hours, and on a shared
// machine the speed moves by several percent within minutes, more than the sampling error. So
// after the first pass the sample is timed again, pass after pass, for `spread` seconds; each
// draw's seconds are its mean over its timings. The window is cut into eight blocks, and the
// passes' timings are gathered by the block they end in: a block's speed is its timings'
// weighted seconds over the same draws' seconds in the first pass (itself a block), and the
// spread of the blocks' speeds (s^2, B blocks, B - 1 degrees of freedom) enters the
// core-seconds' variance as s^2 (1 + m): the speed the count will meet, and the speeds in the
// draws' means (pass_speeds; m = 1/B where every block times every draw once). The interval's
// degrees of freedom are Welch and Satterthwaite's. A block and not a pass: a pass of
// milliseconds measures the draws' timing noise more than the speed a count meets over its
// hours. A pass longer than a block times a part of the sample, the draws in turn (at least one
// draw per thread): on the largest boards a pass over the whole sample outlasts the window,
// which would then hold one pass, and the speed's spread would have one degree of freedom.
// Scaled onto the plan's costs, the estimated seconds also give a per-task profile that the
// scaling simulator (simulate.hpp) replays on P workers for the wall time.
// The code runs these as named stages, each with its contract (estimate_stages.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/types.hpp"
#include "engine/count/simulate.hpp"

namespace nq {

struct EstimateConfig {
  int n = 0;           // 4..32
  int samples = 64;    // subproblems to count (at least two per stratum are)
  int pieces = 2;      // chunk pairs counted of a sampled subproblem that has more
  double seconds = 0;  // stop once past this many seconds (0: no limit); >= 0
  // After the first pass the sample is timed again, pass after pass, for this many seconds (at
  // most half the count's estimated wall time on `threads`; one pass more at least), all of it
  // or a part a pass (draws_per_pass): the spread of the window's eighths is the machine's
  // speed, and goes into the core-seconds' interval. 0: one pass, the interval is the sampling
  // error only.
  double spread = 60;
  std::uint64_t seed = 1;  // the sample is a function of n, samples and seed
  int procs = 1000;        // simulated workers for the wall time (with `ranks`: threads a rank)
  int node_cores = 64;     // cores per simulated NUMA node
  // A cluster's run instead (nqcount-mpi): `ranks` ranks of `procs` threads, the plan cut as
  // nqcount-mpi cuts it for them (cluster_plan_tasks), its tasks' estimated seconds replayed
  // through the dealer (simulate.hpp, simulate_dealer), rank 0 serving each request in
  // `root_seconds`. 0: one machine of `procs` workers (simulate_schedule).
  int ranks = 0;
  double root_seconds = 0;
  // With `ranks`: the cores the ranks' threads share (0: a core each). Fewer cores than threads
  // (a test run of many ranks on one small machine, oversubscribed) slow every task by threads /
  // cores, as the time-sharing of threads that all have work does; threads idle at the end do
  // not speed the others up in the replay, so its tail errs long.
  int cores = 0;
  // With `ranks`: the plan cut into at least this many tasks (nqcount-mpi's --tasks) instead of
  // cluster_plan_tasks. 0: that cut.
  std::uint64_t min_tasks = 0;
  int threads = 0;  // threads counting the sample (0: every hardware thread)
  // Subproblems also counted whole by the join and by the best backtracking kernel, which must
  // agree: the cheapest (by the cost model) `check` of 64 check drawn uniformly (the search is
  // far slower than the join: on large boards keep `check` small, or fix rows, check_rows).
  int check = 0;
  // Of each checked subproblem, only a part is counted both ways: the queens of its first
  // `check_rows` rows fixed at random (plan.hpp, fix_first_rows; seeded by the seed and the
  // rank). Each row fixed divides the search's time by about its branching (0: whole; below n).
  int check_rows = 0;
};

// An estimate with its 95% interval.
struct Interval {
  double value = 0, low = 0, high = 0;
};

struct EstimateResult {
  int n = 0;
  std::uint64_t subproblems = 0;  // the plan's subproblems (orbits of row splits)
  std::uint64_t splits = 0;       // its row splits (plan.hpp)
  std::uint64_t tasks = 0;        // and tasks
  int strata = 0;
  int samples = 0;            // subproblems counted
  int sampled_within = 0;     // of which only some chunk pairs were counted
  double sample_seconds = 0;  // CPU seconds spent on them
  int passes = 1;             // times the sample was timed (EstimateConfig::spread)
  int pass_draws = 0;         // draws each pass after the first timed (all: samples)
  int speed_blocks = 1;       // the blocks whose speeds spread (the first pass is one)
  double spread_seconds = 0;  // wall seconds of the passes after the first
  double speed_spread = 0;    // the blocks' speeds' standard deviation, relative
  double sampling_error = 0;  // the sample's relative standard error (the passes' mean)
  Interval core_seconds;      // of the whole count (the join's counting)
  // The same at the sample's own speed: the sampling error alone, without the blocks' spread
  // (the machine's speed, which a cluster's cores do not share).
  Interval sample_core_seconds;
  Interval total;                   // Q(n)
  std::uint64_t worker_bytes = 0;   // estimated peak memory per worker thread
  std::uint64_t process_bytes = 0;  // per process besides the workers (the scheduler's arrays)
  int procs = 0;
  double wall_seconds = 0;  // the simulated wall time of the count on `procs` workers
  double efficiency = 0;    // its parallel efficiency
  // With EstimateConfig::ranks: the dealer's replay (its makespan and efficiency are also
  // wall_seconds and efficiency), and rank 0's time per request it assumed.
  bool cluster = false;
  SimulatedDeal deal;
  // The same replay with every task's time scattered around its cost's share as the sample's
  // times were around theirs (each task the ratio of a draw picked at random), and that
  // scatter: the ratios' relative standard deviation. The cost model is not exact task by task;
  // `deal` takes it to be, so its busy fraction and tail err on the good side.
  SimulatedDeal scattered;
  double scatter = 0;
  double root_seconds = 0;
  int cores = 0;       // EstimateConfig::cores
  double seconds = 0;  // this estimate's own wall time
  int checked = 0;     // subproblems counted by both kernels (EstimateConfig::check)
  int check_rows = 0;  // rows fixed in each of them
  std::uint64_t checked_solutions = 0;
  double check_seconds = 0;   // CPU seconds the search took on them
  std::string check_failure;  // empty, or the first subproblem the kernels disagree on
};

Expected<EstimateResult> estimate_count(const EstimateConfig& config);

// How many of the sample's `draws` each timing pass after the first times, in turn: all of
// them where a pass over them (`pass_seconds` of wall time) takes at most an eighth of the
// `window`, else enough for a pass of about an eighth of it, and at least one per thread.
std::size_t draws_per_pass(std::size_t draws, int threads, double pass_seconds, double window);

// The machine's speed as the timing passes saw it. passes[p] lists the timings (draw, seconds)
// of pass p, or of a block of passes; passes[0] timed every draw once. weights[d] is draw d's
// weight in the estimate (1 / (its drawing probability's share x the draws of its stratum)).
// Pass p's speed is its timings' weighted seconds over their draws' weighted seconds in pass 0.
struct PassSpeeds {
  int passes = 0;     // the passes with a speed (those whose draws took any time in pass 0)
  double spread = 0;  // the passes' speeds' standard deviation (passes - 1 degrees of freedom)
  // The share of that variance in the estimate's seconds, each draw's mean over its timings:
  // the sum over the passes of c_p^2, c_p the estimate's share (a draw's weighted mean seconds
  // over the estimate) that pass p's timings carry (1/P where every pass times every draw).
  double mean_share = 0;
};
PassSpeeds pass_speeds(const std::vector<double>& weights,
                       const std::vector<std::vector<std::pair<std::size_t, double>>>& passes);

}  // namespace nq
