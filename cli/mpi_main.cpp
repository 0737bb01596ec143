// nqcount-mpi: `nqcount count` across MPI ranks (SPEC 6).
//
// Every rank makes the same plan (plans are deterministic for n, split depth and route).
// Rank 0 deals the plan's subproblem indices out dynamically, in batches that shrink as the
// work runs out (guided self-scheduling: a batch is the remaining work over four times the
// consumers), to the ranks that ask; each rank counts its batch with the TBB engine
// (count_selected) and sends back one (index, solutions, nodes) record per subproblem with its
// next request. Rank 0 also counts, on a thread of its own, while its main thread serves the
// requests (MPI_THREAD_FUNNELED: only the main thread calls MPI). Rank 0 sums the records in
// 128 bits, so the reduction is exact, keeps the checkpoint journal (the same file format as
// nqcount: either program can resume the other's journal) and prints the result once.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/commands.hpp"
#include "cli/count_run.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "count/cost.hpp"
#include "count/count.hpp"
#include "count/memory.hpp"

namespace nq::cli {
namespace {

constexpr int kTagRequest = 1;  // worker -> 0: [stopping, (index, solutions, nodes)...]
constexpr int kTagWork = 2;     // 0 -> worker: [index...]; empty: no more work

std::vector<std::uint64_t> flatten(bool stopping, const std::vector<FinishedSubproblem>& done) {
  std::vector<std::uint64_t> out{stopping ? 1u : 0u};
  for (const FinishedSubproblem& f : done) {
    out.push_back(f.index);
    out.push_back(f.tally.solutions);
    out.push_back(f.tally.nodes);
  }
  return out;
}

std::vector<std::uint64_t> receive(int source, int tag, MPI_Status* status) {
  MPI_Probe(source, tag, MPI_COMM_WORLD, status);
  int count = 0;
  MPI_Get_count(status, MPI_UINT64_T, &count);
  std::vector<std::uint64_t> v(static_cast<std::size_t>(count));
  MPI_Recv(v.data(), count, MPI_UINT64_T, status->MPI_SOURCE, tag, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return v;
}

// Rank 0's book: what is left to hand out, and the exact sum of what came back.
class Dealer {
 public:
  Dealer(const Plan& plan, std::vector<std::uint64_t> todo, const std::vector<std::uint64_t>& costs,
         SubproblemJournal* journal, Monitor& progress, int consumers)
      : plan_(plan),
        todo_(std::move(todo)),
        costs_(costs),
        journal_(journal),
        progress_(progress),
        consumers_(static_cast<std::size_t>(consumers)),
        by_rank_(consumers_, 0) {}

  std::vector<std::uint64_t> take() {
    std::lock_guard lock(mu_);
    const std::size_t left = todo_.size() - next_;
    const std::size_t batch = std::min(left, std::max<std::size_t>(1, left / (4 * consumers_)));
    std::vector<std::uint64_t> out(todo_.begin() + static_cast<std::ptrdiff_t>(next_),
                                   todo_.begin() + static_cast<std::ptrdiff_t>(next_ + batch));
    next_ += batch;
    return out;
  }
  void stop_dealing() {
    std::lock_guard lock(mu_);
    next_ = todo_.size();
  }
  void deliver(int rank, const std::vector<FinishedSubproblem>& done) {
    if (done.empty()) return;
    if (journal_) journal_->record(done);
    std::uint64_t nodes = 0, cost = 0;
    std::lock_guard lock(mu_);
    for (const FinishedSubproblem& f : done) {
      sum_.weighted += static_cast<u128>(plan_.weight(f.index)) * f.tally.solutions;
      sum_.nodes += f.tally.nodes;
      nodes += f.tally.nodes;
      cost += costs_[f.index];
    }
    sum_.subproblems += done.size();
    by_rank_[static_cast<std::size_t>(rank)] += done.size();
    progress_.subproblems_done.fetch_add(done.size(), std::memory_order_relaxed);
    progress_.nodes_done.fetch_add(nodes, std::memory_order_relaxed);
    progress_.cost_done.fetch_add(cost, std::memory_order_relaxed);
  }
  Partial sum() {
    std::lock_guard lock(mu_);
    return sum_;
  }
  std::vector<std::uint64_t> by_rank() {
    std::lock_guard lock(mu_);
    return by_rank_;
  }

 private:
  const Plan& plan_;
  std::vector<std::uint64_t> todo_;
  const std::vector<std::uint64_t>& costs_;
  SubproblemJournal* journal_;
  Monitor& progress_;
  std::size_t consumers_;
  std::mutex mu_;
  std::size_t next_ = 0;
  Partial sum_;
  std::vector<std::uint64_t> by_rank_;  // subproblems each rank counted in this run
};

// Every rank's verdict on the arguments and the plan: 0, or the exit status of the worst.
int agree(int status) {
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

int run_worker(const CountConfig& base, const Plan& plan, Monitor& signal) {
  CollectingJournal collected;
  CountConfig config = base;
  config.journal = &collected;
  bool stopping = false;
  while (true) {
    const auto request = flatten(stopping, collected.take());
    MPI_Send(request.data(), static_cast<int>(request.size()), MPI_UINT64_T, 0, kTagRequest,
             MPI_COMM_WORLD);
    if (stopping) break;
    MPI_Status st;
    const auto batch = receive(0, kTagWork, &st);
    if (batch.empty()) break;
    const auto r = count_selected(config, plan, batch, &signal);
    stopping = !r.ok() || r->cancelled;  // what it finished still goes back to rank 0
  }
  return 0;
}

int run_root(const CountArgs& args, const CountConfig& base, const Plan& plan, int ranks,
             Monitor& signal, FileJournal* journal, const ResumePoint& resumed) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::uint64_t> costs = estimate_costs(plan);
  Monitor progress;  // fed by the dealer, so every rank's work shows
  std::uint64_t total_cost = 0, resumed_cost = 0;
  for (std::uint64_t c : costs) total_cost += c;
  resumed_cost = total_cost;
  for (std::uint64_t i : resumed.todo) resumed_cost -= costs[i];
  progress.cost_total = total_cost;
  progress.cost_resumed = resumed_cost;
  progress.cost_done = resumed_cost;
  progress.subproblems_total = plan.size();
  progress.subproblems_done = resumed.done.subproblems;

  Dealer dealer(plan, resumed.todo, costs, journal, progress, ranks);
  const bool show = !args.no_progress && (args.progress || stderr_is_terminal());
  ProgressLine line(progress, show);

  // The kernel this rank runs (an empty selection counts nothing).
  const auto probe = count_selected(base, plan, {});
  const std::string kernel_name = probe.ok() ? probe->kernel : base.kernel;
  std::thread local([&] {  // rank 0 counts too
    CollectingJournal collected;
    CountConfig config = base;
    config.journal = &collected;
    for (auto batch = dealer.take(); !batch.empty(); batch = dealer.take()) {
      const auto r = count_selected(config, plan, batch, &signal);
      dealer.deliver(0, collected.take());
      if (!r.ok() || r->cancelled) break;
    }
  });

  int active = ranks - 1;
  while (active > 0) {
    int ready = 0;
    MPI_Status st;
    // Poll instead of blocking in MPI_Recv: Open MPI's blocking receive spins a core, which
    // rank 0's own counting threads need.
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &ready, &st);
    if (!ready) {
      if (signal.cancel.load(std::memory_order_relaxed)) dealer.stop_dealing();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    const auto request = receive(st.MPI_SOURCE, kTagRequest, &st);
    std::vector<FinishedSubproblem> done;
    for (std::size_t i = 1; i + 2 < request.size(); i += 3)
      done.push_back({request[i], {request[i + 1], request[i + 2]}});
    dealer.deliver(st.MPI_SOURCE, done);
    if (request.at(0) != 0) {  // the worker stops (it was interrupted)
      --active;
      continue;
    }
    if (signal.cancel.load(std::memory_order_relaxed)) dealer.stop_dealing();
    const auto batch = dealer.take();
    MPI_Send(batch.data(), static_cast<int>(batch.size()), MPI_UINT64_T, st.MPI_SOURCE, kTagWork,
             MPI_COMM_WORLD);
    if (batch.empty()) --active;
  }
  local.join();

  int threads = resolve_threads(base.threads);
  int all_threads = 0;
  MPI_Reduce(&threads, &all_threads, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

  Partial sum = dealer.sum();
  sum.join(resumed.done);
  CountResult r;
  r.n = plan.n;
  r.threads = all_threads;
  r.kernel = kernel_name;
  r.nodes = sum.nodes;
  r.subproblems = sum.subproblems;
  r.subproblems_total = plan.size();
  r.subproblems_resumed = resumed.done.subproblems;
  r.classes = plan.classes;
  r.split_rows = plan.split_rows;
  r.memory_estimate = probe.ok() ? probe->memory_estimate : 0;  // this rank's (one rank's)
  r.cancelled = sum.subproblems < plan.size();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.cancelled) return report_interrupted(args, r, journal, "mpirun [the same mpirun options] ");
  auto orbits = finish_orbits(sum.weighted, plan.sym4, plan.sym2);
  if (!orbits) {
    print_error(orbits.error().message);
    return 2;
  }
  r.orbits = *orbits;
  if (journal)
    if (auto closed = journal->close(); !closed)
      print_warning(closed.error().message + " (the counts below are complete)");
  return report_count(args, r, RankShares{dealer.by_rank()});
}

int run(int argc, char** argv, int rank, int ranks) {
  Args all;
  CountArgs& args = all.count;
  CLI::App app{
      "nqcount-mpi: nqcount count across MPI ranks. Rank 0 deals subproblems to the "
      "ranks that ask, each rank counts with every thread it has, rank 0 prints.",
      "nqcount-mpi"};
  for (const auto& row : option_table(all))
    if (std::strcmp(row.command, "count") == 0) add_option_row(app, row);
  std::vector<std::string> words(argv + 1, argv + argc);
  if (!words.empty() && words.front() == "count") words.erase(words.begin());
  std::reverse(words.begin(), words.end());  // CLI11 takes a vector in reverse order
  int status = 0;
  try {
    app.parse(words);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      if (rank == 0) app.exit(e);
      return 0;
    }
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    if (rank == 0) print_error(what);
    return 2;
  }
  args.argv.assign(argv, argv + argc);
  if (const std::string bad = memory_limit_error(args); !bad.empty()) {
    if (rank == 0) print_error(bad);
    return 2;
  }
  const CountConfig config = count_config(args);
  if (config.n < 4) {  // nothing to share out: rank 0 counts alone
    return rank == 0 ? run_count(args) : 0;
  }

  auto plan = make_plan(config);
  if (!plan.ok()) status = 2;
  // Rank 0 opens the journal; the others wait for its verdict.
  std::unique_ptr<FileJournal> journal;
  ResumePoint resumed;
  std::string error = plan.ok() ? "" : plan.error().message;
  // Every rank holds the whole plan and may be dealt any of it: refused up front, as count().
  // Only the first rank that refuses says so (they usually all do, for the same reason).
  int refusing = INT_MAX, first_refusing = INT_MAX;
  if (plan.ok())
    if (auto refused = check_memory(estimate_memory(*plan, config, plan->size()).total(),
                                    config.memory_limit)) {
      status = 2;
      error = refused->message;
      refusing = rank;
    }
  MPI_Allreduce(&refusing, &first_refusing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (refusing != INT_MAX && rank != first_refusing) error.clear();
  if (rank == 0 && status == 0) {
    journal = open_checkpoint(args);
    if (journal) {
      auto done = journal->begin(run_identity(*plan));
      for (const std::string& w : journal->warnings()) print_warning(w);
      if (!done) {
        status = 2;
        error = done.error().message;
      } else {
        resumed = resume_point(*plan, *done);
      }
    } else {
      resumed = resume_point(*plan, {});
    }
  }
  if (!error.empty())
    print_error(rank == 0 ? error : "rank " + std::to_string(rank) + ": " + error);
  if (const int worst = agree(status); worst != 0) return worst;

  Monitor signal;
  SignalScope signals(signal);
  if (rank != 0) {
    run_worker(config, *plan, signal);
    int threads = resolve_threads(config.threads);
    MPI_Reduce(&threads, nullptr, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    return 0;
  }
  return run_root(args, config, *plan, ranks, signal, journal.get(), resumed);
}

}  // namespace
}  // namespace nq::cli

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int status = nq::cli::run(argc, argv, rank, ranks);
  MPI_Finalize();
  return status;
}
