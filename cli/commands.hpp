// One function per command; each returns the process exit status.
#pragma once

#include "options.hpp"

namespace nq::cli {

int run_count(const CountArgs& args);
int run_table(const TableArgs& args);
int run_topology(const TopologyArgs& args);
int run_simulate(const SimulateArgs& args);

}  // namespace nq::cli
