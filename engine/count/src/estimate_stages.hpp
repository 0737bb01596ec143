// The estimate's stages (estimate.hpp's design), in the order estimate_count runs them, and the
// plain values passed from one to the next: the config checked; the plan and its strata; the
// sample drawn and timed (estimate_sample.cpp); timed again for the machine's speed; the
// intervals; the memory; the replay; the check (estimate_check.cpp). A stage that fills part of
// the result takes it last, as `out`, and says which fields it sets; none reads another's.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "base/threads.hpp"
#include "base/types.hpp"
#include "engine/count/estimate.hpp"
#include "engine/count/plan.hpp"
#include "kernels/kernels.hpp"

namespace nq::detail {

using EstimateClock = std::chrono::steady_clock;

// Wall seconds since `t`.
double seconds_since(EstimateClock::time_point t);

// Draws a stratum holds at --samples' count: four, not two. With two, each stratum's variance is
// known to one degree of freedom, and the subproblems' solutions over their estimated cost are
// skewed enough that the 95% interval of Q(n) misses far more often than one time in twenty
// (perf/results/log.md).
inline constexpr int kDrawsPerStratum = 4;
inline constexpr int kMaxStrata = 32;
// The timing passes after the first are gathered into this many blocks of the window, each a
// measure of the machine's speed (draws_per_pass cuts passes longer than a block).
inline constexpr int kSpeedBlocks = 8;

// --- The config ---

// The join that counts the sample, once every field of `config` is in its range; else the first
// one that is not, as an Error.
Expected<const Kernel*> checked_join(const EstimateConfig& config);

// --- Plan and strata ---

// The threads of the cluster `config` describes: ranks (at least one) x procs.
std::uint64_t cluster_threads(const EstimateConfig& config);

// The plan of the count estimated: the row-split plan as one machine cuts it, or, with
// `config.ranks`, as nqcount-mpi cuts it for all its threads (or into config.min_tasks tasks).
Plan estimate_plan(const EstimateConfig& config);

// One stratum: positions [begin, end) of the tasks sorted by cost, and their total cost.
struct Stratum {
  std::size_t begin = 0, end = 0;
  double cost = 0;
};

// The plan's tasks as the sample sees them.
struct SamplingFrame {
  std::vector<std::uint64_t> costs;   // each task's estimated cost (cost.hpp); 0: no subproblem
  std::vector<std::uint32_t> sorted;  // the tasks with a cost, cheapest first (ties by index)
  std::vector<double> prefix;         // prefix[k]: the cost of sorted[0, k); prefix[0] = 0
  std::vector<Stratum> strata;
  double total_cost() const { return prefix.back(); }
};

// The plan's tasks costed, sorted and cut into strata for `samples` draws (one stratum for
// kDrawsPerStratum of them, at least one, at most kMaxStrata), on `arena`'s threads.
SamplingFrame sampling_frame(const Plan& plan, int samples, CallArena& arena);

// The sorted positions [0, prefix.size() - 1), their costs' prefix sums `prefix`, cut into at
// most `wanted` consecutive strata of about equal cost, none empty: stratum h ends at the first
// position whose prefix reaches (h + 1) / wanted of the total (past the last stratum's start at
// least), and the last one wanted takes the rest. Fewer where the positions run out first.
std::vector<Stratum> cut_strata(const std::vector<double>& prefix, int wanted);

// --- The sample ---

// A drawn subproblem: its split and the probability of drawing it, relative to its stratum
// (its estimated cost over the stratum's).
struct Draw {
  std::uint64_t split = 0;
  std::uint64_t piece = 0;  // its piece of the split (Plan::pieces)
  double cost = 0;          // its estimated cost (the cost model's)
  double share = 0;
  int stratum = 0;
  std::vector<double> seconds;  // its estimated seconds, one per timing pass
  double solutions = 0;         // weighted
  bool within = false;          // only some of its chunk pairs counted
  double spent = 0;             // CPU seconds this draw took
  double mean_seconds() const;  // its estimated seconds over every pass
};

// What drawing and timing a subproblem need: the join, the plan and its frame, the cost model's
// probe rows, and the config's pieces and seed.
struct Sampler {
  const Kernel& join;
  const Plan& plan;
  const SamplingFrame& frame;
  int probe = 0;  // cost_probe_rows(plan.n)
  std::uint64_t pieces = 0;
  std::uint64_t seed = 0;
};

// One subproblem of stratum `h`, drawn with `rng` with probability proportional to its estimated
// cost: a task of the stratum by its cost, then one of the task's splits by theirs.
Draw draw_from(const Sampler& s, int h, std::mt19937_64& rng);

// Counts and times `d` once more: its seconds get one more entry, its solutions and `within`
// are set, and its CPU seconds added to `spent`. Safe on many threads at once, one draw each.
void time_draw(const Sampler& s, Draw& d);

// The sample drawn and timed once (the first pass).
struct Sample {
  std::vector<Draw> draws;  // round by round, stratum by stratum
  int rounds = 0;           // rounds drawn: one draw per stratum each
};

// Rounds of one draw per stratum, each drawn (seeded by n and the seed: the draws are a function
// of n, samples and seed) and then timed on `arena`'s threads, until `samples` draws' rounds
// (at least two) are done or, after two, `seconds` have passed since `start` (0: no limit).
Sample draw_sample(const Sampler& s, int samples, double seconds, EstimateClock::time_point start,
                   CallArena& arena);

// The timings the machine's speed is measured from (pass_speeds' passes).
struct Timings {
  // blocks[b]: the (draw, seconds) timed in block b; block 0 is the first pass.
  std::vector<std::vector<std::pair<std::size_t, double>>> blocks;
  int passes = 1;             // times the sample was timed, the first pass included
  std::size_t per_pass = 0;   // draws each pass after the first timed
  double spread_seconds = 0;  // wall seconds of the passes after the first
};

// The first pass's timings, and, with `spread` > 0, the sample timed again, pass after pass,
// until the passes after the first have taken the window: `spread` seconds, at most half the
// count's estimated wall time on `arena`'s threads. Each pass times all the draws, or the next
// draws_per_pass in turn; its timings go to the eighth of the window it ends in.
Timings time_again(const Sampler& s, Sample& sample, double spread, CallArena& arena);

// Sets out's n, subproblems, splits, tasks, strata, samples, sample_seconds, sampled_within,
// passes, speed_blocks, pass_draws and spread_seconds.
void describe_sample(const Plan& plan, const SamplingFrame& frame, const Sample& sample,
                     const Timings& timings, EstimateResult& out);

// --- The intervals ---

// A stratified Hansen-Hurwitz estimate: the strata's estimates (their z's means) and variances
// (s^2 / k) summed, with Satterthwaite's denominator, the sum of v_h^2 / (k_h - 1).
struct StratifiedSum {
  double value = 0, variance = 0, spread = 0;
  void add(const std::vector<double>& z);  // one stratum's z's, at least two
};

// The two-sided 95% quantile of Student's t with `df` degrees of freedom (the normal's from 30).
double t95(int df);

// Satterthwaite's degrees of freedom of a sum of independent variance estimates v_h, each with
// d_h degrees of freedom: (sum v_h)^2 / sum (v_h^2 / d_h), given the variance and `spread` =
// sum v_h^2 / d_h; at least 1, at most `most` (the d_h summed). A variance of 0 (every draw
// alike) or no spread keeps `most` (at least 1).
int effective_df(double variance, double spread, int most);

// Welch and Satterthwaite's degrees of freedom of the sum of two variances, `a` with `a_df`
// degrees of freedom (none where 0) and `b` with `b_df` (at least 1); `otherwise` where neither
// has any spread.
int welch_df(double a, int a_df, double b, int b_df, int otherwise);

// `value` +- t95(df) standard errors, the low end at least 0 (both estimates are never negative).
Interval interval(double value, double variance, int df);

// Sets out's total, core_seconds, sample_core_seconds, sampling_error and speed_spread: Q(n) and
// the seconds from the draws of `strata` strata, the seconds from each draw's mean over its
// timings, widened by the blocks' speeds (estimate.hpp, the machine's speed).
void estimate_intervals(const std::vector<Draw>& draws, std::size_t strata, const Timings& timings,
                        EstimateResult& out);

// --- Memory, the replay, the check ---

// Sets out's worker_bytes (one worker's scratch) and process_bytes (the arrays for the plan).
void estimate_plan_memory(const Plan& plan, EstimateResult& out);

// Sets out's procs, wall_seconds and efficiency, and with config.ranks cluster, root_seconds,
// cores, deal, scattered and scatter: the plan's tasks, each its estimated cost's share of the
// estimated `seconds`, replayed by the simulator in the runner's order and policy, or through
// nqcount-mpi's dealer.
void replay(const EstimateConfig& config, const Plan& plan, const SamplingFrame& frame,
            const std::vector<Draw>& draws, double seconds, EstimateResult& out);

// Sets out's checked, check_rows, checked_solutions, check_seconds and check_failure: the
// cheapest config.check of 64 x config.check splits drawn uniformly (seeded), their first
// config.check_rows rows fixed, each counted whole by the join and by the best search kernel.
void check_kernels(const Sampler& s, const EstimateConfig& config, CallArena& arena,
                   EstimateResult& out);

}  // namespace nq::detail
