// `nqcount count` and `nqcount table`.
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "commands.hpp"
#include "engine.hpp"
#include "known.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace nq::cli {
namespace {

Monitor* g_monitor = nullptr;
volatile std::sig_atomic_t g_signal = 0;

// The first SIGINT/SIGTERM asks the engine to stop; a second one leaves at once.
extern "C" void on_signal(int sig) {
  if (g_signal != 0) _exit(128 + sig);
  g_signal = sig;
  if (g_monitor) g_monitor->cancel.store(true, std::memory_order_relaxed);
}

struct SignalScope {
  explicit SignalScope(Monitor& m) {
    g_monitor = &m;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
  }
  ~SignalScope() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    g_monitor = nullptr;
  }
};

}  // namespace

int run_count(const CountArgs& args) {
  const int hw = hardware_threads();
  if (args.threads > hw)
    print_warning("--threads " + std::to_string(args.threads) + " is more than the " +
                  std::to_string(hw) + " hardware threads; running anyway");
  CountConfig config;
  config.n = args.n;
  config.threads = args.threads;
  config.kernel = args.kernel;
  config.split_rows = args.split_rows;
  config.numa = args.numa != "off";
  config.task_stats = !args.task_stats.empty();

  // The stats file is opened before the run, so that a bad path fails at once, not after it.
  std::optional<AtomicFile> stats_file;
  if (config.task_stats) {
    std::string error;
    stats_file.emplace(args.task_stats);
    if (!stats_file->open(&error)) {
      print_error(error);
      return 2;
    }
  }

  Monitor monitor;
  Expected<CountResult> out = Error{};
  {
    SignalScope signals(monitor);
    const bool show = !args.no_progress && (args.progress || stderr_is_terminal());
    ProgressLine progress(monitor, show);
    out = count(config, &monitor);
  }
  if (!out.ok()) {
    print_error(out.error().message);
    return 2;
  }
  const CountResult& r = *out;
  if (r.cancelled) {
    std::cerr << "nqcount: interrupted after " << r.subproblems << " of " << r.subproblems_total
              << " subproblems; no counts printed\n";
    return 128 + (g_signal ? g_signal : SIGINT);
  }

  if (stats_file) {
    std::ostringstream csv;
    csv << "id,nodes,seconds,estimate\n" << std::setprecision(9);
    for (const TaskStat& t : r.tasks)
      csv << t.id << "," << t.nodes << "," << t.seconds << "," << t.estimate << "\n";
    std::string error;
    if (!stats_file->commit(csv.str(), &error)) {
      print_error(error);
      return 2;
    }
  }

  const auto known = known_value(r.n);
  const bool match = known && r.orbits.total == known->total && r.orbits.unique == known->unique;

  if (args.json) {
    nlohmann::json j;
    j["n"] = r.n;
    j["threads"] = r.threads;
    j["total"] = json_count(r.orbits.total);
    j["unique"] = json_count(r.orbits.unique);
    j["orbits"] = {{"1", json_count(r.orbits.u1)},
                   {"2", json_count(r.orbits.u2)},
                   {"4", json_count(r.orbits.u4)},
                   {"8", json_count(r.orbits.u8)}};
    j["nodes"] = json_count(r.nodes);
    j["subproblems"] = r.subproblems;
    j["classes"] = r.classes;
    j["split_depth"] = r.split_rows;
    j["seconds"] = r.seconds;
    j["kernel"] = r.kernel;
    j["setup_seconds"] = r.setup_seconds;
    j["numa_nodes"] = r.numa_nodes;
    j["arenas"] = nlohmann::json::array();
    for (const ArenaResult& a : r.arenas)
      j["arenas"].push_back({{"node", a.node},
                             {"threads", a.threads},
                             {"cpus", a.cpus},
                             {"pinned", a.pinned},
                             {"ran_on", a.ran_on},
                             {"subproblems", a.subproblems},
                             {"helped", a.helped}});
    j["verified"] = known ? nlohmann::json(match) : nlohmann::json(nullptr);
    std::cout << j.dump() << "\n";
  } else {
    std::ostringstream o;
    o << std::left;
    auto line = [&](const char* k, const std::string& v) { o << std::setw(13) << k << v << "\n"; };
    line("n", std::to_string(r.n));
    line("total", to_string(r.orbits.total));
    line("unique", to_string(r.orbits.unique));
    line("orbits", "U1=" + to_string(r.orbits.u1) + " U2=" + to_string(r.orbits.u2) +
                       " U4=" + to_string(r.orbits.u4) + " U8=" + to_string(r.orbits.u8));
    line("nodes", to_string(r.nodes));
    line("subproblems", std::to_string(r.subproblems));
    std::ostringstream secs;
    secs << std::fixed << std::setprecision(3) << r.seconds;
    line("seconds", secs.str());
    line("threads", std::to_string(r.threads));
    line("kernel", r.kernel);
    line("numa nodes", std::to_string(r.numa_nodes));
    if (args.verify)
      line("verified", !known ? "no known value for n = " + std::to_string(r.n)
                              : (match ? "yes, matches the known table"
                                       : "NO: the known table says total " +
                                             std::to_string(known->total) + ", unique " +
                                             std::to_string(known->unique)));
    std::cout << o.str();
  }
  if (args.verify) {
    if (!known) {
      std::cerr << "nqcount: no known value for n = " << r.n << " (the table covers 1..27)\n";
      return 0;
    }
    if (!match) {
      std::cerr << "nqcount: verify FAILED for n = " << r.n << "\n";
      return 1;
    }
  }
  return 0;
}

int run_table(const TableArgs& args) {
  nlohmann::json rows = nlohmann::json::array();
  std::ostringstream o;
  o << std::left << std::setw(4) << "n" << std::setw(22) << "total" << "unique\n";
  for (const KnownValue& k : known_values()) {
    if (args.n != 0 && k.n != args.n) continue;
    rows.push_back({{"n", k.n}, {"total", k.total}, {"unique", k.unique}});
    o << std::setw(4) << k.n << std::setw(22) << k.total << k.unique << "\n";
  }
  if (args.json)
    std::cout << rows.dump() << "\n";
  else
    std::cout << o.str();
  return 0;
}

}  // namespace nq::cli
