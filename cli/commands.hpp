// One function per command; each returns the process exit status.
#pragma once

#include "cli/options.hpp"

namespace nq::cli {

int run_count(const CountArgs& args);
int run_table(const TableArgs& args);
int run_count_dp(const CountArgs& args);  // count --algo dp
int run_orbit(const OrbitArgs& args);
int run_edit(const EditArgs& args);
int run_orbits(const OrbitsArgs& args);
int run_group(const GroupArgs& args);
int run_list(const ListArgs& args);
int run_solve(const SolveArgs& args);
int run_solve_blnq(const SolveArgs& args);  // solve --method blnq (cli/cmd_blnq.cpp)
int run_solve_ldpc(const SolveArgs& args);  // solve --modular --ldpc J,K (cli/cmd_ldpc.cpp)
int run_topology(const TopologyArgs& args);
int run_simulate(const SimulateArgs& args);
int run_estimate(const EstimateArgs& args);

}  // namespace nq::cli
