// `nqcount count`: the engine's count (and `--algo dp`, the independent cross-check).
#include "engine/count/count.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/commands/commands.hpp"
#include "cli/commands/count_run.hpp"
#include "cli/io/json.hpp"
#include "cli/io/numbers.hpp"
#include "cli/io/output.hpp"
#include "cli/io/output_file.hpp"
#include "cli/io/progress.hpp"
#include "engine/algebra/dp.hpp"
#include "engine/count/known.hpp"
#include "engine/count/memory.hpp"

namespace nq::cli {
namespace {

// A word as the shell reads it back.
std::string shell_quoted(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789-_./=:,+@%") == std::string::npos;
  if (plain) return word;
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::optional<std::pair<std::uint32_t, std::uint32_t>> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  std::uint64_t shard = 0, shards = 0;
  if (read_whole(std::string_view(text).substr(0, slash), shard, kMaxShards) != WholeNumber::ok ||
      read_whole(std::string_view(text).substr(slash + 1), shards, kMaxShards) != WholeNumber::ok ||
      shard >= shards)
    return std::nullopt;
  return std::pair{static_cast<std::uint32_t>(shard), static_cast<std::uint32_t>(shards)};
}

CountConfig count_config(const CountArgs& args) {
  CountConfig config;
  config.n = args.n;
  config.threads = args.threads;
  // --kernel, else NQ_KERNEL (the options table reads it); the engine refuses kernels this CPU
  // lacks.
  config.kernel = args.kernel.empty() ? "auto" : args.kernel;
  config.split_rows = args.split_rows;
  config.order_fewest = args.order == "fewest";
  config.lookahead = args.lookahead;
  config.numa = args.numa != "off";
  config.task_stats = !args.task_stats.empty();
  config.memory_limit = parse_byte_size(args.memory_limit).value_or(0);
  config.cross_check = args.cross_check;
  config.cross_check_seed = static_cast<std::uint64_t>(args.cross_check_seed);
  config.min_tasks = static_cast<std::uint64_t>(args.tasks);
  if (const auto shard = parse_shard(args.shard)) {
    config.shard = shard->first;
    config.shards = shard->second;
  }
  return config;
}

std::string count_args_error(const CountArgs& args, bool mpi) {
  if (!args.memory_limit.empty() && !parse_byte_size(args.memory_limit))
    return "--memory-limit: '" + args.memory_limit +
           "' is not a size (expected bytes, or a number with K, M, G or T, e.g. 512M, 8G, 1.5G)";
  const double fraction =
      args.given.count("--cross-check") ? args.cross_check : default_cross_check(args.n);
  if (args.given.count("--cross-check-seed") && fraction == 0)
    return "--cross-check-seed: nothing is cross-checked (at n = " + std::to_string(args.n) +
           " the default --cross-check is 0); give --cross-check FRACTION too";
  if (args.algo == "dp" && (args.order != "rows" || args.lookahead))
    return "--order fewest and --lookahead apply to the backtracking search, not --algo dp";
  if (mpi && args.algo == "dp")
    return "--algo dp is a one-process cross-check: run it with nqcount, not nqcount-mpi";
  if (mpi && !args.task_stats.empty())
    return "--task-stats is not available in nqcount-mpi (each rank counts a share of the plan); "
           "profile a run with nqcount --task-stats";
  if (!args.shard.empty()) {
    if (!parse_shard(args.shard))
      return "--shard: '" + args.shard +
             "' is not I/K, shard I of K with 0 <= I < K <= " + std::to_string(kMaxShards) +
             " (e.g. 0/8 ... 7/8; " + kWholeNumberRule + ")";
    if (mpi)
      return "--shard is for nqcount, one job-array task a shard; nqcount-mpi counts the whole "
             "plan";
    if (args.algo == "dp") return "--shard applies to --algo search, not --algo dp";
    if (args.checkpoint.empty())
      return "--shard needs --checkpoint FILE: the shard's journal is what 'nqcount merge' reads";
    if (args.verify)
      return "--verify checks a whole count, not a shard's part: verify the merged count with "
             "'nqcount merge --verify'";
  }
  if (args.checkpoint == "-")
    return "--checkpoint '-': a checkpoint is a file that a later run reads back; give a file "
           "name";
  return outputs_error({{"--checkpoint", args.checkpoint}, {"--task-stats", args.task_stats}},
                       args.json);
}

std::string journal_cut_error(const CountArgs& args, std::uint64_t journal_tasks) {
  return resume_cut_error(args.n, args.tasks > 0 ? static_cast<std::uint64_t>(args.tasks) : 0,
                          journal_tasks, args.checkpoint);
}

std::unique_ptr<FileJournal> open_checkpoint(const CountArgs& args) {
  if (args.checkpoint.empty()) return nullptr;
  return std::make_unique<FileJournal>(args.checkpoint,
                                       std::chrono::seconds(args.checkpoint_every));
}

int report_interrupted(const CountArgs& args, const CountResult& r, const std::string& journal,
                       const std::string& journal_failure, const std::string& launcher,
                       int signal) {
  const int status =
      SignalScope::received() == 0 && signal > 0 ? 128 + signal : SignalScope::exit_status();
  if (r.subproblems_total == 0) {  // stopped while planning: nothing counted, nothing to save
    std::cerr << "nqcount: interrupted before counting began; nothing to save\n";
    return status;
  }
  std::cerr << "nqcount: interrupted after " << r.subproblems << " of " << r.subproblems_total
            << " subproblems; no counts printed\n";
  if (journal.empty()) {
    std::cerr << "nqcount: run with --checkpoint FILE to be able to resume\n";
    return status;
  }
  // An interrupted run whose work could not be saved is a failed write (exit 2), not an
  // interruption to resume from: a requeueing script must not take it for a saved one.
  if (!journal_failure.empty()) {
    print_error("interrupted, and the progress could not be saved: " + journal_failure +
                " (what was saved before the failure stays valid)");
    return 2;
  }
  std::string command = launcher;
  for (const std::string& word : args.argv) {
    if (&word != &args.argv.front()) command.push_back(' ');
    command.append(shell_quoted(word));
  }
  std::cerr << "nqcount: progress saved in " << journal << "\n"
            << "nqcount: resume with: " << command << "\n";
  return status;
}

int run_count(const CountArgs& args, int mpi_ranks) {
  if (const std::string bad = count_args_error(args); !bad.empty()) {
    print_error(bad);
    return 2;
  }
  if (args.algo == "dp") return run_count_dp(args);  // the independent cross-check
  warn_if_oversubscribed(args.threads);
  CountConfig config = count_config(args);
  // A cluster's journal cut the row-split plan finer: resume it as it was cut.
  if (!args.checkpoint.empty())
    if (const std::uint64_t cut = rowsplit_journal_tasks(args.checkpoint, config.n)) {
      if (const std::string bad = journal_cut_error(args, cut); !bad.empty()) {
        print_error(bad);
        return 2;
      }
      config.min_tasks = cut;
    }
  const std::unique_ptr<FileJournal> journal = open_checkpoint(args);
  config.journal = journal.get();

  // The stats file is opened before the run, so that a bad path fails at once, not after it.
  std::optional<OutputFile> stats_file;
  if (config.task_stats) {
    std::string error;
    stats_file.emplace(args.task_stats, "--task-stats");
    if (!stats_file->open(&error)) {
      print_error(error);
      return 2;
    }
  }

  Monitor monitor;
  Expected<CountResult> out = Error{};
  {
    SignalScope signals(monitor);
    const bool show = !args.no_progress && (args.progress || stderr_is_terminal());
    ProgressLine progress(monitor, show);
    out = count(config, &monitor);
  }
  if (journal)
    for (const std::string& w : journal->warnings()) print_warning(w);
  if (!out.ok()) {
    print_error((args.kernel_from_env ? std::string(kKernelEnv) + ": " : "") + out.error().message);
    return 2;
  }
  const CountResult& r = *out;
  if (!r.note.empty()) print_note(r.note);
  if (!r.cross_check_failure.empty()) {  // what was counted before it is kept in the journal
    print_error(r.cross_check_failure);
    if (journal) (void)journal->close();
    return 1;
  }
  if (r.cancelled) {
    std::string failure;
    if (journal)
      if (auto closed = journal->close(); !closed) failure = closed.error().message;
    return report_interrupted(args, r, journal ? journal->path() : "", failure);
  }
  // The count is the product: a side file that cannot be written (the checkpoint, the task
  // stats) is said after it, and the exit status says that a write failed.
  std::vector<std::string> failed_writes;
  if (journal)
    if (auto closed = journal->close(); !closed)
      failed_writes.push_back(closed.error().message + " (the count is complete)");
  if (stats_file) {
    std::string error;
    if (!stats_file->write(format_task_stats(r.tasks), &error) || !stats_file->commit(&error))
      failed_writes.push_back(error);
  }
  RankShares shares;
  if (mpi_ranks > 0) {
    shares.subproblems.assign(static_cast<std::size_t>(mpi_ranks), 0);
    shares.subproblems[0] = r.subproblems;
  }
  return report_with_failed_writes(args, r, shares, failed_writes);
}

int report_with_failed_writes(const CountArgs& args, const CountResult& r, const RankShares& ranks,
                              const std::vector<std::string>& failed_writes) {
  const int status = report_count(args, r, ranks);
  for (const std::string& failure : failed_writes) print_error(failure);
  return failed_writes.empty() ? status : 2;
}

// A shard's report: its part of the count, for `nqcount merge` to put together.
int report_shard(const CountArgs& args, const CountResult& r) {
  const std::string shard = std::to_string(r.shard) + "/" + std::to_string(r.shards);
  if (args.json) {
    nlohmann::json j = r;
    for (const char* whole : {"unique", "u1", "u2", "u4", "u8", "orbits"}) j.erase(whole);
    j["shard"] = shard;
    j["tasks"] = r.subproblems_total;
    j["subproblems_resumed"] = r.subproblems_resumed;
    std::cout << j.dump() << "\n";
    return 0;
  }
  TextLines o;
  auto line = [&](const char* k, const std::string& v) { o.line(k, v); };
  line("n", std::to_string(r.n));
  line("shard", shard + ", " + std::to_string(r.subproblems) + " of " +
                    std::to_string(r.subproblems_total) + " tasks counted");
  line("shard total", to_string(r.orbits.total) +
                          " (this shard's part; 'nqcount merge' of every "
                          "shard's journal gives the count)");
  line("nodes", to_string(r.nodes));
  o.seconds(r.seconds);
  line("threads", std::to_string(r.threads));
  line("kernel", r.isa == r.kernel ? r.kernel : r.kernel + " (" + r.isa + ")");
  line("journal",
       args.checkpoint + " (" + std::to_string(r.subproblems_resumed) + " tasks resumed from it)");
  std::cout << o.text();
  return 0;
}

int report_count(const CountArgs& args, const CountResult& r, const RankShares& ranks) {
  if (r.shards) return report_shard(args, r);
  const auto known = known_value(r.n);
  const bool match = known && r.orbits.total == known->total && r.orbits.unique == known->unique;

  if (args.json) {
    nlohmann::json j = r;
    j["verified"] = known ? nlohmann::json(match) : nlohmann::json(nullptr);
    if (!args.checkpoint.empty()) j["subproblems_resumed"] = r.subproblems_resumed;
    if (!ranks.subproblems.empty()) {
      j["ranks"] = ranks.subproblems.size();
      j["subproblems_by_rank"] = ranks.subproblems;
      j["cross_checked_on_another_rank"] = ranks.checked_elsewhere;
    }
    std::cout << j.dump() << "\n";
  } else {
    TextLines o;
    auto line = [&](const char* k, const std::string& v) { o.line(k, v); };
    line("n", std::to_string(r.n));
    line("total", to_string(r.orbits.total));
    line("unique", to_string(r.orbits.unique));
    line("orbits", "U1=" + to_string(r.orbits.u1) + " U2=" + to_string(r.orbits.u2) +
                       " U4=" + to_string(r.orbits.u4) + " U8=" + to_string(r.orbits.u8));
    line("nodes", to_string(r.nodes));
    line("subproblems", std::to_string(r.subproblems));
    o.seconds(r.seconds);
    line("threads", std::to_string(r.threads));
    line("kernel", r.isa == r.kernel ? r.kernel : r.kernel + " (" + r.isa + ")");
    if (!ranks.subproblems.empty()) {
      std::string shares = std::to_string(ranks.subproblems.size()) + " (subproblems:";
      for (std::uint64_t k : ranks.subproblems) {
        shares.push_back(' ');
        shares.append(std::to_string(k));
      }
      shares.push_back(')');
      line("ranks", shares);
    }
    if (!args.checkpoint.empty())
      line("resumed",
           std::to_string(r.subproblems_resumed) + " subproblems from " + args.checkpoint);
    if (r.cross_checked > 0)
      line("cross-checked",
           std::to_string(r.cross_checked) + " subproblems" +
               (ranks.subproblems.empty()
                    ? ""
                    : " (" + std::to_string(ranks.checked_elsewhere) + " on another rank)"));
    line("numa nodes", std::to_string(r.numa_nodes));
    line("memory", "about " + format_bytes(r.memory_estimate) + " (" +
                       std::to_string(r.memory_estimate) + " bytes) at its peak (estimated)");
    if (args.verify)
      line("verified",
           !known ? "no known value for n = " + std::to_string(r.n)
                  : (match ? "yes, matches the known table"
                           : "NO: the known table says total " + std::to_string(known->total) +
                                 ", unique " + std::to_string(known->unique)));
    std::cout << o.text();
  }
  if (args.verify) {
    if (!known) {
      std::cerr << "nqcount: no known value for n = " << r.n << " (the table covers 1..27)\n";
      return 0;
    }
    if (!match) {
      std::cerr << "nqcount: verify FAILED for n = " << r.n << "\n";
      return 1;
    }
  }
  return 0;
}

// count --algo dp: the Rivin-Zabih dynamic programme, an independent cross-check (total only).
int run_count_dp(const CountArgs& args) {
  // The programme runs on --threads threads with no kernel, journal or task list: options for
  // the search are refused rather than silently ignored.
  static const char* const kSearchOnly[] = {
      "--kernel",     "--split-depth",  "--checkpoint", "--checkpoint-every", "--numa",
      "--task-stats", "--memory-limit", "--progress",   "--cross-check",      "--cross-check-seed"};
  for (const char* option : kSearchOnly)
    if (args.given.count(option)) {
      print_error(std::string(option) +
                  " does not apply to --algo dp (a cross-check with no kernel, checkpoint, task "
                  "stats or progress); drop it or use --algo search");
      return 2;
    }
  warn_if_oversubscribed(args.threads);
  auto out = count_by_closed_lines(args.n, args.threads);
  if (!out) {
    print_error(out.error().message);
    return 2;
  }
  const DpResult& r = *out;
  const auto known = known_value(r.n);
  const bool match = known && r.total == known->total;
  if (args.json) {
    nlohmann::json j = r;
    j["algo"] = "dp";
    j["verified"] = known ? nlohmann::json(match) : nlohmann::json(nullptr);
    std::cout << j.dump() << "\n";
  } else {
    TextLines o;
    auto line = [&](const char* k, const std::string& v) { o.line(k, v); };
    line("n", std::to_string(r.n));
    line("total", std::to_string(r.total));
    line("algo", "dp (Rivin-Zabih, closed-line sets; total only)");
    line("peak states", std::to_string(r.peak_states));
    line("merges", std::to_string(r.merges));
    line("threads", std::to_string(r.threads));
    o.seconds(r.seconds);
    if (args.verify)
      line("verified", !known  ? "no known value"
                       : match ? "yes, matches the known table"
                               : "NO: the known table says total " + std::to_string(known->total));
    std::cout << o.text();
  }
  if (args.verify && known && !match) {
    std::cerr << "nqcount: verify FAILED for n = " << r.n << "\n";
    return 1;
  }
  return 0;
}

}  // namespace nq::cli
