#include "options.hpp"

#include "types.hpp"

namespace nq::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands{
      {"count", "Count all solutions (total) and the D4 orbits (unique) of the n-queens problem. "
                "This is the default command: 'nqcount --n 12' counts."},
      {"table", "Print the known values of Q(n) and unique(n) (n = 1..27) that --verify checks."},
      {"topology",
       "Print the machine as hwloc sees it (packages, NUMA nodes, cores, PUs) and the "
       "NUMA plan for --threads: one arena per node, its thread count and CPUs. "
       "HWLOC_SYNTHETIC=\"pack:2 numa:2 core:16 pu:1\" shows the plan for another "
       "machine."},
      {"simulate",
       "Replay a --task-stats file on P simulated workers with the engine's own "
       "scheduling policy (deal to NUMA nodes largest first, chunks, helping); print "
       "the predicted makespan, speedup and efficiency."},
  };
  return kCommands;
}

std::vector<OptionRow> option_table(Args& a) {
  const long long max_threads = 1 << 16;
  return {
      {"count", "-n,--n", &a.count.n, "board size", std::pair{1LL, (long long)kMaxCountN}, {}, true},
      {"count", "-t,--threads", &a.count.threads,
       "worker threads (default: every hardware thread; more is allowed, with a warning)",
       std::pair{1LL, max_threads}},
      {"count", "--json", &a.count.json, "print the result as one JSON object on stdout"},
      {"count", "--verify", &a.count.verify,
       "compare with the known table: exit 0 on a match, 1 on a mismatch"},
      {"count", "--progress", &a.count.progress,
       "show progress on stderr even when it is not a terminal"},
      {"count", "--no-progress", &a.count.no_progress, "never show progress"},
      {"count", "--kernel", &a.count.kernel,
       "counting kernel: auto (the fastest this CPU runs), scalar, or reference (the classic "
       "one-queen-per-row search with mirror halving, unique by Burnside)",
       std::nullopt, {"auto", "scalar", "reference"}},
      {"count", "--split-depth", &a.count.split_rows,
       "top rows fixed to split each canonical class into more, smaller subproblems (default: by n)",
       std::pair{0LL, 6LL}},
      {"count", "--numa", &a.count.numa,
       "auto: one task arena per NUMA node, threads pinned to its CPUs, memory on the node; "
       "off: one unpinned arena",
       std::nullopt, {"auto", "off"}},
      {"count", "--task-stats", &a.count.task_stats,
       "write one CSV row per subproblem (id,nodes,seconds,estimate) to this file, for "
       "'nqcount simulate' (times every subproblem: slightly slower)"},
      {"table", "-n,--n", &a.table.n, "print only this n", std::pair{1LL, 27LL}},
      {"table", "--json", &a.table.json, "print the table as JSON"},
      {"topology", "-t,--threads", &a.topology.threads,
       "plan for this many threads (default: every hardware thread)", std::pair{1LL, max_threads}},
      {"topology", "--numa", &a.topology.numa, "auto: one arena per NUMA node; off: one arena",
       std::nullopt, {"auto", "off"}},
      {"topology", "--json", &a.topology.json, "print one JSON object"},
      {"simulate", "stats", &a.simulate.stats, "the --task-stats CSV file", std::nullopt, {}, true},
      {"simulate", "-p,--procs", &a.simulate.procs, "simulated worker threads",
       std::pair{1LL, max_threads}, {}, true},
      {"simulate", "--node-cores", &a.simulate.node_cores,
       "cores per simulated NUMA node (the workers fill nodes of this size)",
       std::pair{1LL, max_threads}},
      {"simulate", "--serial-seconds", &a.simulate.serial_seconds,
       "seconds the run spends before counting (its JSON setup_seconds), added to the "
       "prediction: the whole run's speedup (default 0: the parallel phase only)"},
      {"simulate", "--cost", &a.simulate.cost,
       "seconds: each task's measured seconds; nodes: its nodes times the profile's mean seconds "
       "per node (immune to timing noise such as a virtual machine's stolen time)",
       std::nullopt, {"seconds", "nodes"}},
      {"simulate", "--json", &a.simulate.json, "print one JSON object"},
  };
}

}  // namespace nq::cli
