// The parts of `nqcount count` that nqcount-mpi shares: signals, the checkpoint, the report.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/io/signal_scope.hpp"
#include "cli/options.hpp"
#include "count/count.hpp"
#include "count/journal.hpp"

namespace nq::cli {

// The count config of the arguments (without the journal). Check memory_limit_error first.
CountConfig count_config(const CountArgs& args);

// What is wrong with --memory-limit (empty: nothing, or not given).
std::string memory_limit_error(const CountArgs& args);

// The journal --checkpoint asks for, or null without one.
std::unique_ptr<FileJournal> open_checkpoint(const CountArgs& args);

// After an interrupted run: flushes the journal and says how to resume; returns 130 / 143.
// `launcher` is put before the command (e.g. "mpirun [options] ").
int report_interrupted(const CountArgs& args, const CountResult& r, FileJournal* journal,
                       const std::string& launcher = "");

// How an MPI run shared the work: subproblems counted by each rank (none for nqcount).
struct RankShares {
  std::vector<std::uint64_t> subproblems;
};

// Prints the result (text or JSON) and returns the exit status (--verify).
int report_count(const CountArgs& args, const CountResult& r, const RankShares& ranks = {});

}  // namespace nq::cli
