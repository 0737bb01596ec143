#include "cli/commands/commands.hpp"

namespace nq::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands{
      {"count",
       "Count all solutions (total) and the D4 orbits (unique) of the n-queens problem. "
       "This is the default command: 'nqcount --n 12' counts.",
       [](const Args& a) { return run_count(a.count); }},
      {"solve",
       "Find one (or --solutions K distinct) n-queens solutions for large n by local "
       "search (QS4, Sosic & Gu), verified before they are printed.",
       [](const Args& a) { return run_solve(a.solve); }},
      {"table", "Print the known values of Q(n) and unique(n) (n = 1..27) that --verify checks.",
       [](const Args& a) { return run_table(a.table); }},
      {"orbit",
       "Show a permutation's eight images po1..po8 under D4, its canonical form, orbit "
       "size, symmetry and orbit signature.",
       [](const Args& a) { return run_orbit(a.orbit); }},
      {"edit",
       "Apply one of Zhang & Zhang's operators to a permutation: Inc (add a queen), Del "
       "(remove one) or Mov (move one).",
       [](const Args& a) { return run_edit(a.edit); }},
      {"orbits",
       "List every orbit of the n-queens solutions (canonical form and size), by "
       "enumeration or by the paper's algebraic growth from n-1, and check the orbit "
       "signatures.",
       [](const Args& a) { return run_orbits(a.orbits); }},
      {"group",
       "Print the 8x8 multiplication table of the permutation operations po1..po8 (the D4 "
       "group acting on solutions); row f, column g holds f∘g: apply g first, then f (the "
       "transpose of the paper's Table 1; --orientation paper prints the paper's).",
       [](const Args& a) { return run_group(a.group); }},
      {"list",
       "Stream every solution (or one canonical representative per orbit), one per line, "
       "in lexicographic order.",
       [](const Args& a) { return run_list(a.list); }},
      {"topology",
       "Print the machine as hwloc sees it (packages, NUMA nodes, cores, PUs) and the "
       "NUMA plan for --threads: one arena per node, its thread count and CPUs. "
       "HWLOC_SYNTHETIC=\"pack:2 numa:2 core:16 pu:1\" shows the plan for another "
       "machine.",
       [](const Args& a) { return run_topology(a.topology); }},
      {"simulate",
       "Replay a --task-stats file on P simulated workers with the engine's own "
       "scheduling policy (deal to NUMA nodes largest first, chunks, helping); print "
       "the predicted makespan, speedup and efficiency.",
       [](const Args& a) { return run_simulate(a.simulate); }},
      {"estimate",
       "Predict what a full count (the join) would cost without doing it: count a seeded, "
       "cost-stratified random sample of its subproblems and print the estimated core-hours "
       "and Q(n) with 95% intervals, the memory per worker and the wall time on --procs "
       "workers (through the scaling simulator).",
       [](const Args& a) { return run_estimate(a.estimate); }},
      {"merge",
       "Put the journals of a count's shards (nqcount --shard I/K --checkpoint FILE) together, "
       "in any order: check that every task of the plan is recorded, each with one count, and "
       "print the count (total, unique, orbits). Exit 1 naming the shards whose tasks are "
       "missing, or the tasks and files of a task recorded with two counts; 2 for journals of "
       "another board, plan or cut.",
       [](const Args& a) { return run_merge(a.merge); }},
      {"status",
       "Where a campaign of shards stands, from its journals, without changing them (while the "
       "shards still write): shards done, partial and not started, the share of the estimated "
       "cost done, the rate over the last hour and the time left at that rate.",
       [](const Args& a) { return run_status(a.status); }},
      {"audit",
       "Count a seeded sample of the tasks that a count's journals record again, with the "
       "independent kernel a --cross-check uses, and compare task by task: exit 1 naming every "
       "task whose count differs.",
       [](const Args& a) { return run_audit(a.audit); }},
  };
  return kCommands;
}

}  // namespace nq::cli
