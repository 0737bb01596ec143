// `nqcount simulate --stats FILE`: the scaling simulator, which replays measured task costs (a
// count's --task-stats file) under the runner's own scheduling policy on machines we do not have.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands/commands.hpp"
#include "cli/io/json.hpp"
#include "cli/io/output.hpp"
#include "engine/count/count.hpp"
#include "engine/count/memory.hpp"

namespace nq::cli {
namespace {

// A replay that would not fit is refused before it starts, as count refuses one (--memory-limit):
// the memory at hand is 80% of the physical memory, or, below it, what the address-space limit
// (ulimit -v) leaves beside what the process holds already.
std::optional<std::string> too_large(std::uint64_t needed) {
  std::uint64_t limit = default_memory_limit();
  const char* why = "80% of this machine's memory";
  if (rlimit as{}; ::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    unsigned long long held_pages = 0;  // the address space in use, /proc/self/statm's first field
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%llu", &held_pages) != 1) held_pages = 0;
      std::fclose(statm);
    }
    const std::uint64_t held = held_pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
    const std::uint64_t left = as.rlim_cur > held ? as.rlim_cur - held : 0;
    if (left < limit) {
      limit = left;
      why = "what the address-space limit (ulimit -v) leaves";
    }
  }
  if (needed <= limit) return std::nullopt;
  return "this simulation needs about " + format_bytes(needed) + " (" + std::to_string(needed) +
         " bytes), above the memory at hand, " + format_bytes(limit) + " (" + why +
         "); simulate fewer --ranks or --procs";
}

int run_simulate_dealer(const SimulateArgs& args, const std::vector<TaskStat>& tasks) {
  const double root = args.root_seconds >= 0 ? args.root_seconds : 1 / kMeasuredRootRate;
  if (const auto refused = too_large(simulate_dealer_bytes(tasks.size(), args.ranks))) {
    print_error(*refused);
    return 2;
  }
  const SimulatedDeal d = simulate_dealer(tasks, args.ranks, args.procs, root);
  if (args.json) {
    nlohmann::json j = d;
    j["tasks"] = tasks.size();
    j["root_seconds"] = root;
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::ostringstream o;
  o << std::left << std::setprecision(4);
  o << std::setw(13) << "tasks" << tasks.size() << "\n";
  o << std::setw(13) << "ranks" << d.ranks << " of " << d.threads << " threads (nqcount-mpi)\n";
  o << std::setw(13) << "batches" << d.batches << "\n";
  o << std::setw(13) << "work" << d.work << " s\n";
  o << std::setw(13) << "makespan" << d.makespan << " s\n";
  o << std::setw(13) << "efficiency" << d.efficiency << "\n";
  o << std::setw(13) << "rank 0" << 100 * d.root_busy << "% busy serving (" << root
    << " s a batch), longest wait " << d.longest_wait << " s\n";
  std::cout << o.str();
  return 0;
}

}  // namespace

int run_simulate(const SimulateArgs& args) {
  const double serial = args.serial_seconds;  // the options table allows decimals only
  if (!(serial >= 0 && serial <= 1e9)) {
    print_error("--serial-seconds needs a number of seconds in 0..1e9");
    return 2;
  }
  auto profile = read_task_stats(args.stats);
  if (!profile.ok()) {
    print_error(profile.error().message);
    return 2;
  }
  // A run that resumed from a checkpoint did not time what it found done: those rows are left
  // out, and said so, since a replay of them would count them as free.
  const std::size_t rows = profile->size();
  const std::vector<TaskStat> timed = timed_tasks(std::move(*profile));
  const std::vector<TaskStat>* tasks = &timed;
  if (tasks->empty()) {
    print_error("'" + args.stats +
                "' has no timed task: every row was resumed from a checkpoint (resumed = 1); "
                "profile a run that counts from the start");
    return 2;
  }
  if (tasks->size() < rows)
    print_note(std::to_string(rows - tasks->size()) + " of " + std::to_string(rows) +
               " tasks were resumed from a checkpoint and not timed: left out of the replay");
  if (args.ranks > 0) return run_simulate_dealer(args, *tasks);  // --root-seconds needs --ranks
  const bool plan_order = args.order == "plan" ||
                          (args.order == "auto" && !tasks->empty() && tasks->front().plan_order);
  if (const auto refused =
          too_large(simulate_schedule_bytes(tasks->size(), args.procs, args.node_cores))) {
    print_error(*refused);
    return 2;
  }
  const SimulatedRun run =
      simulate_schedule(args.cost == "nodes" ? costs_from_nodes(*tasks) : *tasks, args.procs,
                        args.node_cores, serial, plan_order);
  if (args.json) {
    nlohmann::json j = run;
    j["tasks"] = tasks->size();
    j["node_cores"] = args.node_cores;
    j["serial_seconds"] = serial;
    j["cost"] = args.cost;
    j["order"] = plan_order ? "plan" : "largest";
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
