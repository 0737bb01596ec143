// `nqcount topology`: the machine as hwloc sees it, and the NUMA plan a count would use.
#include "engine/count/topology.hpp"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cli/commands/commands.hpp"
#include "cli/io/json.hpp"
#include "cli/io/output.hpp"
#include "engine/count/count.hpp"

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
    nlohmann::json j = t;
    j["threads"] = plan.threads;
    j["arenas"] = plan.arenas;
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
      o << " on node " << a.node << ": " << a.threads << " threads on cpus " << cpu_list(a.cpus)
        << (worker_cpus(a, {}).empty() ? "" : ", one a CPU");
    else
      o << ": " << a.threads << " threads, unpinned";
    o << "\n";
  }
  std::cout << o.str();
  return 0;
}

}  // namespace nq::cli
