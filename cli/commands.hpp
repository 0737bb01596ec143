// One function per command; each returns the process exit status.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "common/huge_pages.hpp"

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
// Solutions (0-based rows) in solve's --format perm, board or json ({"n":N,"solutions":[...]},
// whatever their number, none included), as solve writes them (cli/cmd_solve.cpp); for
// solve --method blnq, which writes every distinct solution its runs found.
void write_solution_list(std::FILE* f, const std::string& format, std::int64_t n,
                         std::vector<Permutation> solutions);
int run_solve_ldpc(const SolveArgs& args);  // solve --modular --ldpc J,K (cli/cmd_ldpc.cpp)
int run_topology(const TopologyArgs& args);
int run_simulate(const SimulateArgs& args);
int run_estimate(const EstimateArgs& args);

}  // namespace nq::cli
