// The one table of command-line options. Every option of every command is a row here: the
// parser, the help text, the range checks and the defaults shown are all generated from it,
// so an option cannot drift from its documentation (the CaDiCaL pattern).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/threads.hpp"

namespace nq::cli {

// --threads accepts 1 to kMaxThreads (base/threads.hpp) in count, solve, topology and
// nqcount-mpi.

struct CountArgs {
  int n = 0;
  int threads = 0;  // 0: not given, use every hardware thread
  bool json = false;
  bool verify = false;
  bool progress = false;
  bool no_progress = false;
  // --kernel, else NQ_KERNEL's value (CLI11 reads it, and checks it as --kernel's); empty:
  // neither, "auto".
  std::string kernel;
  bool kernel_from_env = false;  // `kernel` is NQ_KERNEL's: its errors name the variable
  int split_rows = -1;
  std::string order = "rows";     // rows (top to bottom) or fewest (fewest free squares first)
  bool lookahead = false;         // prune when an open row has no free square (scalar only)
  std::string algo = "search";    // search (the engine) or dp (the Rivin-Zabih cross-check)
  std::string checkpoint;         // journal file; empty: none
  int checkpoint_every = 30;      // seconds between journal flushes
  std::vector<std::string> argv;  // the command line as typed, for the "resume with" hint
  std::string numa = "auto";
  std::string task_stats;  // empty: none
  // --memory-limit as typed ("8G", "512M", bytes); empty: the engine's default.
  std::string memory_limit;
  double cross_check = -1;         // -1: not given, the engine's default by n
  long long cross_check_seed = 1;  // kDefaultCrossCheckSeed
  long long tasks = 0;             // --tasks: the join plan's fewest tasks; 0: its own cut
  std::string shard;               // --shard I/K as typed; empty: the whole plan
  std::set<std::string> given;     // the long names of the options on the command line
};

// A campaign's journals (engine/count/campaign.hpp): merge, status and audit.
struct MergeArgs {
  std::vector<std::string> journals;
  bool json = false;
  bool verify = false;
};
struct StatusArgs {
  std::vector<std::string> journals;
  bool json = false;
};
struct AuditArgs {
  std::vector<std::string> journals;
  double fraction = 0.01;
  long long seed = 1;
  int threads = 0;  // 0: every hardware thread
  bool json = false;
};

struct TopologyArgs {
  int threads = 0;  // 0: every hardware thread
  std::string numa = "auto";
  bool json = false;
};

// simulate --ranks: rank 0's time per batch result by default, 1 / 21,979 s, the slowest rate
// scripts/mpi-throughput has measured (64 ranks oversubscribed on 2 CPUs; perf/results/mpi.md has
// it and faster runs), so that a replay errs towards a busier rank 0.
inline constexpr double kMeasuredRootRate = 21979;

struct SimulateArgs {
  std::string stats;  // a --task-stats file
  int procs = 0;
  int node_cores = 16;
  double serial_seconds = 0;     // a count's setup_seconds, to predict the whole run
  std::string cost = "seconds";  // or "nodes": nodes times the mean seconds per node
  std::string order = "auto";    // largest, plan (the join's runs), auto: as the file says
  int ranks = 0;                 // > 0: nqcount-mpi's dealing on this many ranks of procs threads
  double root_seconds = -1;      // rank 0's time per batch result (-1: the measured default)
  bool json = false;
};

struct EstimateArgs {
  int n = 0;
  int samples = 64;
  int pieces = 2;
  int check = 0;
  int check_rows = 0;
  double seconds = 0;  // 0: no limit
  double spread = 60;  // seconds of timing the sample again; 0: once
  long long seed = 1;
  int procs = 1000;
  int node_cores = 64;
  int threads = 0;  // 0: every hardware thread
  int ranks = 0;    // > 0: the wall time of nqcount-mpi on this many ranks of procs threads
  double root_seconds = -1;  // rank 0's time per request (-1: the measured default)
  int cores = 0;             // with ranks: the cores their threads share (0: a core each)
  long long tasks = 0;       // with ranks: the plan's fewest tasks (0: nqcount-mpi's cut)
  bool json = false;
};

struct TableArgs {
  int n = 0;  // 0: every row
  bool json = false;
};

// The D4 algebra tools (engine/algebra/algebra.hpp, engine/algebra/orbits.hpp) and the solution
// lister.
struct OrbitArgs {
  std::string perm;  // 1-based, comma-separated
  bool json = false;
};

struct EditArgs {
  std::string perm;
  std::string inc, del, mov;  // exactly one: "R,C" or "R,C,R2,C2" in the paper's coordinates
  bool json = false;
};

struct OrbitsArgs {
  int n = 0;
  int threads = 0;  // 0: every hardware thread
  std::string method = "enumerate";
  std::string graph;  // --method algebraic: the growth graph, DOT (JSON for *.json)
  bool json = false;
};

struct ListArgs {
  int n = 0;
  bool unique = false;
  std::string format = "perm";
  int limit = 0;      // 0: every solution
  bool json = false;  // one {"n":N,"solution":[...]} object per line
};

struct SolveArgs {
  int n = 0;
  int threads = 0;      // 0: every hardware thread
  long long seed = -1;  // -1: not given, draw one (the run record reports it)
  std::string method = "qs4";
  int solutions = 1;
  bool modular = false;
  std::string format = "perm";
  std::string output;  // empty: stdout (small n only); "-": stdout whatever n
  bool json = false;
  long long max_tries = 0;
  long long max_restarts = 0;  // 0: not given, the engine's kDefaultMaxRestarts
  double time_limit = 0;
  std::string memory_limit;  // --memory-limit as typed; empty: 80% of the physical memory
  std::string batch;
  std::set<std::string> given;  // the long names of the options on the command line
  std::string budget;           // --method blnq: n2, 3n or a number (empty: not given, n2)
  long long runs = 0;  // --method blnq, or a restarting method: independent runs (0: not given)
  std::string budget_rule;  // --method blnq: consecutive or total (empty: not given)
  std::string ldpc;         // "J,K": write the LDPC parity-check matrix of a modular solution
  std::string ldpc_layout = "product";  // --ldpc: block (j,k) shifted by j*k, or "paper"
};

struct GroupArgs {
  bool json = false;
  std::string orientation = "composition";  // or "paper": the transpose (the paper's Table 1)
};

struct Args {
  GroupArgs group;
  CountArgs count;
  TableArgs table;
  OrbitArgs orbit;
  EditArgs edit;
  OrbitsArgs orbits;
  ListArgs list;
  SolveArgs solve;
  TopologyArgs topology;
  SimulateArgs simulate;
  EstimateArgs estimate;
  MergeArgs merge;
  StatusArgs status;
  AuditArgs audit;
};

struct OptionRow {
  const char* command;  // which command it belongs to
  const char* flags;    // CLI11 flag spelling, e.g. "-n,--n"
  // A list (std::vector) is a positional argument that takes every remaining word (FILE...).
  std::variant<int*, bool*, std::string*, long long*, double*, std::vector<std::string>*> target;
  const char* help;
  std::optional<std::pair<long long, long long>> range;  // inclusive bounds for numbers
  std::vector<std::string> choices;                      // allowed words for strings
  bool required = false;
  // What the bash completion offers for a text value without `choices`: file names where `file`
  // (--output FILE), and these words (--budget's n2 and 3n, which the command reads with any
  // number besides); nothing for a text with neither (--perm, --memory-limit).
  bool file = false;
  std::vector<std::string> hints = {};
  // An environment variable whose value stands in for the option where the command line does
  // not give it, checked as the option's own (--kernel's NQ_KERNEL); null: none.
  const char* env = nullptr;
};

// The variable that gives count's --kernel (and nqcount-mpi's) where the flag is not given.
inline constexpr const char* kKernelEnv = "NQ_KERNEL";

std::vector<OptionRow> option_table(Args& args);
// nqcount-mpi's options: the rows of this command (the man page and the completion say the same).
inline constexpr const char* kMpiCommand = "count";
// "--threads" of "-t,--threads".
std::string long_flag(const char* flags);

// nqcount's command line, read by the table into `args` (CLI11 is compiled in options.cpp
// only: its header alone takes seconds a source). `command` names the command to run; when it
// is empty, exit with `status`: 0 once the help or the version is printed on standard output,
// 2 once a usage error is said in one line on standard error. `count` is the default command.
// `threads`: the command's --threads as given (0: not given, or the command has none).
struct CommandLine {
  std::string command;
  int status = 0;
  int threads = 0;
};
CommandLine read_command_line(int argc, char** argv, const char* version, Args& args);

// nqcount-mpi's command line: `count`'s rows into `args.count` (a leading "count" is allowed).
// Prints nothing: every rank reads its own, and rank 0 says what they agree on (cli/mpi_main.cpp).
struct MpiCommandLine {
  enum Outcome { kCount, kPrint, kError };
  Outcome outcome = kCount;
  // kPrint: the help or the version, for standard output; kError: the usage error, one line.
  std::string text;
};
MpiCommandLine read_mpi_command_line(int argc, char** argv, const char* version, Args& args);

}  // namespace nq::cli
