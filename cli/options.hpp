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

namespace nq::cli {

struct CountArgs {
  int n = 0;
  int threads = 0;  // 0: not given, use every hardware thread
  bool json = false;
  bool verify = false;
  bool progress = false;
  bool no_progress = false;
  std::string kernel = "auto";
  int split_rows = -1;
  std::string numa = "auto";
  std::string task_stats;  // empty: none
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
  bool json = false;
};

struct TableArgs {
  int n = 0;  // 0: every row
  bool json = false;
};

struct Args {
  CountArgs count;
  TableArgs table;
  TopologyArgs topology;
  SimulateArgs simulate;
};

struct Command {
  const char* name;
  const char* help;
};

struct OptionRow {
  const char* command;  // which command it belongs to
  const char* flags;    // CLI11 flag spelling, e.g. "-n,--n"
  std::variant<int*, bool*, std::string*> target;
  const char* help;
  std::optional<std::pair<long long, long long>> range;  // inclusive bounds for numbers
  std::vector<std::string> choices;                      // allowed words for strings
  bool required = false;
};

const std::vector<Command>& commands();
std::vector<OptionRow> option_table(Args& args);

}  // namespace nq::cli
