// `nqcount simulate --stats FILE`: the scaling simulator, which replays measured task costs (a
// count's --task-stats file) under the runner's own scheduling policy on machines we do not have.
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "count/count.hpp"
#include "count/schedule.hpp"

namespace nq::cli {

int run_simulate(const SimulateArgs& args) {
  const double serial = args.serial_seconds;  // the options table allows decimals only
  if (!(serial >= 0 && serial < 1e9)) {
    print_error("--serial-seconds needs a number of seconds in 0..1e9");
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
