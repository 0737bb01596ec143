// `nqcount solve --method blnq --budget n2|3n|K --runs R`: Candia & Astudillo's BLNQ runs
// (engine/solve/blnq.hpp) and their statistics, per run and averaged, as text or one JSON object.
// A run that ends with collisions left is a result here, not a failure: the exit status is 0.
#include <charconv>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>

#include "cli/commands.hpp"
#include "cli/io/signal_scope.hpp"
#include "cli/output.hpp"
#include "common/types.hpp"
#include "solve/blnq.hpp"

namespace nq::cli {
namespace {

// "n2" -> n^2, "3n" -> 3n, "K" -> K (a decimal integer >= 1).
bool parse_budget(const std::string& text, std::int64_t n, std::uint64_t& budget) {
  const auto un = static_cast<std::uint64_t>(n);
  if (text == "n2") {
    budget = un * un;
    return true;
  }
  if (text == "3n") {
    budget = 3 * un;
    return true;
  }
  std::uint64_t k = 0;
  if (!parse_decimal(text, k) || k < 1) return false;
  budget = k;
  return true;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

int run_solve_blnq(const SolveArgs& args) {
  if (args.n == 0 || !args.batch.empty()) {
    print_error("--method blnq needs --n N (not --batch)");
    return 2;
  }
  if (args.solutions != 1 || args.modular || args.max_tries != 0 || !args.output.empty() ||
      args.format != "perm" || args.time_limit != 0) {
    print_error(
        "--method blnq takes --n, --budget, --runs, --seed, --threads and --json only; it "
        "reports statistics, not a solution file");
    return 2;
  }
  if (args.n > kMaxBlnqN) {
    print_error("--method blnq: n = " + std::to_string(args.n) + " is above " +
                std::to_string(kMaxBlnqN));
    return 2;
  }
  BlnqConfig config;
  config.n = args.n;
  config.runs = static_cast<std::uint64_t>(args.runs);
  config.threads = args.threads;
  warn_if_oversubscribed(args.threads);
  if (!parse_budget(args.budget, args.n, config.budget)) {
    print_error("--budget '" + args.budget +
                "' is not a budget; expected n2 (n^2 neighbours), 3n, or a whole number >= 1");
    return 2;
  }
  if (args.seed >= 0) {
    config.seed = static_cast<std::uint64_t>(args.seed);
  } else {
    std::random_device device;
    config.seed = ((std::uint64_t{device()} << 32) | device()) & 0x7fffffffffffffffULL;
  }
  Monitor monitor;
  SignalScope signals(monitor);
  const Expected<BlnqResult> out = run_blnq(config, &monitor);
  if (!out.ok()) {
    if (monitor.cancel.load()) {
      std::cerr << "nqcount: interrupted; nothing written\n";
      return SignalScope::exit_status();
    }
    print_error(out.error().message);
    return 2;
  }
  const BlnqResult& r = *out;
  if (args.json) {
    nlohmann::json per_run = nlohmann::json::array();
    for (const BlnqRun& run : r.runs)
      per_run.push_back({{"seed", run.seed},
                         {"initial_collisions", run.initial_collisions},
                         {"final_collisions", run.final_collisions},
                         {"neighbours", run.neighbours},
                         {"improving_moves", run.improving},
                         {"success", run.success}});
    nlohmann::json j{{"n", r.n},
                     {"method", kBlnqMethodName},
                     {"budget", r.budget},
                     {"budget_rule", args.budget},
                     {"seed", r.seed},
                     {"threads", r.threads},
                     {"runs", r.runs.size()},
                     {"per_run", per_run},
                     {"mean",
                      {{"initial_collisions", r.mean_initial},
                       {"final_collisions", r.mean_final},
                       {"neighbours", r.mean_neighbours},
                       {"improving_moves", r.mean_improving}}},
                     {"successes", r.successes},
                     {"success_rate", r.success_rate},
                     {"distinct_solutions", r.distinct_solutions},
                     {"seconds", r.seconds}};
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::string text = "blnq n = " + std::to_string(r.n) +
                     ", budget L = " + std::to_string(r.budget) + " (" + args.budget + "), " +
                     std::to_string(r.runs.size()) + " runs, seed " + std::to_string(r.seed) + "\n";
  text += "run  initial  final  neighbours  improving  success\n";
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const BlnqRun& run = r.runs[k];
    char line[160];
    std::snprintf(line, sizeof line, "%-4zu %7lld %6lld %11llu %10llu  %s\n", k + 1,
                  static_cast<long long>(run.initial_collisions),
                  static_cast<long long>(run.final_collisions),
                  static_cast<unsigned long long>(run.neighbours),
                  static_cast<unsigned long long>(run.improving), run.success ? "yes" : "no");
    text += line;
  }
  text += "mean " + fixed(r.mean_initial, 2) + " initial, " + fixed(r.mean_final, 2) +
          " final collisions, " + fixed(r.mean_neighbours, 1) + " neighbours, " +
          fixed(r.mean_improving, 2) + " improving moves\n";
  text += "success " + std::to_string(r.successes) + "/" + std::to_string(r.runs.size()) + " (" +
          fixed(100 * r.success_rate, 1) + "%), distinct solutions " +
          std::to_string(r.distinct_solutions) + "\n";
  std::cout << text;
  return 0;
}

}  // namespace nq::cli
