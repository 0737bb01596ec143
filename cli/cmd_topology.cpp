// `nqcount topology` (the machine and the NUMA plan) and `nqcount simulate` (the scaling
// simulator over a --task-stats file).
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "count/count.hpp"
#include "count/schedule.hpp"
#include "count/topology.hpp"

namespace nq::cli {

int run_topology(const TopologyArgs& args) {
  const auto topo = read_topology();
  if (!topo.ok()) {
    print_error(topo.error().message);
    return 2;
  }
  const Topology& t = *topo;
  const int threads = resolve_threads(args.threads);
  const NumaPlan plan = plan_arenas(t, threads, args.numa != "off");
  if (args.json) {
    nlohmann::json j;
    j["source"] = t.source;
    j["this_system"] = t.this_system;
    j["packages"] = t.packages;
    j["numa_nodes"] = t.nodes.size();
    j["cores"] = t.cores;
    j["pus"] = t.pus;
    j["nodes"] = nlohmann::json::array();
    for (const NumaNode& n : t.nodes)
      j["nodes"].push_back(
          {{"node", n.os_index}, {"package", n.package}, {"cores", n.cores}, {"pus", n.pus}});
    j["threads"] = plan.threads;
    j["arenas"] = nlohmann::json::array();
    for (const ArenaPlan& a : plan.arenas)
      j["arenas"].push_back({{"node", a.node}, {"threads", a.threads}, {"cpus", a.cpus}});
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::ostringstream o;
  o << "machine      " << t.source << (t.this_system ? "" : " (not this system: no pinning)")
    << "\n";
  o << "packages     " << t.packages << "\n";
  o << "numa nodes   " << t.nodes.size() << "\n";
  o << "cores        " << t.cores << "\n";
  o << "pus          " << t.pus << "\n";
  for (const NumaNode& n : t.nodes)
    o << "  node " << n.os_index << ": package " << n.package << ", " << n.cores << " cores, cpus "
      << cpu_list(n.pus) << "\n";
  o << "plan for " << plan.threads << " threads: " << plan.arenas.size()
    << (plan.arenas.size() == 1 ? " arena" : " arenas") << "\n";
  for (const ArenaPlan& a : plan.arenas) {
    o << "  arena";
    if (a.node >= 0)
      o << " on node " << a.node << ": " << a.threads << " threads on cpus " << cpu_list(a.cpus);
    else
      o << ": " << a.threads << " threads, unpinned";
    o << "\n";
  }
  std::cout << o.str();
  return 0;
}

int run_simulate(const SimulateArgs& args) {
  double serial = -1;
  try {
    std::size_t used = 0;
    serial = std::stod(args.serial_seconds, &used);
    if (used != args.serial_seconds.size()) serial = -1;
  } catch (const std::exception&) {
    serial = -1;
  }
  if (!(serial >= 0 && serial < 1e9)) {
    print_error("--serial-seconds needs a number of seconds >= 0, got '" + args.serial_seconds +
                "'");
    return 2;
  }
  const auto tasks = read_task_stats(args.stats);
  if (!tasks.ok()) {
    print_error(tasks.error().message);
    return 2;
  }
  const bool plan_order = args.order == "plan" ||
                          (args.order == "auto" && !tasks->empty() && tasks->front().plan_order);
  const SimulatedRun run =
      simulate_schedule(args.cost == "nodes" ? costs_from_nodes(*tasks) : *tasks, args.procs,
                        args.node_cores, serial, plan_order);
  if (args.json) {
    nlohmann::json j;
    j["tasks"] = tasks->size();
    j["workers"] = run.workers;
    j["arenas"] = run.arenas;
    j["node_cores"] = args.node_cores;
    j["serial_seconds"] = serial;
    j["cost"] = args.cost;
    j["order"] = plan_order ? "plan" : "largest";
    j["work_seconds"] = run.work;
    j["makespan_seconds"] = run.makespan;
    j["speedup"] = run.speedup;
    j["efficiency"] = run.efficiency;
    j["steals"] = run.steals;
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::ostringstream o;
  o << std::left << std::setprecision(4);
  o << std::setw(13) << "tasks" << tasks->size() << "\n";
  o << std::setw(13) << "workers" << run.workers << " on " << run.arenas << " simulated node"
    << (run.arenas == 1 ? "" : "s") << " of " << args.node_cores << " cores\n";
  o << std::setw(13) << "order" << (plan_order ? "plan" : "largest first") << "\n";
  o << std::setw(13) << "work" << run.work << " s\n";
  o << std::setw(13) << "makespan" << run.makespan << " s\n";
  o << std::setw(13) << "speedup" << run.speedup << "\n";
  o << std::setw(13) << "efficiency" << run.efficiency << "\n";
  std::cout << o.str();
  return 0;
}

}  // namespace nq::cli
