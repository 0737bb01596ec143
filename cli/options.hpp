// The one table of command-line options. Every option of every command is a row here: the
// parser, the help text, the range checks and the defaults shown are all generated from it,
// so an option cannot drift from its documentation (the CaDiCaL pattern).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace CLI {
class App;
}

namespace nq::cli {

struct CountArgs {
  int n = 0;
  int threads = 0;  // 0: not given, use every hardware thread
  bool json = false;
  bool verify = false;
  bool progress = false;
  bool no_progress = false;
  std::string kernel;  // empty: not given, use $NQ_KERNEL or "auto"
  int split_rows = -1;
  std::string algo = "search";    // search (the engine) or dp (the Rivin-Zabih cross-check)
  std::string checkpoint;         // journal file; empty: none
  int checkpoint_every = 30;      // seconds between journal flushes
  std::vector<std::string> argv;  // the command line as typed, for the "resume with" hint
  std::string numa = "auto";
  std::string task_stats;  // empty: none
  // --memory-limit as typed ("8G", "512M", bytes); empty: the engine's default.
  std::string memory_limit;
};

struct TopologyArgs {
  int threads = 0;  // 0: every hardware thread
  std::string numa = "auto";
  bool json = false;
};

struct SimulateArgs {
  std::string stats;  // a --task-stats file
  int procs = 0;
  int node_cores = 16;
  std::string serial_seconds = "0";  // a count's setup_seconds, to predict the whole run
  std::string cost = "seconds";      // or "nodes": nodes times the mean seconds per node
  std::string order = "auto";        // largest, plan (the join's runs), auto: as the file says
  bool json = false;
};

struct EstimateArgs {
  int n = 0;
  int samples = 64;
  double seconds = 0;  // 0: no limit
  long long seed = 1;
  int procs = 1000;
  int node_cores = 64;
  int threads = 0;  // 0: every hardware thread
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
  std::string method = "enumerate";
  bool json = false;
};

struct ListArgs {
  int n = 0;
  bool unique = false;
  std::string format = "perm";
  int limit = 0;  // 0: every solution
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
  double time_limit = 0;
  std::string batch;
};

struct Args {
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
};

struct Command {
  const char* name;
  const char* help;
};

struct OptionRow {
  const char* command;  // which command it belongs to
  const char* flags;    // CLI11 flag spelling, e.g. "-n,--n"
  std::variant<int*, bool*, std::string*, long long*, double*> target;
  const char* help;
  std::optional<std::pair<long long, long long>> range;  // inclusive bounds for numbers
  std::vector<std::string> choices;                      // allowed words for strings
  bool required = false;
};

const std::vector<Command>& commands();
std::vector<OptionRow> option_table(Args& args);
// Adds one row to a CLI11 app: the flag, its help, its range or choices (nqcount, nqcount-mpi).
void add_option_row(CLI::App& app, const OptionRow& row);

}  // namespace nq::cli
