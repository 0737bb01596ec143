// `nqcount merge`, `status` and `audit`: a campaign's journals (engine/count/campaign.hpp),
// read, put together, watched and checked.
#include "engine/count/campaign.hpp"

#include <chrono>
#include <cmath>
#include <iostream>

#include "cli/commands/commands.hpp"
#include "cli/io/json.hpp"
#include "cli/io/output.hpp"
#include "cli/io/signal_scope.hpp"
#include "engine/count/known.hpp"

namespace nq::cli {
namespace {

// The most lines of tasks or shards a failure lists before it says how many more there are.
constexpr std::size_t kListed = 20;

std::string plan_text(const RunIdentity& run) {
  return "n = " + std::to_string(run.n) + ", " + run.route + " route, split depth " +
         std::to_string(run.split_rows) + ", " + std::to_string(run.subproblems) + " tasks";
}

std::string shard_name(std::uint32_t shard, std::uint32_t shards) {
  return shards ? "shard " + std::to_string(shard) + "/" + std::to_string(shards) : "the count";
}

std::string task_list(const std::vector<std::uint64_t>& tasks, std::uint64_t of) {
  std::string text;
  for (std::uint64_t t : tasks) text += (text.empty() ? "" : ", ") + std::to_string(t);
  return of > tasks.size() ? text + ", ..." : text;
}

// Says, one line each, why the merge gives no count: conflicts first (exit 1 either way).
void say_incomplete(const MergeResult& m) {
  if (!m.inconsistent.empty()) print_error(m.inconsistent);
  for (std::size_t i = 0; i < m.conflicts.size() && i < kListed; ++i) {
    const MergeConflict& c = m.conflicts[i];
    print_error("task " + std::to_string(c.task) +
                " is recorded with two counts: " + std::to_string(c.solutions[0]) + " in '" +
                c.files[0] + "', " + std::to_string(c.solutions[1]) + " in '" + c.files[1] + "'");
  }
  if (m.conflicts.size() > kListed)
    print_error("and " + std::to_string(m.conflicts.size() - kListed) +
                " more tasks recorded with two counts");
  if (m.covered < m.tasks)
    print_error("incomplete: " + std::to_string(m.tasks - m.covered) + " of " +
                std::to_string(m.tasks) + " tasks are recorded in no journal given");
  for (std::size_t i = 0; i < m.gaps.size() && i < kListed; ++i) {
    const ShardGap& g = m.gaps[i];
    std::cerr << "nqcount: " << shard_name(g.shard, m.shards) << ": " << g.missing << " of "
              << g.tasks << " tasks missing ("
              << (g.journal_given ? "its journal is partial: resume it"
                                  : "no journal of it given: run it, or give its journal")
              << "; tasks " << task_list(g.sample, g.missing) << ")\n";
  }
  if (m.gaps.size() > kListed)
    std::cerr << "nqcount: and " << m.gaps.size() - kListed << " more shards with tasks missing\n";
}

nlohmann::json merge_json(const MergeResult& m) {
  nlohmann::json j;
  j["n"] = m.run.n;
  j["route"] = m.run.route;
  j["split_depth"] = m.run.split_rows;
  j["tasks"] = m.tasks;
  j["shards"] = m.shards;
  j["covered"] = m.covered;
  j["duplicates"] = m.duplicates;
  j["complete"] = m.complete();
  nlohmann::json gaps = nlohmann::json::array();
  for (const ShardGap& g : m.gaps)
    gaps.push_back({{"shard", g.shard},
                    {"tasks", g.tasks},
                    {"missing", g.missing},
                    {"journal_given", g.journal_given},
                    {"first_missing", g.sample}});
  j["missing_by_shard"] = gaps;
  nlohmann::json conflicts = nlohmann::json::array();
  for (const MergeConflict& c : m.conflicts)
    conflicts.push_back({{"task", c.task},
                         {"solutions", {c.solutions[0], c.solutions[1]}},
                         {"files", {c.files[0], c.files[1]}}});
  j["conflicts"] = conflicts;
  return j;
}

}  // namespace

int run_merge(const MergeArgs& args) {
  const auto merged = merge_journals(args.journals);
  if (!merged) {
    print_error(merged.error().message);
    return 2;
  }
  const MergeResult& m = *merged;
  for (const std::string& w : m.warnings) print_warning(w);
  nlohmann::json j = merge_json(m);
  if (!m.complete()) {
    if (args.json) std::cout << j.dump() << "\n";
    say_incomplete(m);
    return 1;
  }
  const auto known = known_value(m.run.n);
  const bool match = known && m.orbits.total == known->total && m.orbits.unique == known->unique;
  if (args.json) {
    j.update(nlohmann::json(m.orbits));
    j["nodes"] = json_count(m.nodes);
    j["journals"] = args.journals.size();
    j["verified"] = known ? nlohmann::json(match) : nlohmann::json(nullptr);
    std::cout << j.dump() << "\n";
  } else {
    TextLines o;
    auto line = [&](const char* k, const std::string& v) { o.line(k, v); };
    line("n", std::to_string(m.run.n));
    line("total", to_string(m.orbits.total));
    line("unique", to_string(m.orbits.unique));
    line("orbits", "U1=" + to_string(m.orbits.u1) + " U2=" + to_string(m.orbits.u2) +
                       " U4=" + to_string(m.orbits.u4) + " U8=" + to_string(m.orbits.u8));
    line("nodes", to_string(m.nodes));
    line("plan", plan_text(m.run));
    line("journals", std::to_string(args.journals.size()) +
                         (m.shards ? " (shards of " + std::to_string(m.shards) + ")" : "") + ", " +
                         std::to_string(m.duplicates) + " tasks recorded twice alike");
    if (args.verify)
      line("verified", !known  ? "no known value for n = " + std::to_string(m.run.n)
                       : match ? "yes, matches the known table"
                               : "NO: the known table says total " + std::to_string(known->total) +
                                     ", unique " + std::to_string(known->unique));
    std::cout << o.text();
  }
  if (args.verify && known && !match) {
    std::cerr << "nqcount: verify FAILED for n = " << m.run.n << "\n";
    return 1;
  }
  return 0;
}

namespace {

std::string hours_text(double hours) {
  if (hours < 0) return "unknown (nothing written in the last hour)";
  if (hours < 1) return fixed(hours * 60, 1) + " minutes";
  return fixed(hours, 1) + " hours";
}

}  // namespace

int run_status(const StatusArgs& args) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const auto status = campaign_status(args.journals, static_cast<std::uint64_t>(now));
  if (!status) {
    print_error(status.error().message);
    return 2;
  }
  const CampaignStatus& s = *status;
  for (const std::string& w : s.warnings) print_warning(w);
  const double done = s.cost ? static_cast<double>(s.cost_done) / static_cast<double>(s.cost) : 1;
  if (args.json) {
    nlohmann::json shards = nlohmann::json::array();
    for (const ShardState& x : s.by_shard)
      shards.push_back(
          {{"shard", x.shard},
           {"tasks", x.tasks},
           {"done", x.done},
           {"cost", x.cost},
           {"cost_done", x.cost_done},
           {"cost_fraction_done",
            x.cost ? static_cast<double>(x.cost_done) / static_cast<double>(x.cost) : 1.0},
           {"journal", x.path},
           {"last_write_unix_ms", x.last_ms}});
    nlohmann::json j = {
        {"n", s.run.n},
        {"route", s.run.route},
        {"tasks", s.tasks},
        {"tasks_done", s.tasks_done},
        {"shards", s.shards},
        {"shards_done", s.done},
        {"shards_partial", s.partial},
        {"shards_not_started", s.not_started},
        {"cost_fraction_done", done},
        {"cost_fraction_per_hour", s.fraction_per_hour},
        {"eta_hours", s.eta_hours < 0 ? nlohmann::json(nullptr) : nlohmann::json(s.eta_hours)},
        {"by_shard", shards}};
    std::cout << j.dump() << "\n";
    return 0;
  }
  TextLines o;
  auto line = [&](const char* k, const std::string& v) { o.line(k, v); };
  line("plan", plan_text(s.run));
  line("shards", std::to_string(s.by_shard.size()) + ": " + std::to_string(s.done) + " done, " +
                     std::to_string(s.partial) + " partial, " + std::to_string(s.not_started) +
                     " not started");
  line("tasks", std::to_string(s.tasks_done) + " of " + std::to_string(s.tasks) + " done");
  line("done", fixed(100 * done, 2) + "% of the estimated cost");
  line("rate", fixed(100 * s.fraction_per_hour, 2) + "% of the estimated cost an hour (last hour)");
  line("eta", hours_text(s.eta_hours));
  std::cout << o.text();
  return 0;
}

int run_audit(const AuditArgs& args) {
  warn_if_oversubscribed(args.threads);
  AuditConfig config;
  config.fraction = args.fraction;
  config.seed = static_cast<std::uint64_t>(args.seed);
  config.threads = args.threads;
  Monitor monitor;
  Expected<AuditResult> out = Error{};
  {
    SignalScope signals(monitor);
    out = audit_journals(args.journals, config, &monitor);
  }
  if (!out) {
    print_error(out.error().message);
    return 2;
  }
  const AuditResult& a = *out;
  if (args.json) {
    nlohmann::json bad = nlohmann::json::array();
    for (const AuditMismatch& x : a.mismatches)
      bad.push_back({{"task", x.task},
                     {"recorded", x.recorded},
                     {"recounted", x.recounted},
                     {"journal", x.file}});
    std::cout << nlohmann::json{{"n", a.run.n},
                                {"recorded", a.recorded},
                                {"sampled", a.sampled},
                                {"kernel", a.kernel},
                                {"second_kernel", a.second_kernel},
                                {"seconds", a.seconds},
                                {"complete", !a.cancelled},
                                {"mismatches", bad}}
                     .dump()
              << "\n";
  } else {
    TextLines o;
    auto line = [&](const char* k, const std::string& v) { o.line(k, v); };
    line("n", std::to_string(a.run.n));
    line("sampled", std::to_string(a.sampled) + " of " + std::to_string(a.recorded) +
                        " recorded tasks (fraction " + fixed(args.fraction, 4) + ", seed " +
                        std::to_string(args.seed) + ")");
    line("kernels", "recorded by " + a.kernel + ", counted again by " + a.second_kernel);
    line("differences", std::to_string(a.mismatches.size()));
    o.seconds(a.seconds);
    std::cout << o.text();
  }
  for (const AuditMismatch& x : a.mismatches)
    print_error("audit: task " + std::to_string(x.task) + " is recorded with " +
                std::to_string(x.recorded) + " solutions in '" + x.file +
                "', counted again: " + std::to_string(x.recounted));
  if (a.cancelled) {
    std::cerr << "nqcount: audit interrupted; part of the sample was compared\n";
    return SignalScope::exit_status();
  }
  return a.mismatches.empty() ? 0 : 1;
}

}  // namespace nq::cli
