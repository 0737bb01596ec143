// The parts of `nqcount count` that nqcount-mpi shares: signals, the checkpoint, the report.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/io/signal_scope.hpp"
#include "cli/options.hpp"
#include "engine/count/count.hpp"

namespace nq::cli {

// --shard's I/K: the shard and the shards, where the text is I/K with 0 <= I < K <= kMaxShards.
inline constexpr std::uint64_t kMaxShards = 1'000'000;
std::optional<std::pair<std::uint32_t, std::uint32_t>> parse_shard(const std::string& text);

// The count config of the arguments (without the journal). Check memory_limit_error first.
CountConfig count_config(const CountArgs& args);

// What is wrong with the count's options together (empty: nothing): --memory-limit that is no
// size, --cross-check-seed where nothing is cross-checked, --order fewest or --lookahead with
// --algo dp, a --shard that is no I/K or lacks its --checkpoint, --checkpoint -, and outputs
// that clash (cli/io/output_file.hpp: outputs_error). nqcount-mpi (`mpi`) also refuses --algo dp
// and --task-stats, which it cannot do. The options table's rules (--progress with
// --no-progress, --checkpoint-every without --checkpoint) are the parser's, checked before.
std::string count_args_error(const CountArgs& args, bool mpi = false);

// What is wrong with resuming a join count's journal cut into `journal_tasks` tasks
// (rowsplit_journal_tasks; 0: no such journal) with these arguments: a --tasks that cuts the plan
// otherwise (empty: nothing). A resumed count keeps its journal's cut.
std::string journal_cut_error(const CountArgs& args, std::uint64_t journal_tasks);

// The journal --checkpoint asks for, or null without one.
std::unique_ptr<FileJournal> open_checkpoint(const CountArgs& args);

// After an interrupted run whose journal (`journal`, its path; empty: none) is closed, and could
// not be saved where `journal_failure` says why: says how to resume, and returns 128 + the
// signal (130 / 143; this process's, else `signal`, one an MPI worker received), or 2 where the
// progress was not saved. `launcher` is put before the command (e.g. "mpirun [options] ").
int report_interrupted(const CountArgs& args, const CountResult& r, const std::string& journal,
                       const std::string& journal_failure, const std::string& launcher = "",
                       int signal = 0);

// How an MPI run shared the work: subproblems counted by each rank (none for nqcount).
struct RankShares {
  std::vector<std::uint64_t> subproblems;
  std::uint64_t checked_elsewhere = 0;  // cross-checks counted by another rank than the first
};

// Prints the result (text or JSON) and returns the exit status (--verify).
int report_count(const CountArgs& args, const CountResult& r, const RankShares& ranks = {});
// report_count, then one error line for each output beside the count that could not be written
// (a checkpoint, task stats), and exit status 2 if there was one.
int report_with_failed_writes(const CountArgs& args, const CountResult& r, const RankShares& ranks,
                              const std::vector<std::string>& failed_writes);

}  // namespace nq::cli
