// nqcount-mpi: `nqcount count` across MPI ranks. The count itself is the engine's cluster count
// (engine/count/cluster.hpp); here are MPI's side of its link, the ranks' agreement on their
// command lines, and rank 0's report.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands/commands.hpp"
#include "cli/commands/count_run.hpp"
#include "cli/io/output.hpp"
#include "cli/io/progress.hpp"
#include "cli/mpi_link.hpp"
#include "engine/count/cluster.hpp"
#include "engine/count/count.hpp"

namespace nq::cli {
namespace {

// Everything that shapes the plan, the kernel or the counts of a rank's run: every rank must
// agree with rank 0 on each, or a rank of another run would contribute its work to this one's
// sums (another n, plan, route, cut or cross-check). The threads, NUMA placement, memory limit
// and what only rank 0 does (output, checkpoint, progress) may differ.
std::vector<RunField> run_fields(const CountArgs& args, const CountConfig& config) {
  auto number = [](const char* flag, long long v, long long unset) {
    const std::string value = std::to_string(v);
    return RunField{flag, value,
                    v == unset ? std::string(flag) + " not given" : flag + (" " + value)};
  };
  char fraction[32];
  std::snprintf(fraction, sizeof fraction, "%.17g", cross_check_fraction(config));
  return {
      {"version", NQ_VERSION, std::string("nqcount-mpi ") + NQ_VERSION},
      number("--n", config.n, -1),
      {"kernel", config.kernel,
       args.kernel_from_env  ? kKernelEnv + ("=" + config.kernel)
       : args.kernel.empty() ? "--kernel auto (the default)"
                             : "--kernel " + args.kernel},
      number("--split-depth", args.split_rows, -1),
      number("--tasks", args.tasks, 0),
      {"--cross-check", fraction, std::string("--cross-check ") + fraction},
      number("--cross-check-seed", static_cast<long long>(config.cross_check_seed), -1),
      {"--order", args.order, "--order " + args.order},
      {"--lookahead", args.lookahead ? "1" : "0",
       args.lookahead ? "--lookahead" : "no --lookahead"},
  };
}

// The ranks' verdict on their command lines, before anything else: every rank reads its own and
// none leaves before the others know (a rank that left alone would hang the others in their
// first collective call). Nothing: every rank counts. Else the status every rank exits with,
// after rank 0 said why (a rank's error, ranks started with different commands or counts) or
// printed the help or the version all of them asked for.
std::optional<int> agree_on_command_line(ClusterLink& link, int argc, char** argv, Args& all) {
  MpiCommandLine line = read_mpi_command_line(argc, argv, NQ_VERSION, all);
  if (line.outcome == MpiCommandLine::kCount)
    if (std::string bad = count_args_error(all.count, true); !bad.empty())
      line = {MpiCommandLine::kError, std::move(bad)};
  const auto outcome = static_cast<int>(link.broadcast({std::uint64_t(line.outcome)}).at(0));
  std::string error;
  if (line.outcome == MpiCommandLine::kError)
    error = line.text;
  else if (line.outcome != outcome)
    error = std::string(line.outcome == MpiCommandLine::kPrint ? "asked for --help or --version"
                                                               : "asked to count") +
            ", rank 0 " +
            (outcome == MpiCommandLine::kPrint ? "for --help or --version" : "to count") +
            ": every rank must be started with the same command line";
  // Where every rank read a count, what shapes it is compared with rank 0's.
  if (link.all_max(!error.empty()) == 0 && outcome == MpiCommandLine::kCount)
    error = differs_from_root(link, run_fields(all.count, count_config(all.count)));
  if (link.all_max(!error.empty())) {
    if (const std::string said = first_error(link, error); !said.empty()) print_error(said);
    return 2;
  }
  if (line.outcome == MpiCommandLine::kCount) return std::nullopt;
  if (link.rank() == 0) std::fputs(line.text.c_str(), stdout);
  return 0;
}

// Rank 0's report of a cluster count that ran: the counts, or why it stopped short; the status.
int report(const CountArgs& args, const ClusterResult& r, ClusterLink& link) {
  for (const std::string& w : r.journal_warnings) print_warning(w);
  const std::string launcher = "mpirun [the same mpirun options] ";
  switch (r.ending) {
    case ClusterResult::Ending::kCounted: {
      std::vector<std::string> failed_writes;
      if (!r.journal_failure.empty())
        failed_writes.push_back(r.journal_failure + " (the count is complete)");
      return report_with_failed_writes(
          args, r.count, RankShares{r.subproblems_by_rank, r.checked_elsewhere}, failed_writes);
    }
    case ClusterResult::Ending::kCrossCheckFailed:  // what was checked stays in the journal
      print_error(r.error);
      return 1;
    case ClusterResult::Ending::kRankFailed:  // what came back stays in the journal
      print_error(r.error);
      return 2;
    case ClusterResult::Ending::kInterrupted:
      return report_interrupted(args, r.count, r.journal, r.journal_failure, launcher, r.signal);
    case ClusterResult::Ending::kRanksLost:
    case ClusterResult::Ending::kBroken:
      break;
  }
  int status = 1;
  if (r.ending == ClusterResult::Ending::kBroken) {
    print_error(r.error);
  } else {
    std::cerr << "nqcount: work to be redone: at most " << 100.0 * r.redo_share
              << "% of what this run finished (estimated cost of the batches that did not come "
                 "back); the journal holds the rest\n";
    status = report_interrupted(args, r.count, r.journal, r.journal_failure, launcher, r.signal);
  }
  (void)link;
  MPI_Abort(MPI_COMM_WORLD, status);  // the other ranks cannot go on: the job ends here
  return status;
}

int run(int argc, char** argv) {
  MpiLink link;
  Args all;
  CountArgs& args = all.count;
  if (const auto done = agree_on_command_line(link, argc, argv, all)) return *done;
  const auto thread_cap = program_thread_cap(args.threads);
  ClusterConfig config;
  config.count = count_config(args);
  if (config.count.n < 4)  // nothing to share out: rank 0 counts alone
    return link.rank() == 0 ? run_count(args, link.ranks()) : 0;
  config.count.checkpoint = args.checkpoint;
  config.count.checkpoint_every = args.checkpoint_every;
  config.stopped_by = &SignalScope::received;
  config.on_lost_ranks = [](int lost) {
    std::cerr << "nqcount: error: " << lost
              << " rank(s) stopped answering after the signal (a rank was lost or killed); MPI "
                 "cannot continue a job that lost a rank (no ULFM fault tolerance), so the job "
                 "ends here\n";
  };
  // Signals are seen from here on: planning a large board takes minutes.
  Monitor signal;
  SignalScope signals(signal);
  Monitor progress;  // fed by rank 0's dealer, so every rank's work shows
  const bool show =
      link.rank() == 0 && !args.no_progress && (args.progress || stderr_is_terminal());
  std::optional<ProgressLine> line;
  if (show) line.emplace(progress, true);
  const auto r = count_on_cluster(link, config, signal, progress);
  line.reset();
  if (!r) {
    if (!r.error().message.empty()) print_error(r.error().message);
    return 2;
  }
  return link.rank() == 0 ? report(args, *r, link) : 0;
}

}  // namespace
}  // namespace nq::cli

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  nq::cli::end_on_uncaught_exceptions();  // one rank's line; mpirun ends the others
  int status = 2;
  try {
    status = nq::cli::run(argc, argv);
  } catch (...) {
    nq::cli::print_error("rank " + std::to_string(rank) + ": " +
                         nq::cli::describe_escaped(std::current_exception()));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  // Every rank exits alike, with rank 0's status (a worker that was stopped, by a signal or an
  // error, told rank 0, whose status says so): a job's ranks never disagree on how it ended.
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
