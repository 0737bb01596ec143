// `nqcount estimate --n N`: what a full count would cost, from a counted random sample of its
// subproblems (engine/count/estimate.hpp), without doing it.
#include "engine/count/estimate.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "cli/commands/commands.hpp"
#include "cli/io/json.hpp"
#include "cli/io/output.hpp"
#include "engine/count/count.hpp"

namespace nq::cli {
namespace {

std::string general(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string mib(std::uint64_t bytes) {
  return fixed(static_cast<double>(bytes) / (1 << 20), 1) + " MiB";
}

// Seconds in the largest unit that keeps them readable.
std::string duration(double s) {
  if (s < 120) return fixed(s, 1) + " s";
  if (s < 2 * 3600) return fixed(s / 60, 1) + " min";
  if (s < 2 * 86400) return fixed(s / 3600, 1) + " h";
  if (s < 2 * 365.25 * 86400) return fixed(s / 86400, 1) + " days";
  return fixed(s / (365.25 * 86400), 2) + " years";
}

// The engine's config from the command's options; an Error (exit 2) where --check-rows is given
// without a --check K to apply to (--root-seconds, --cores and --tasks without --ranks are the
// options table's rules).
Expected<EstimateConfig> estimate_config(const EstimateArgs& args) {
  if (args.check_rows > 0 && args.check == 0)
    return Error{"--check-rows applies to --check K only"};
  EstimateConfig config;
  config.n = args.n;
  config.samples = args.samples;
  config.pieces = args.pieces;
  config.check = args.check;
  config.check_rows = args.check_rows;
  config.seconds = args.seconds;
  config.spread = args.spread;
  config.seed = static_cast<std::uint64_t>(args.seed);
  config.procs = args.procs;
  config.node_cores = args.node_cores;
  config.threads = args.threads;
  config.min_tasks = static_cast<std::uint64_t>(args.tasks);
  config.cores = args.cores;
  config.ranks = args.ranks;
  config.root_seconds = args.root_seconds >= 0 ? args.root_seconds : 1 / kMeasuredRootRate;
  return config;
}

// --json: the result, the options that shaped the sample, and the check's fields where it ran.
void print_json(const EstimateArgs& args, const EstimateResult& r) {
  nlohmann::json j = r;
  j["pieces"] = args.pieces;
  j["seed"] = args.seed;
  if (args.check > 0) {
    j["checked"] = r.checked;
    j["check_rows"] = r.check_rows;
    j["checked_solutions"] = r.checked_solutions;
    j["check_cpu_seconds"] = r.check_seconds;
    j["check_failure"] = r.check_failure;
  }
  std::cout << j.dump() << "\n";
}

// The text report's lines: a key padded to 14 columns, then its value.
class Lines {
 public:
  void operator()(const std::string& k, const std::string& v) {
    o_ << k << std::string(k.size() < 14 ? 14 - k.size() : 1, ' ') << v << "\n";
  }
  std::string str() const { return o_.str(); }

 private:
  std::ostringstream o_;
};

// How the sample was timed: one pass, or the passes that measured the machine's speed.
std::string timing_text(const EstimateResult& r) {
  if (r.passes <= 1)
    return "one pass (--spread 0): the interval is the sample's error only, " +
           fixed(100 * r.sampling_error, 1) + "% (standard deviation)";
  std::string timing = std::to_string(r.passes) + " passes, the last " +
                       std::to_string(r.passes - 1) + " over " + general(r.spread_seconds) + " s";
  if (r.pass_draws < r.samples)
    timing += ", " + std::to_string(r.pass_draws) + " of the " + std::to_string(r.samples) +
              " draws each, in turn";
  timing += ", in " + std::to_string(r.speed_blocks) + " blocks: the machine's speed varied " +
            fixed(100 * r.speed_spread, 1) + "%, the sample's error " +
            fixed(100 * r.sampling_error, 1) + "% (standard deviations, both in the interval)";
  return timing;
}

// The wall time, from the dealer's replay on a cluster (`cores`: --cores, 0 without) or the
// simulator's on one machine.
void wall_lines(Lines& line, const EstimateResult& r, int cores) {
  if (!r.cluster) {
    line("wall", duration(r.wall_seconds) + " on " + std::to_string(r.procs) +
                     " workers (simulated, efficiency " + fixed(r.efficiency, 3) + ")");
    return;
  }
  const SimulatedDeal& d = r.deal;
  line("wall", duration(r.wall_seconds) + " on " + std::to_string(d.ranks) + " ranks of " +
                   std::to_string(d.threads) + " threads (nqcount-mpi's dealer replayed, " +
                   std::to_string(r.tasks) + " tasks, " + std::to_string(d.batches) + " batches)");
  line("busy",
       fixed(d.efficiency, 3) + " of the threads' time" +
           (cores > 0 ? " (on " + std::to_string(cores) + " cores, shared)" : std::string()) +
           " with every task at its estimated cost");
  line("", fixed(r.scattered.efficiency, 3) +
               " with the tasks' times scattered as the sample's (+-" + fixed(100 * r.scatter, 0) +
               "%): wall " + duration(r.scattered.makespan) + ", tail " +
               duration(r.scattered.tail));
  line("rank 0", fixed(100 * d.root_busy, 2) + "% busy serving requests (" +
                     general(r.root_seconds) + " s each; --root-seconds), longest wait " +
                     duration(d.longest_wait) +
                     (d.root_busy < 0.5 ? "" : ": rank 0 is the bottleneck at this scale"));
  line("tail", duration(d.tail) + " from the first thread done to the end (" +
                   fixed(d.makespan > 0 ? 100 * d.tail / d.makespan : 0, 1) + "% of the run)");
}

// The check's line: what both kernels counted alike, or the subproblem they disagree on.
std::string check_text(const EstimateResult& r) {
  if (!r.check_failure.empty()) return "FAILED: " + r.check_failure;
  return std::to_string(r.checked) + " subproblems (" +
         (r.check_rows > 0 ? "their first " + std::to_string(r.check_rows) + " rows fixed; "
                           : std::string()) +
         std::to_string(r.checked_solutions) +
         " solutions) counted alike by the join and the search, " + fixed(r.check_seconds, 1) +
         " CPU s of search";
}

// The text report, a line a quantity.
void print_text(const EstimateArgs& args, const EstimateResult& r) {
  Lines line;
  line("n", std::to_string(r.n));
  line("plan", std::to_string(r.subproblems) + " subproblems (" + std::to_string(r.splits) +
                   " row splits in " + std::to_string(r.tasks) + " tasks)");
  line("sample", std::to_string(r.samples) + " subproblems in " + std::to_string(r.strata) +
                     " strata, " + fixed(r.sample_seconds, 1) + " CPU s, seed " +
                     std::to_string(args.seed));
  line("timing", timing_text(r));
  if (r.sampled_within > 0)
    line("", std::to_string(r.sampled_within) + " of them too large to count whole: " +
                 std::to_string(args.pieces) + " of their chunk pairs counted (--pieces)");
  const Interval& cs = r.core_seconds;
  line("core-hours", general(cs.value / 3600) + "  (95%: " + general(cs.low / 3600) + " .. " +
                         general(cs.high / 3600) + ")");
  if (r.passes > 1) {
    const Interval& sample = r.sample_core_seconds;
    line("", "at the sample's own speed: " + general(sample.low / 3600) + " .. " +
                 general(sample.high / 3600) + " (95%, the sample's error alone)");
  }
  line("total", general(r.total.value) + "  (95%: " + general(r.total.low) + " .. " +
                    general(r.total.high) + ")");
  line("memory",
       mib(r.worker_bytes) + " per worker, " + mib(r.process_bytes) + " per process besides");
  wall_lines(line, r, args.cores);
  if (args.check > 0) line("check", check_text(r));
  line("took", fixed(r.seconds, 1) + " s");
  std::cout << line.str();
}

// The check's verdict: 0, or 1 with an error line naming the subproblem the kernels disagree on.
int check_verdict(const EstimateResult& r) {
  if (r.check_failure.empty()) return 0;
  print_error("check failed: " + r.check_failure);
  return 1;
}

}  // namespace

int run_estimate(const EstimateArgs& args) {
  const auto config = estimate_config(args);
  if (!config) {
    print_error(config.error().message);
    return 2;
  }
  warn_if_oversubscribed(args.threads);
  const auto r = estimate_count(*config);
  if (!r.ok()) {
    print_error(r.error().message);
    return 2;
  }
  if (args.json)
    print_json(args, *r);
  else
    print_text(args, *r);
  return check_verdict(*r);
}

}  // namespace nq::cli
