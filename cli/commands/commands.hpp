// The commands of nqcount: one registry of {name, help, run}, from which main adds the
// subcommands and runs the one the parser saw, and one function per command, each returning the
// process exit status.
#pragma once

#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/huge_pages.hpp"
#include "base/threads.hpp"
#include "cli/options.hpp"
#include "engine/solve/solve.hpp"

namespace nq::cli {

struct Command {
  const char* name;
  const char* help;
  int (*run)(const Args& args);  // the command on its parsed arguments: the exit status
};
// Every command, in the order --help lists them.
const std::vector<Command>& commands();

// What a program (nqcount, nqcount-mpi) lets oneTBB run while its command runs, held once the
// command line is read: the threads its command asked for (--threads; 0: none asked), where they
// are more than the hardware's (TBB's default cap), so that a --threads above the hardware's gets
// that many. Never more: oneTBB keeps up to the cap's threads for arenas that come and go, and
// with a cap far above what runs, the short counts of nqcount-mpi's batches (several at once,
// each with an arena of its own) had it start a few hundred threads on a 2-core machine, every
// one spinning on sched_yield. The engine keeps within its host's cap and never changes it; the
// program owns its process and sets it.
inline tbb::global_control program_thread_cap(int threads) {
  const int cap = std::clamp(std::max(threads, hardware_threads()), 1, kMaxThreads);
  return tbb::global_control(tbb::global_control::max_allowed_parallelism,
                             static_cast<std::size_t>(cap));
}

// What the programs say of themselves: the first line of their --help and the man pages' NAME
// (cli/docgen.cpp).
inline constexpr const char* kNqcountAbout =
    "exact n-queens counts (total and unique under D4), in parallel";
inline constexpr const char* kNqcountMpiAbout = "nqcount count across MPI ranks";
inline constexpr const char* kNqcountMpiDetail =
    "Rank 0 deals subproblems to the ranks that ask, each rank counts with every thread it has, "
    "rank 0 prints.";

// mpi_ranks > 0: nqcount-mpi's count of a board too small to share out, on rank 0 alone, whose
// report names every rank (with no subproblems for the others).
int run_count(const CountArgs& args, int mpi_ranks = 0);
int run_table(const TableArgs& args);
int run_count_dp(const CountArgs& args);  // count --algo dp
int run_orbit(const OrbitArgs& args);
int run_edit(const EditArgs& args);
int run_orbits(const OrbitsArgs& args);
int run_group(const GroupArgs& args);
int run_list(const ListArgs& args);
int run_solve(const SolveArgs& args);
int run_solve_blnq(const SolveArgs& args);  // solve --method blnq (cli/commands/blnq.cpp)
// Solutions (0-based rows) in solve's --format perm, board or json ({"n":N,"solutions":[...]},
// whatever their number, none included), as solve writes them (cli/commands/solve.cpp); for
// solve --method blnq, which writes every distinct solution its runs found.
void write_solution_list(std::FILE* f, const std::string& format, std::int64_t n,
                         std::vector<Permutation> solutions);
int run_solve_ldpc(const SolveArgs& args);  // solve --modular --ldpc J,K (cli/commands/ldpc.cpp)
// What solve's commands share (cli/commands/solve.cpp):
// the exit status and the message on stderr for a solve that did not find what was asked (0
// when it did; `where` prefixes the message: a batch's file and size);
int report_solve_failure(const SolveResult& r, const SolveConfig& config, const std::string& where);
// --memory-limit's bytes, or 80% of the physical memory when it is not given; nothing (the
// error printed) when it is no size;
std::optional<std::uint64_t> solve_memory_limit(const SolveArgs& args);
// whether a write must stop: a signal, or config's time limit since `start` (the run's whole
// time, writing included), and then its exit status and message (nothing written).
bool write_stopped(const Monitor& monitor, const SolveConfig& config,
                   std::chrono::steady_clock::time_point start);
int report_write_stopped(const Monitor& monitor, const SolveConfig& config, std::int64_t n);
int run_topology(const TopologyArgs& args);
int run_simulate(const SimulateArgs& args);
int run_estimate(const EstimateArgs& args);
int run_merge(const MergeArgs& args);  // a campaign's journals (cli/commands/campaign.cpp)
int run_status(const StatusArgs& args);
int run_audit(const AuditArgs& args);

}  // namespace nq::cli
