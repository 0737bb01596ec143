// `nqcount solve --method blnq --budget n2|3n|K --budget-rule consecutive|total --runs R`:
// Candia & Astudillo's BLNQ runs (engine/solve/blnq.hpp) and their statistics, per run and
// averaged with standard errors, as text or one JSON object. A run that ends with collisions
// left is a result here, not a failure: the exit status is 0. The distinct solutions the runs
// found, each verified, go to --output in solve's formats (perm, board, json); then the report
// goes to stderr when the solutions go to stdout. --time-limit ends the runs as it ends solve's
// other methods: exit 1, nothing written, and --json's record says so.
#include "engine/solve/blnq.hpp"

#include <charconv>
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>
#include <string>

#include "base/types.hpp"
#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "cli/io/output_file.hpp"
#include "cli/io/perm_text.hpp"
#include "cli/io/signal_scope.hpp"

namespace nq::cli {
namespace {

constexpr std::int64_t kExactMeanUpTo = 1'000'000;  // --json's expected_initial_collisions

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

nlohmann::json figures_json(const BlnqFigures& f) {
  return {{"initial_collisions", f.initial},
          {"final_collisions", f.final_collisions},
          {"neighbours", f.neighbours},
          {"improving_moves", f.improving}};
}

nlohmann::json record(const BlnqResult& r, const SolveArgs& args) {
  nlohmann::json per_run = nlohmann::json::array();
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const BlnqRun& run = r.runs[k];
    if (run.stopped) continue;
    per_run.push_back({{"run", k + 1},
                       {"seed", run.seed},
                       {"initial_collisions", run.initial_collisions},
                       {"final_collisions", run.final_collisions},
                       {"neighbours", run.neighbours},
                       {"improving_moves", run.improving},
                       {"success", run.success}});
  }
  nlohmann::json j{{"n", r.n},
                   {"method", kBlnqMethodName},
                   {"budget", r.budget},
                   {"budget_spec", args.budget},
                   {"budget_rule", blnq_budget_rule_name(r.rule)},
                   {"seed", r.seed},
                   {"threads", r.threads},
                   {"runs", r.runs.size()},
                   {"runs_done", r.runs_done},
                   {"per_run", per_run},
                   {"mean", figures_json(r.mean)},
                   {"standard_error", figures_json(r.standard_error)},
                   {"successes", r.successes},
                   {"success_rate", r.success_rate},
                   {"distinct_solutions", r.distinct_solutions},
                   {"seconds", r.seconds},
                   {"verified", r.status == BlnqStatus::done && r.verified}};
  if (r.status == BlnqStatus::time_limit) j["status"] = "time limit";
  // The exact mean that the initial collisions sample (O(n) work: milliseconds up to here).
  if (r.n <= kExactMeanUpTo)
    j["expected_initial_collisions"] = blnq_expected_initial_collisions(r.n);
  return j;
}

std::string report_text(const BlnqResult& r, const SolveArgs& args) {
  std::string text = "blnq n = " + std::to_string(r.n) +
                     ", budget L = " + std::to_string(r.budget) + " (" + args.budget + ", " +
                     blnq_budget_rule_name(r.rule) + "), " + std::to_string(r.runs.size()) +
                     " runs, seed " + std::to_string(r.seed) + "\n";
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
  const BlnqFigures &m = r.mean, &e = r.standard_error;
  text += "mean " + fixed(m.initial, 2) + " initial, " + fixed(m.final_collisions, 2) +
          " final collisions, " + fixed(m.neighbours, 1) + " neighbours, " + fixed(m.improving, 2) +
          " improving moves\n";
  text += "standard error " + fixed(e.initial, 2) + ", " + fixed(e.final_collisions, 2) + ", " +
          fixed(e.neighbours, 1) + ", " + fixed(e.improving, 2) + "\n";
  text += "success " + std::to_string(r.successes) + "/" + std::to_string(r.runs.size()) + " (" +
          fixed(100 * r.success_rate, 1) + "%), distinct solutions " +
          std::to_string(r.distinct_solutions) + "\n";
  return text;
}

}  // namespace

int run_solve_blnq(const SolveArgs& args) {
  if (args.n == 0 || !args.batch.empty()) {
    print_error("--method blnq needs --n N (not --batch)");
    return 2;
  }
  if (args.solutions != 1 || args.modular || args.max_tries != 0 || args.max_restarts != 0 ||
      !args.ldpc.empty()) {
    print_error(
        "--method blnq takes --n, --budget, --budget-rule, --runs, --seed, --threads, --output, "
        "--format, --time-limit, --memory-limit and --json only (it writes every distinct "
        "solution its runs find, and never restarts: --solutions, --modular, --max-tries, "
        "--max-restarts and --ldpc do not apply)");
    return 2;
  }
  if (args.n > kMaxBlnqN) {
    print_error("--method blnq: n = " + std::to_string(args.n) + " is above " +
                std::to_string(kMaxBlnqN));
    return 2;
  }
  if (!(args.time_limit >= 0) || args.time_limit > 1e9) {
    print_error("--time-limit " + seconds_text(args.time_limit) +
                " is out of range; give seconds in 0..1e9 (0: no limit)");
    return 2;
  }
  if (args.output.empty() && args.given.count("--format")) {
    print_error(
        "--format applies to the solutions written to --output; without --output --method "
        "blnq prints only its statistics (add --output FILE, or --output - for stdout)");
    return 2;
  }
  if (args.format == "matrix") {
    print_error(
        "--format matrix holds one solution; --method blnq writes every distinct solution "
        "found: use perm, board or json");
    return 2;
  }
  if (args.format == "board" && args.n > kBoardMaxN) {
    print_error("--format board draws at most n = " + std::to_string(kBoardMaxN) +
                " (n = " + std::to_string(args.n) + "); use perm or json");
    return 2;
  }
  // --output - (or /dev/stdout) and the JSON record would share standard output.
  if (const std::string bad = outputs_error({{"--output", args.output}}, args.json); !bad.empty()) {
    print_error(bad);
    return 2;
  }
  const std::optional<std::uint64_t> memory_limit = solve_memory_limit(args);
  if (!memory_limit) return 2;
  BlnqConfig config;
  config.n = args.n;
  config.memory_limit = *memory_limit;
  config.runs = static_cast<std::uint64_t>(args.runs);
  config.threads = args.threads;
  config.time_limit_seconds = args.time_limit;
  parse_blnq_budget_rule(args.budget_rule, config.rule);  // the option table allows only these
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
  // Opened before the runs, so that an unwritable path costs no work; written only at the end.
  std::optional<OutputFile> sink;
  if (!args.output.empty()) {
    std::string error;
    sink.emplace(args.output, "--output");
    if (!sink->open(&error)) {
      print_error(error);
      return 2;
    }
  }
  Monitor monitor;
  SignalScope signals(monitor);
  Expected<BlnqResult> out = run_blnq(config, &monitor);
  if (!out.ok()) {
    if (monitor.cancel.load()) {
      std::cerr << "nqcount: interrupted; nothing written\n";
      return SignalScope::exit_status();
    }
    print_error(out.error().message);
    return 2;
  }
  BlnqResult& r = out.value();
  if (r.status == BlnqStatus::time_limit) {
    std::cerr << "nqcount: time limit of " << seconds_text(args.time_limit) << " s reached with "
              << r.runs_done << " of " << r.runs.size() << " runs done (n = " << r.n
              << "); nothing written\n";
    if (args.json) std::cout << record(r, args).dump() << "\n";
    return 1;
  }
  if (!r.verified) {
    std::cerr << "nqcount: internal error: a solution for n = " << r.n
              << " failed verification; nothing written\n";
    return 1;
  }
  nlohmann::json j = record(r, args);
  std::string text = report_text(r, args);
  if (sink) {
    std::string error;
    write_solution_list(sink->stdio(), args.format, r.n, std::move(r.solutions));
    if (!sink->commit(&error)) {
      print_error(error);
      return 2;
    }
    if (!sink->is_stdout()) j["output"] = args.output;
  }
  if (args.json)
    std::cout << j.dump() << "\n";
  else
    (sink && sink->is_stdout() ? std::cerr : std::cout) << text;
  return 0;
}

}  // namespace nq::cli
