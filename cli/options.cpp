#include "cli/options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>

#include "base/types.hpp"
#include "cli/commands/commands.hpp"
#include "cli/io/numbers.hpp"
#include "cli/io/output.hpp"
#include "engine/algebra/dp.hpp"
#include "engine/algebra/orbits.hpp"
#include "engine/count/count.hpp"
#include "engine/solve/blnq.hpp"
#include "engine/solve/solve.hpp"
#include "kernels/kernels.hpp"

namespace nq::cli {

std::vector<OptionRow> option_table(Args& a) {
  const long long max_threads = kMaxThreads;
  const long long max_procs = 1 << 16;  // simulated workers: no thread is created
  // Help texts that quote a limit: built once, so that the rows' pointers stay valid.
  static const std::string algo_help =
      "counting algorithm: search (the engine), or dp (Rivin-Zabih dynamic programme over closed "
      "lines: an independent cross-check, total only, n <= " +
      std::to_string(kMaxDpN) + ")";
  static const std::string method_help =
      "enumerate (the bitboard enumeration) or algebraic (grow from the orbits of n-1 with Inc, "
      "then Mov transmutations; n <= " +
      std::to_string(kMaxAlgebraicN) + ")";
  // --kernel's words and help, from the kernel table.
  static const std::vector<std::string> kernel_choices = [] {
    std::vector<std::string> words{"auto"};
    for (const Kernel& k : all_kernels()) words.emplace_back(k.name);
    return words;
  }();
  static const std::string kernel_help = [] {
    std::string help = "counting kernel: auto (the fastest for this n on this CPU: join from n = " +
                       std::to_string(kJoinFromN) + ", the best backtracking kernel below)";
    for (const Kernel& k : all_kernels())
      help += ", " + std::string(k.name) + " (" + std::string(k.description) + ")";
    return help + "; default: the environment variable " + kKernelEnv + ", else auto";
  }();
  // --method's words and help (solve), from the solver's table (the first is the default), and
  // blnq, which reports statistics of its runs rather than a solution (cli/commands/blnq.cpp).
  static const std::vector<std::string> method_choices = [] {
    std::vector<std::string> words;
    for (const SolveMethodInfo& m : solve_methods()) words.emplace_back(m.name);
    words.emplace_back(kBlnqMethodName);
    return words;
  }();
  static const std::string method_help_solve = [] {
    std::string help;
    for (const SolveMethodInfo& m : solve_methods())
      help += (help.empty() ? "" : ", ") + std::string(m.name) + " (" + m.description +
              (help.empty() ? "; the default)" : ")");
    return help + ", " + kBlnqMethodName +
           " (Candia & Astudillo's swap hill climbing: no restart, a run ends once more than "
           "--budget tries in a row failed to improve; statistics over --runs)";
  }();
  static const std::string cross_check_help =
      "FRACTION in [0, 1]: count this seeded random fraction of the subproblems twice, the second "
      "time with an independent kernel (the join: the best backtracking kernel, from n = " +
      std::to_string(kJoinCheckedBySelfFromN) +
      " its baseline build cut into other chunks; avx512, avx2: scalar; scalar: scalar-rows; "
      "reference: the best backtracking kernel); any difference stops the run with exit 1, "
      "naming the subproblem. 0: off (default: 0.001 for n > 27, beyond the known table, else "
      "0). Under nqcount-mpi the second count is made on another rank";
  static const std::string root_seconds_help = [] {
    std::ostringstream help;
    help << "with --ranks: rank 0's time per batch result (default " << 1 / kMeasuredRootRate
         << ": " << kMeasuredRootRate
         << " a second, measured with scripts/mpi-throughput at 64 ranks; at most 3600)";
    return help.str();
  }();
  static const std::string task_stats_help =
      "write one CSV row per subproblem (" + std::string(kTaskStatsHeader) +
      ") to this file ('-': stdout, not with --json), for 'nqcount simulate' (times every "
      "subproblem: slightly slower)";
  // The required "-n,--n" of a command that counts boards up to `largest`.
  auto board_size = [](const char* command, int* n, long long smallest, long long largest) {
    return OptionRow{command, "-n,--n", n, "board size", std::pair{smallest, largest}, {}, true};
  };
  return {
      board_size("count", &a.count.n, 1, kMaxN),
      {"count", "-t,--threads", &a.count.threads,
       "worker threads, at most 4096 (default: every hardware thread; more than the hardware "
       "threads is allowed, with a warning)",
       std::pair{1LL, max_threads}},
      {"count", "--json", &a.count.json, "print the result as one JSON object on stdout"},
      {"count", "--verify", &a.count.verify,
       "compare with the known table: exit 0 on a match, 1 on a mismatch"},
      {"count", "--progress", &a.count.progress,
       "show progress on stderr even when it is not a terminal"},
      {"count", "--no-progress", &a.count.no_progress, "never show progress"},
      {"count",
       "--kernel",
       &a.count.kernel,
       kernel_help.c_str(),
       std::nullopt,
       kernel_choices,
       false,
       false,
       {},
       kKernelEnv},
      {"count", "--split-depth", &a.count.split_rows,
       "top rows fixed to split each canonical class into more, smaller subproblems (default: by "
       "n)",
       std::pair{0LL, 6LL}},
      {"count",
       "--order",
       &a.count.order,
       "backtracking row order: rows (top to bottom, every kernel) or fewest (the open row with "
       "the fewest free squares next; scalar kernel only)",
       std::nullopt,
       {"rows", "fewest"}},
      {"count", "--lookahead", &a.count.lookahead,
       "prune a branch as soon as some open row has no free square (scalar kernel only; "
       "refused with join, avx2, avx512 and reference)"},
      {"count", "--algo", &a.count.algo, algo_help.c_str(), std::nullopt, {"search", "dp"}},
      {"count",
       "--checkpoint",
       &a.count.checkpoint,
       "journal of finished subproblems: created if missing, resumed if it exists (same n, "
       "split depth and kernel route; anything else is refused)",
       std::nullopt,
       {},
       false,
       true},
      {"count", "--checkpoint-every", &a.count.checkpoint_every,
       "seconds between flushes (fsync) of the checkpoint journal (default 30)",
       std::pair{1LL, 86400LL}},
      {"count", "--tasks", &a.count.tasks,
       "cut the join's row-split plan (the auto kernel's from n = 16) into at least N tasks where "
       "it can: blocks of consecutive subproblems down to one a task, then each subproblem into "
       "up to n/2 pieces by its first row's queen; other plans are cut by --split-depth "
       "(default: about 2 million tasks at most, one machine; nqcount-mpi: 32 for each thread "
       "of all ranks; a resumed checkpoint keeps its own cut)",
       std::pair{1LL, 4'294'967'295LL}},
      {"solve", "-n,--n", &a.solve.n, "board size (mutually exclusive with --batch)",
       std::pair{1LL, 2'000'000'000LL}},
      {"solve", "-t,--threads", &a.solve.threads,
       "worker threads, at most 4096: parallel restarts at small n, a split start-up at large n "
       "(default: every hardware thread; more is allowed, with a warning)",
       std::pair{1LL, max_threads}},
      {"solve", "--seed", &a.solve.seed,
       "random seed; a seed gives the same solution at any thread count (default: drawn, and "
       "reported by --json)",
       std::pair{0LL, 9'223'372'036'854'775'807LL}},
      {"solve", "--method", &a.solve.method, method_help_solve.c_str(), std::nullopt,
       method_choices},
      {"solve", "--ldpc", &a.solve.ldpc,
       "J,K (with --modular): write the LDPC parity-check matrix H of J x K blocks, each the "
       "solution's Q-matrix with its columns shifted cyclically (by j*k; see --ldpc-layout), as "
       "a MatrixMarket pattern to --output (default stdout), and report its row and column "
       "weights and 4-cycles (exit 1 if any)"},
      {"solve",
       "--ldpc-layout",
       &a.solve.ldpc_layout,
       "with --ldpc: product (the default): block (j,k) shifted by j*k; paper: by m(j)*k with the "
       "row multipliers m = 0, 2, 3, 5, 7, 11, ... (0, then the primes) of the paper's equation "
       "(1)",
       std::nullopt,
       {"product", "paper"}},
      {"solve",
       "--budget",
       &a.solve.budget,
       "--method blnq: the budget L of a run, counted as --budget-rule says: n2 (n^2, the "
       "default), 3n, or a number",
       std::nullopt,
       {},
       false,
       false,
       {"n2", "3n"}},
      {"solve",
       "--budget-rule",
       &a.solve.budget_rule,
       "--method blnq: how L is counted: consecutive (the paper's: failed tries in a row, back "
       "to 0 after every improving swap; a run ends when they pass L, after L + 1 failures in a "
       "row, as the paper's Figure 3 has it; the default) or total (L neighbours in all)",
       std::nullopt,
       {"consecutive", "total"}},
      {"solve", "--runs", &a.solve.runs,
       "independent runs, each from its own seed, and their statistics: --method blnq's "
       "collisions, neighbours and successes (default 1); with the other methods, how many runs "
       "found a solution at their first attempt (no restart), as Candia & Astudillo's Table 4 "
       "counts them (statistics only: no solution is written)",
       std::pair{1LL, 1'000'000LL}},
      {"solve", "--solutions", &a.solve.solutions, "how many distinct solutions (default 1)",
       std::pair{1LL, 1'000'000LL}},
      {"solve", "--modular", &a.solve.modular,
       "a modular (toroidal) solution: every cyclic column shift is again a solution; needs "
       "gcd(n, 6) = 1"},
      {"solve",
       "--format",
       &a.solve.format,
       "perm (the 1-based rows of columns 1..n on one line, space-separated, as list writes "
       "them), board (n lines of . and Q, row 1 first, a blank line between boards; n <= 200), "
       "json, matrix (the Q-matrix as a MatrixMarket coordinate pattern)",
       std::nullopt,
       {"perm", "board", "json", "matrix"}},
      {"solve",
       "-o,--output",
       &a.solve.output,
       "write the solution(s) to FILE, atomically; needed above n = 10000 ('-' forces stdout; "
       "not with --json)",
       std::nullopt,
       {},
       false,
       true},
      {"solve", "--json", &a.solve.json,
       "print the run record (n, method, seed, threads, restarts, seconds, verified; the "
       "solution too for n <= 10000) as one JSON object on stdout"},
      {"solve", "--max-tries", &a.solve.max_tries,
       "--method swap: consecutive failed swaps before a restart (default n^2, at most 10^7, "
       "at least 3n)",
       std::pair{1LL, 9'223'372'036'854'775'807LL}},
      {"solve", "--max-restarts", &a.solve.max_restarts,
       "give up (exit 1) after this many restarts in a row without a solution, counted from "
       "the last solution found (default 1000: no method needs more than a few dozen where it "
       "can succeed; a modular search's last attempt is the construction)",
       std::pair{1LL, 9'223'372'036'854'775'807LL}},
      {"solve", "--time-limit", &a.solve.time_limit,
       "give up after SEC seconds, writing included (exit 1, nothing written); 0: no limit",
       std::pair{0LL, 1'000'000'000LL}},
      {"solve", "--memory-limit", &a.solve.memory_limit,
       "SIZE: refuse, before it starts, a run whose estimated peak memory (the attempts' arrays, "
       "the solutions kept, the verifier's tables; --json memory_estimate_bytes) is above SIZE: "
       "bytes, or a number with K, M, G or T (powers of 1024), e.g. 512M, 8G (default: 80% of "
       "the physical memory)"},
      {"solve",
       "--batch",
       &a.solve.batch,
       "read board sizes from FILE (whole numbers as --n takes them, any number per line, "
       "separated by blanks or commas; blank lines, # comments, a byte-order mark at the start "
       "and CRLF allowed) and write one line per size, in order: the solution, or 'no solution' "
       "(n = 2, 3); a bad entry is reported with its line and skipped, and the run then exits 2",
       std::nullopt,
       {},
       false,
       true},
      {"table", "-n,--n", &a.table.n, "print only this n", std::pair{1LL, 27LL}},
      {"table", "--json", &a.table.json, "print the table as JSON"},
      {"orbit",
       "-p,--perm",
       &a.orbit.perm,
       "the permutation, 1-based: p_i is the row of the queen in column i; separated by commas "
       "or spaces, optionally in parentheses or brackets: 2,4,1,3 or '2 4 1 3' or '(2, 4, 1, 3)' "
       "or [2,4,1,3]",
       std::nullopt,
       {},
       true},
      {"orbit", "--json", &a.orbit.json, "print the result as one JSON object"},
      {"edit",
       "-p,--perm",
       &a.edit.perm,
       "the permutation, 1-based, as for orbit: 2,4,1,3 or '2 4 1 3' or '(2, 4, 1, 3)'",
       std::nullopt,
       {},
       true},
      {"edit", "--inc", &a.edit.inc,
       "R,C: add a queen in the gaps R and C (half-integers 0.5 .. n+0.5; .5 is 0.5); written as "
       "--perm is: 0.5,0.5 or '0.5 0.5' or '(0.5, 0.5)' or [0.5,0.5]"},
      {"edit", "--del", &a.edit.del,
       "R,C: remove the queen at row R, column C (whole numbers), written as --inc is"},
      {"edit", "--mov", &a.edit.mov,
       "R,C,R2,C2: move the queen at (R, C) to the gaps (R2, C2), given before any change; "
       "written as --inc is"},
      {"edit", "--json", &a.edit.json, "print the result as one JSON object"},
      board_size("orbits", &a.orbits.n, 1, kMaxOrbitsN),
      {"orbits", "-t,--threads", &a.orbits.threads,
       "worker threads, at most 4096 (default: every hardware thread); the orbits, the report "
       "and the growth graph are the same at any count",
       std::pair{1LL, max_threads}},
      {"orbits",
       "--method",
       &a.orbits.method,
       method_help.c_str(),
       std::nullopt,
       {"enumerate", "algebraic"}},
      {"group", "--json", &a.group.json,
       "print the elements and the table (table[f][g], as --orientation says) as one JSON "
       "object"},
      {"group",
       "--orientation",
       &a.group.orientation,
       "composition (the default): row f, column g holds f∘g, apply g first, then f; paper: "
       "row f, column g holds g∘f, apply f first, then g (the transpose: the orientation of "
       "Zhang & Zhang's Table 1)",
       std::nullopt,
       {"composition", "paper"}},
      {"orbits",
       "--graph",
       &a.orbits.graph,
       "FILE (--method algebraic): write the growth graph, one node per orbit of every level "
       "and one edge per orbit found, from the orbit it came from, labelled Inc(R,C), Mov or "
       "Mov∘Mov: Graphviz DOT, or JSON when FILE ends in .json",
       std::nullopt,
       {},
       false,
       true},
      {"orbits", "--json", &a.orbits.json, "print the result as one JSON object"},
      board_size("list", &a.list.n, 1, kMaxN),
      {"list", "--unique", &a.list.unique,
       "only the canonical representative (least member) of each orbit"},
      {"list",
       "--format",
       &a.list.format,
       "perm (the 1-based rows of columns 1..n, space-separated, as solve writes) or board (n "
       "lines of . and Q, row 1 first, a blank line between boards)",
       std::nullopt,
       {"perm", "board"}},
      {"list", "--json", &a.list.json,
       "stream one JSON object per line, {\"n\":N,\"solution\":[...]} (JSON lines)"},
      {"list", "--limit", &a.list.limit, "stop after this many solutions",
       std::pair{1LL, (long long)INT_MAX}},
      {"count",
       "--numa",
       &a.count.numa,
       "auto: one task arena per NUMA node, threads pinned to its CPUs, memory on the node, and "
       "one CPU a thread where the threads match the CPUs; off: one unpinned arena",
       std::nullopt,
       {"auto", "off"}},
      {"count",
       "--task-stats",
       &a.count.task_stats,
       task_stats_help.c_str(),
       std::nullopt,
       {},
       false,
       true},
      {"topology", "-t,--threads", &a.topology.threads,
       "plan for this many threads (default: every hardware thread)", std::pair{1LL, max_threads}},
      {"topology",
       "--numa",
       &a.topology.numa,
       "auto: one arena per NUMA node; off: one arena",
       std::nullopt,
       {"auto", "off"}},
      {"topology", "--json", &a.topology.json, "print one JSON object"},
      {"simulate",
       "stats",
       &a.simulate.stats,
       "the --task-stats CSV file",
       std::nullopt,
       {},
       true,
       true},
      {"simulate",
       "-p,--procs",
       &a.simulate.procs,
       "simulated worker threads",
       std::pair{1LL, max_procs},
       {},
       true},
      {"simulate", "--node-cores", &a.simulate.node_cores,
       "cores per simulated NUMA node (the workers fill nodes of this size)",
       std::pair{1LL, max_procs}},
      {"simulate", "--serial-seconds", &a.simulate.serial_seconds,
       "seconds the run spends before counting (its JSON setup_seconds), added to the "
       "prediction: the whole run's speedup (default 0: the parallel phase only; at most 1e9)",
       std::pair{0LL, 1'000'000'000LL}},
      {"simulate",
       "--cost",
       &a.simulate.cost,
       "seconds: each task's measured seconds; nodes: its nodes times the profile's mean seconds "
       "per node (immune to timing noise such as a virtual machine's stolen time)",
       std::nullopt,
       {"seconds", "nodes"}},
      {"simulate",
       "--order",
       &a.simulate.order,
       "largest: the policy of a backtracking run (largest estimated cost first); plan: that of "
       "a join run, whose row-split plan keeps its order (contiguous blocks per thread, so that "
       "neighbours share the kernel's cached rows); auto: the order the profiled run used (the "
       "file's plan_order column)",
       std::nullopt,
       {"auto", "largest", "plan"}},
      {"simulate", "--ranks", &a.simulate.ranks,
       "replay nqcount-mpi's dealing instead: this many ranks of --procs threads each, rank 0 "
       "serving every batch's results in turn (it counts too)",
       std::pair{1LL, 1LL << 20}},
      {"simulate", "--root-seconds", &a.simulate.root_seconds, root_seconds_help.c_str(),
       std::pair{0LL, 3600LL}},
      {"simulate", "--json", &a.simulate.json, "print one JSON object"},
      board_size("estimate", &a.estimate.n, 4, kMaxN),
      {"estimate", "--samples", &a.estimate.samples,
       "subproblems to count (in strata of equal estimated cost, four to a stratum, up to 32 "
       "strata; at least two each)",
       std::pair{1LL, 1LL << 20}},
      {"estimate", "--pieces", &a.estimate.pieces,
       "of a sampled subproblem too large for one chunk of the join (from about n = 25), the "
       "pairs of chunks to count (drawn at random; the rest estimated from them)",
       std::pair{1LL, 1LL << 20}},
      {"estimate", "--check", &a.estimate.check,
       "also count this many subproblems whole, by the join and by the best backtracking "
       "kernel, and exit 1 if they disagree (the cheapest of 64 times as many drawn: the search "
       "takes seconds a subproblem at n = 24, more than half an hour at 28: see --check-rows)",
       std::pair{0LL, 1024LL}},
      {"estimate", "--check-rows", &a.estimate.check_rows,
       "with --check: count only a part of each checked subproblem, the queens of its first R "
       "rows fixed at random (seeded), so that the search finishes where a whole subproblem "
       "takes it hours: each row cut its time about tenfold at n = 24 (default 0: whole)",
       std::pair{0LL, 31LL}},
      {"estimate", "--seconds", &a.estimate.seconds,
       "stop drawing more samples once this many seconds have passed (after two per stratum; "
       "default 0: no limit)"},
      {"estimate", "--spread", &a.estimate.spread,
       "SEC: after the first pass, time the sample again, pass after pass, for SEC seconds "
       "(at most half the count's estimated wall time; one pass more at least), all of it a "
       "pass, or a part of it in turn where a whole pass is longer than an eighth of SEC: how "
       "much the eighths of SEC differ is the machine's speed changing, and it widens the "
       "core-hours' interval, which is for a count timed at another hour (default 60; 0: time "
       "once, the interval is the sampling error only)"},
      {"estimate", "--seed", &a.estimate.seed,
       "seed of the sample (the same seed, the same "
       "sample)",
       std::pair{0LL, LLONG_MAX}},
      {"estimate", "-p,--procs", &a.estimate.procs,
       "workers (threads on cores) the predicted wall time is for; with --ranks, threads a rank",
       std::pair{1LL, 1LL << 24}},
      {"estimate", "--ranks", &a.estimate.ranks,
       "predict a cluster's run instead: nqcount-mpi on this many ranks of --procs threads, the "
       "plan cut as finely as it cuts it for them, the sample's costs replayed through its "
       "dealer (wall time, busy fraction, rank 0's load, the tail)",
       std::pair{1LL, 1LL << 20}},
      {"estimate", "--root-seconds", &a.estimate.root_seconds, root_seconds_help.c_str(),
       std::pair{0LL, 3600LL}},
      {"estimate", "--cores", &a.estimate.cores,
       "with --ranks: the cores all the ranks' threads share, where they are fewer than the "
       "threads (a test of many ranks on one machine, oversubscribed): each task takes threads / "
       "cores times as long (default: a core for each thread)",
       std::pair{1LL, 1LL << 30}},
      {"estimate", "--tasks", &a.estimate.tasks,
       "with --ranks: the plan cut as nqcount-mpi --tasks N cuts it (at least N tasks: blocks of "
       "subproblems, then pieces of a subproblem) instead of its cut for the cluster",
       std::pair{1LL, 4'294'967'295LL}},
      {"estimate", "--node-cores", &a.estimate.node_cores,
       "cores per NUMA node of the machine the wall time is for", std::pair{1LL, max_threads}},
      {"estimate", "-t,--threads", &a.estimate.threads,
       "threads counting the sample (default: every hardware thread)", std::pair{1LL, max_threads}},
      {"estimate", "--json", &a.estimate.json, "print one JSON object"},
      {"count", "--memory-limit", &a.count.memory_limit,
       "SIZE: refuse, before it starts, a count whose estimated peak memory (the plan, the "
       "runner's copies and every thread's kernel scratch; --json memory_estimate_bytes) is "
       "above SIZE: bytes, or a number with K, M, G or T (powers of 1024), e.g. 512M, 8G, 1.5G "
       "(default: 80% of the physical memory)"},
      {"count", "--cross-check", &a.count.cross_check, cross_check_help.c_str(),
       std::pair{0LL, 1LL}},
      {"count", "--shard", &a.count.shard,
       "I/K: count only shard I of K (0 <= I < K <= 1000000) of the plan, its tasks chosen by "
       "their estimated costs so that the K shards take about as long each (one job-array task a "
       "shard); needs --checkpoint FILE, whose journal records the shard, and prints the shard's "
       "part only: 'nqcount merge' puts the shards' journals together"},
      {"merge",
       "journals",
       &a.merge.journals,
       "the journals (--checkpoint files) of one count: its shards' (nqcount --shard), whole "
       "counts' or nqcount-mpi's, in any order",
       std::nullopt,
       {},
       true,
       true},
      {"merge", "--json", &a.merge.json, "print the result as one JSON object on stdout"},
      {"merge", "--verify", &a.merge.verify,
       "compare the merged count with the known table: exit 1 on a mismatch"},
      {"status",
       "journals",
       &a.status.journals,
       "the journals of one campaign written so far (shards not started yet have none)",
       std::nullopt,
       {},
       true,
       true},
      {"status", "--json", &a.status.json, "print one JSON object"},
      {"audit",
       "journals",
       &a.audit.journals,
       "the journals of one count whose recorded tasks to sample",
       std::nullopt,
       {},
       true,
       true},
      {"audit", "--fraction", &a.audit.fraction,
       "FRACTION in (0, 1]: the seeded share of the recorded tasks counted again (default 0.01)",
       std::pair{0LL, 1LL}},
      {"audit", "--seed", &a.audit.seed,
       "seed of the sample: the same seed samples the same tasks (default 1)",
       std::pair{0LL, LLONG_MAX}},
      {"audit", "-t,--threads", &a.audit.threads,
       "worker threads, at most 4096 (default: every hardware thread)",
       std::pair{1LL, max_threads}},
      {"audit", "--json", &a.audit.json, "print one JSON object"},
      {"count", "--cross-check-seed", &a.count.cross_check_seed,
       "seed of the --cross-check choice: the same seed checks the same subproblems at any thread "
       "or rank count, and on resume (default 1; a checkpoint records it with the fraction)",
       std::pair{0LL, LLONG_MAX}},
  };
}

namespace {

// Numbers are written in decimal and nothing else: CLI11 alone reads 010 as octal 8, 0x8 as hex
// and ' 5' as 5. Whole numbers: read_whole's rule (cli/io/numbers.hpp), the one the --batch file
// and --perm follow too; real numbers: digits with an optional fraction and exponent (2.5,
// 1.5e-05: JSON's own numbers).
bool strict_decimal(const std::string& text, bool fraction) {
  if (!fraction) {
    std::uint64_t value = 0;
    return read_whole(text, value, ~std::uint64_t{0}) != WholeNumber::not_decimal;
  }
  std::size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  if (i == 0 || (i > 1 && text[0] == '0')) return false;
  if (fraction && i < text.size() && text[i] == '.') {
    const std::size_t digits = ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == digits) return false;
  }
  if (fraction && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {  // 1.5e-05
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    const std::size_t digits = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == digits) return false;
  }
  return i == text.size();
}

// A real number's value, where `text` (in strict_decimal's form) is one a double holds: not
// 1e999, nor 1e-400, which no double tells from 0 (from_chars refuses both as out of range).
std::optional<double> read_real(const std::string& text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

CLI::Validator decimal_validator(bool fraction) {
  return CLI::Validator(
      [fraction](std::string& text) -> std::string {
        if (strict_decimal(text, fraction)) {
          // A number must fit: a whole one in 63 bits (CLI11 would take 99999999999999999999
          // as the largest), a real one in a double (1e999 is no time or fraction).
          std::uint64_t value = 0;
          if (fraction ? read_real(text).has_value()
                       : read_whole(text, value, LLONG_MAX) == WholeNumber::ok)
            return "";
          return "'" + text + "' is " +
                 (fraction ? "beyond a double's range (0, or about 4.9e-324 to 1.8e308)"
                           : "too large");
        }
        return "'" + text + "' is not a " +
               (fraction ? "decimal number (digits, an optional fraction and exponent: 2.5, 1e-05)"
                         : std::string("whole decimal number (") + kWholeNumberRule + ")");
      },
      "");
}

// Whether the command line gave `option`: CLI11 counts a value read from the option's
// environment variable too, but lists in parse_order() only what it parsed from the words.
bool on_command_line(const CLI::App& app, const CLI::Option* option) {
  const std::vector<CLI::Option*>& parsed = app.parse_order();
  return std::find(parsed.begin(), parsed.end(), option) != parsed.end();
}

// The long names of `command`'s options that the command line of the parsed `app` gave (for
// refusing options that do not apply); an environment variable gives none.
std::set<std::string> given_options(const CLI::App& app, const std::vector<OptionRow>& rows,
                                    const std::string& command) {
  std::set<std::string> given;
  for (const OptionRow& row : rows) {
    if (command != row.command) continue;
    const std::string name = long_flag(row.flags);
    if (on_command_line(app, app.get_option(name))) given.insert(name);
  }
  return given;
}

// The value `command`'s --threads row read (0: not given, or the command has none).
int threads_asked(const std::vector<OptionRow>& rows, const std::string& command) {
  for (const OptionRow& row : rows)
    if (command == row.command && long_flag(row.flags) == "--threads")
      if (int* const* threads = std::get_if<int*>(&row.target)) return **threads;
  return 0;
}

// The option of the parsed `app` whose value CLI11 read from its environment variable (the
// command line did not give it); null where there is none.
const CLI::Option* from_environment(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options())
    if (!option->get_envname().empty() && option->count() > 0 && !on_command_line(app, option))
      return option;
  return nullptr;
}

// Adds one row to a CLI11 app: the flag, its help, its range or choices.
void add_option_row(CLI::App& app, const OptionRow& row) {
  CLI::Option* opt = std::visit(
      [&](auto* target) -> CLI::Option* {
        using T = std::remove_pointer_t<decltype(target)>;
        if constexpr (std::is_same_v<T, bool>) {
          return app.add_flag(row.flags, *target, row.help);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          return app.add_option(row.flags, *target, row.help)
              ->check(CLI::Validator(
                  [](std::string& text) -> std::string {
                    return text.empty() ? "must not be empty" : "";
                  },
                  ""));
        } else {
          CLI::Option* o = app.add_option(row.flags, *target, row.help);
          o->multi_option_policy(CLI::MultiOptionPolicy::Throw);  // --n 5 --n 6: refused
          if constexpr (std::is_integral_v<T>) o->check(decimal_validator(false));
          if constexpr (std::is_floating_point_v<T>) o->check(decimal_validator(true));
          if constexpr (std::is_same_v<T, std::string>)  // '' is no file, word or permutation
            o->check(CLI::Validator(
                [](std::string& text) -> std::string {
                  return text.empty() ? "must not be empty" : "";
                },
                ""));
          return o;
        }
      },
      row.target);
  if (row.range) {  // a real number's bounds are compared as reals (0.5 is in [0, 1])
    if (std::holds_alternative<double*>(row.target)) {
      // Plain variables, not a structured binding: clang 14 cannot capture one.
      const auto low = row.range->first, high = row.range->second;
      opt->check(CLI::Validator(
          [low, high](std::string& text) -> std::string {
            const double v = read_real(text).value_or(0);  // decimal_validator has checked it
            if (v >= static_cast<double>(low) && v <= static_cast<double>(high)) return "";
            return "Value " + text + " not in range " + std::to_string(low) + " to " +
                   std::to_string(high);
          },
          ""));
    } else {
      opt->check(CLI::Range(row.range->first, row.range->second));
    }
  }
  if (!row.choices.empty()) opt->check(CLI::IsMember(row.choices));
  if (row.required) opt->required();
  if (row.env) opt->envname(row.env);  // read only where the option is not given, then checked
}

// Options that need another option of their command, or exclude one, checked by CLI11
// (needs, excludes) before any command runs: "--checkpoint-every requires --checkpoint". Rules
// on an option's value (--algo dp, --method blnq, --check 0) are the commands' own.
struct OptionRule {
  const char* command;
  const char* option;
  bool excludes;  // else needs
  const char* other;
};
constexpr OptionRule kOptionRules[] = {
    {"count", "--progress", true, "--no-progress"},
    {"count", "--checkpoint-every", false, "--checkpoint"},
    {"solve", "--n", true, "--batch"},
    {"solve", "--ldpc-layout", false, "--ldpc"},
    {"estimate", "--root-seconds", false, "--ranks"},
    {"estimate", "--cores", false, "--ranks"},
    {"estimate", "--tasks", false, "--ranks"},
    {"simulate", "--root-seconds", false, "--ranks"},
};

// The rules of `command` on its `app`, once every row of it is there.
void add_option_rules(CLI::App& app, const char* command) {
  for (const OptionRule& rule : kOptionRules) {
    if (std::strcmp(rule.command, command) != 0) continue;
    CLI::Option* option = app.get_option(rule.option);
    if (rule.excludes)
      option->excludes(rule.other);
    else
      option->needs(rule.other);
  }
}

// The message of a value CLI11 refused (`what`: "--kernel: bogus not in {...}") where it came
// from the option's environment variable, not the command line of the parsed `app`: it names
// the variable the user set ("NQ_KERNEL: bogus not in {...}"). Empty where `what` is about
// anything else.
std::string refused_from_environment(const CLI::App& app, const std::string& what) {
  const CLI::Option* option = from_environment(app);
  if (!option || what.rfind(option->get_name() + ": ", 0) != 0) return "";
  return option->get_envname() + what.substr(option->get_name().size());
}

bool is_command(const std::string& word) {
  for (const auto& c : commands())
    if (word == c.name) return true;
  return false;
}

// The message for arguments that no option took (CLI11 lists them in reverse): an option of
// another command is named as not applying to this one ("--threads does not apply to table"),
// anything else is listed in the order typed.
std::string extras_message(const CLI::App& app, const std::map<std::string, CLI::App*>& subs,
                           const std::vector<OptionRow>& rows,
                           const std::vector<std::string>& typed) {
  std::multiset<std::string> left;
  for (const std::string& word : app.remaining(true)) left.insert(word);
  std::vector<std::string> extras;  // in the order typed
  for (const std::string& word : typed)
    if (const auto it = left.find(word); it != left.end()) {
      extras.push_back(word);
      left.erase(it);
    }
  std::string command;
  for (const auto& [name, sub] : subs)
    if (sub->parsed()) command = name;
  if (!extras.empty() && !command.empty()) {
    const std::string& first = extras.front();
    const std::string option = first.substr(0, first.find('='));
    for (const OptionRow& row : rows)
      if (option.size() > 1 && option[0] == '-' && row.command != command &&
          (option == long_flag(row.flags) ||
           ("," + std::string(row.flags) + ",").find("," + option + ",") != std::string::npos))
        return option + " does not apply to " + command + " (see 'nqcount " + command + " --help')";
  }
  std::string message = extras.size() > 1 ? "The following arguments were not expected:"
                                          : "The following argument was not expected:";
  for (const std::string& word : extras) message += " " + word;
  return message;
}

// A parse error's text without CLI11's trailing newline (print_error writes what the user typed
// on one line, control characters included).
std::string trimmed(std::string what) {
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
  return what;
}

}  // namespace

CommandLine read_command_line(int argc, char** argv, const char* version, Args& args) {
  CLI::App app{std::string("nqcount: ") + kNqcountAbout +
                   ".\nRun 'nqcount COMMAND --help' for a command's options.",
               "nqcount"};
  app.set_version_flag("--version", version);
  app.require_subcommand(1);
  std::map<std::string, CLI::App*> subs;
  for (const auto& c : commands()) {
    subs[c.name] = app.add_subcommand(c.name, c.help);
    subs[c.name]->set_version_flag("--version", version);  // `nqcount solve --version` too
  }
  const std::vector<OptionRow> rows = option_table(args);
  for (const auto& row : rows) {
    add_option_row(*subs.at(row.command), row);
    // CLI11 reads the environment variables of every command, not only the one run, and checks
    // their values (NQ_KERNEL=bogus would refuse 'nqcount table'); a command with a
    // parse-complete callback has its own read and checked only when it is the one parsed.
    if (row.env) subs.at(row.command)->parse_complete_callback([] {});
  }
  for (const auto& [name, sub] : subs) add_option_rules(*sub, name.c_str());

  std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    print_error("no arguments; try 'nqcount --n 12' or 'nqcount --help'");
    return {"", 2};
  }
  const std::string& first = words.front();
  if (!is_command(first) && !first.empty() && first[0] != '-') {
    std::string names;
    for (const auto& c : commands()) names += (names.empty() ? "" : ", ") + std::string(c.name);
    const bool number = first.find_first_not_of("0123456789") == std::string::npos;
    print_error("'" + first + "' is not a command (the commands: " + names +
                "; 'nqcount --help' says what each does)" +
                (number ? "; to count that board: nqcount --n " + first : ""));
    return {"", 2};
  }
  if (!is_command(first) && first != "-h" && first != "--help" && first != "--version")
    words.insert(words.begin(), "count");
  const std::vector<std::string> typed = words;
  std::reverse(words.begin(), words.end());  // CLI11 takes a vector in reverse order
  try {
    app.parse(words);
  } catch (const CLI::CallForHelp& e) {
    return {"", app.exit(e)};
  } catch (const CLI::CallForAllHelp& e) {
    return {"", app.exit(e)};
  } catch (const CLI::CallForVersion& e) {
    // Printed here, not by app.exit (whose std::endl flushes early and loses the errno).
    std::printf("%s\n", e.what());
    return {"", 0};
  } catch (const CLI::ExtrasError&) {
    print_error(extras_message(app, subs, rows, typed));
    return {"", 2};
  } catch (const CLI::ParseError& e) {
    std::string what = trimmed(e.what());
    for (const auto& [name, sub] : subs)
      if (sub->parsed())
        if (std::string env = refused_from_environment(*sub, what); !env.empty()) {
          // The variable is no part of the command line: --help still shows the help.
          if (sub->get_help_ptr()->count() > 0) return {"", app.exit(CLI::CallForHelp())};
          what = env;
        }
    print_error(what);
    return {"", 2};
  }
  args.count.argv.assign(argv, argv + argc);  // for the "resume with" hint
  args.count.given = given_options(*subs["count"], rows, "count");
  args.count.kernel_from_env = !args.count.kernel.empty() && !args.count.given.count("--kernel");
  args.solve.given = given_options(*subs["solve"], rows, "solve");
  for (const auto& [name, sub] : subs)
    if (sub->parsed()) return {name, 0, threads_asked(rows, name)};
  return {"", 2};
}

MpiCommandLine read_mpi_command_line(int argc, char** argv, const char* version, Args& args) {
  CLI::App app{std::string("nqcount-mpi: ") + kNqcountMpiAbout + ". " + kNqcountMpiDetail,
               "nqcount-mpi"};
  app.set_version_flag("--version", version);
  const std::vector<OptionRow> rows = option_table(args);
  for (const auto& row : rows)
    if (std::strcmp(row.command, kMpiCommand) == 0) add_option_row(app, row);
  add_option_rules(app, kMpiCommand);
  std::vector<std::string> words(argv + 1, argv + argc);
  if (!words.empty() && words.front() == "count") words.erase(words.begin());
  std::reverse(words.begin(), words.end());  // CLI11 takes a vector in reverse order
  try {
    app.parse(words);
  } catch (const CLI::CallForVersion& e) {
    return {MpiCommandLine::kPrint, std::string(e.what()) + "\n"};
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    what = trimmed(what);
    const std::string env = refused_from_environment(app, what);
    // The variable is no part of the command line: --help still shows the help.
    if (e.get_exit_code() == 0 || (!env.empty() && app.get_help_ptr()->count() > 0))
      return {MpiCommandLine::kPrint, app.help()};
    return {MpiCommandLine::kError, env.empty() ? what : env};
  }
  args.count.argv.assign(argv, argv + argc);
  args.count.given = given_options(app, rows, "count");
  args.count.kernel_from_env = !args.count.kernel.empty() && !args.count.given.count("--kernel");
  return {};
}

std::string long_flag(const char* flags) {
  const std::string all = flags;
  const auto comma = all.rfind(',');
  return comma == std::string::npos ? all : all.substr(comma + 1);
}

}  // namespace nq::cli
