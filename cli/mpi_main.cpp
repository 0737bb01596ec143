// nqcount-mpi: `nqcount count` across MPI ranks.
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
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "cli/commands.hpp"
#include "cli/count_run.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "count/cost.hpp"
#include "count/count.hpp"
#include "count/memory.hpp"
#include "count/orchestrate.hpp"

namespace nq::cli {
namespace {

// worker -> 0: [stopping, batch id, cross-checked, (index, solutions, nodes)...]: the results of
// the batch it was given (batch id 0: none yet), and how many of them it counted twice
// (--cross-check). stopping: 0 no, 1 interrupted, 2 a cross-check failed (the rank has said so).
constexpr int kTagRequest = 1;
constexpr int kTagWork = 2;  // 0 -> worker: [batch id, index...]; empty: no more work
// After a signal, how long rank 0 waits for every rank to hand back what it finished before it
// takes a silent rank for lost. When one rank dies, Open MPI's mpirun sends SIGTERM to the others
// and SIGKILL a second later (odls_base_sigkill_timeout): rank 0 must have saved and said its
// piece by then.
constexpr std::chrono::milliseconds kLostRankGrace{300};

constexpr std::uint64_t kStopInterrupted = 1;
constexpr std::uint64_t kStopCrossCheck = 2;
constexpr std::size_t kRequestHeader = 3;

std::vector<std::uint64_t> flatten(std::uint64_t stopping, std::uint64_t batch_id,
                                   std::uint64_t cross_checked,
                                   const std::vector<FinishedSubproblem>& done) {
  std::vector<std::uint64_t> out{stopping, batch_id, cross_checked};
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

// NQCOUNT_MPI_SYNTHETIC=1 (a measurement mode, scripts/mpi-throughput): the workers hand back
// every subproblem of a batch at once, uncounted, batches hold one subproblem, rank 0 does not
// count, and instead of a result it says how many batch results it handled per second.
bool synthetic() {
  static const bool on = [] {
    const char* v = std::getenv("NQCOUNT_MPI_SYNTHETIC");
    return v && std::string(v) == "1";
  }();
  return on;
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
    // Guided self-scheduling, capped so that no batch holds more than 1/(64 consumers) of the
    // plan: the batches out with the ranks are all a lost rank (or a killed job) costs again.
    const std::size_t cap = std::max<std::size_t>(1, plan_.size() / (64 * consumers_));
    const std::size_t batch =
        synthetic() ? std::min<std::size_t>(left, 1)
                    : std::min({left, cap, std::max<std::size_t>(1, left / (4 * consumers_))});
    std::vector<std::uint64_t> out(todo_.begin() + static_cast<std::ptrdiff_t>(next_),
                                   todo_.begin() + static_cast<std::ptrdiff_t>(next_ + batch));
    next_ += batch;
    for (std::uint64_t i : out) cost_out_ += costs_[i];
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
    cost_out_ -= cost;
    cost_in_ += cost;
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
  // Estimated cost of the subproblems dealt and not yet back, and of those back in this run.
  std::pair<std::uint64_t, std::uint64_t> cost_out_and_in() {
    std::lock_guard lock(mu_);
    return {cost_out_, cost_in_};
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
  std::uint64_t cost_out_ = 0, cost_in_ = 0;
  Partial sum_;
  std::vector<std::uint64_t> by_rank_;  // subproblems each rank counted in this run
};

// Every rank's verdict on the arguments and the plan: 0, or the exit status of the worst.
int agree(int status) {
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

int run_worker(const CountConfig& base, const Plan& plan, Monitor& signal, int rank) {
  CollectingJournal collected;
  CountConfig config = base;
  config.journal = &collected;
  std::uint64_t stopping = 0;
  std::uint64_t batch_id = 0, cross_checked = 0;
  while (true) {
    const auto request = flatten(stopping, batch_id, cross_checked, collected.take());
    cross_checked = 0;
    MPI_Send(request.data(), static_cast<int>(request.size()), MPI_UINT64_T, 0, kTagRequest,
             MPI_COMM_WORLD);
    if (stopping) break;
    MPI_Status st;
    auto batch = receive(0, kTagWork, &st);
    if (batch.empty()) break;
    batch_id = batch.front();
    batch.erase(batch.begin());
    if (synthetic()) {
      std::vector<FinishedSubproblem> zeros;
      for (std::uint64_t i : batch) zeros.push_back({i, {}});
      collected.record(zeros);
      continue;
    }
    const auto r = count_selected(config, plan, batch, &signal);
    if (r.ok()) cross_checked = r->cross_checked;
    if (r.ok() && !r->cross_check_failure.empty()) {
      print_error("rank " + std::to_string(rank) + ": " + r->cross_check_failure);
      stopping = kStopCrossCheck;
    } else if (!r.ok() || r->cancelled) {
      stopping = kStopInterrupted;  // what it finished still goes back to rank 0
    }
  }
  return stopping == kStopCrossCheck ? 1 : 0;
}

int run_root(const CountArgs& args, const CountConfig& base, const Plan& plan, int ranks,
             Monitor& signal, FileJournal* journal, const ResumePoint& resumed) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::uint64_t> costs = estimate_costs(plan);
  Monitor progress;  // fed by the dealer, so every rank's work shows
  start_monitor(progress, plan, costs, resumed);

  Dealer dealer(plan, resumed.todo, costs, journal, progress, ranks);
  const bool show = !args.no_progress && (args.progress || stderr_is_terminal());
  ProgressLine line(progress, show);

  // The kernel this rank runs (an empty selection counts nothing).
  const auto probe = count_selected(base, plan, {});
  const std::string kernel_name = probe.ok() ? probe->kernel : base.kernel;
  // --cross-check: the subproblems every rank counted twice, and whether one of them failed (the
  // rank that found it has said so; no more work is dealt, and the run ends with status 1).
  std::atomic<std::uint64_t> cross_checked{0};
  std::atomic<bool> check_failed{false};
  std::thread local([&] {  // rank 0 counts too
    if (synthetic()) return;
    CollectingJournal collected;
    CountConfig config = base;
    config.journal = &collected;
    for (auto batch = dealer.take(); !batch.empty(); batch = dealer.take()) {
      const auto r = count_selected(config, plan, batch, &signal);
      dealer.deliver(0, collected.take());
      if (r.ok()) cross_checked += r->cross_checked;
      if (r.ok() && !r->cross_check_failure.empty()) {
        print_error(r->cross_check_failure);
        check_failed = true;
        dealer.stop_dealing();
        break;
      }
      if (!r.ok() || r->cancelled) break;
    }
  });

  const auto dealing = std::chrono::steady_clock::now();
  std::uint64_t handled = 0;  // requests that brought results back
  struct Outstanding {        // the batch a rank holds
    std::uint64_t id = 0;
    std::vector<std::uint64_t> indices;  // ascending
  };
  std::vector<Outstanding> outstanding(static_cast<std::size_t>(ranks));
  std::uint64_t batch_ids = 0;
  int active = ranks - 1;
  std::optional<std::chrono::steady_clock::time_point> cancelled_at;
  bool lost = false;
  while (active > 0) {
    int ready = 0;
    MPI_Status st;
    // Poll instead of blocking in MPI_Recv: Open MPI's blocking receive spins a core, which
    // rank 0's own counting threads need.
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &ready, &st);
    if (!ready) {
      if (signal.cancel.load(std::memory_order_relaxed)) {
        dealer.stop_dealing();
        const auto now = std::chrono::steady_clock::now();
        if (!cancelled_at) {
          cancelled_at = now;
          if (journal) (void)journal->flush();  // what came back is safe before anything else
        } else if (now - *cancelled_at > kLostRankGrace) {
          lost = true;  // a rank that does not answer is gone (mpirun stops the rest)
          break;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    const auto request = receive(st.MPI_SOURCE, kTagRequest, &st);
    std::vector<FinishedSubproblem> done;
    for (std::size_t i = kRequestHeader; i + 2 < request.size(); i += 3)
      done.push_back({request[i], {request[i + 1], request[i + 2]}});
    // The results must be of the batch this rank holds, and of nothing else in it.
    Outstanding& held = outstanding[static_cast<std::size_t>(st.MPI_SOURCE)];
    const bool matches =
        request.size() >= kRequestHeader && (request.size() - kRequestHeader) % 3 == 0 &&
        request[1] == held.id &&
        std::all_of(done.begin(), done.end(), [&](const FinishedSubproblem& f) {
          return std::binary_search(held.indices.begin(), held.indices.end(), f.index);
        });
    if (!matches) {
      print_error("internal error: rank " + std::to_string(st.MPI_SOURCE) +
                  " returned results that are not of its batch " + std::to_string(held.id) +
                  "; nothing of it is journaled");
      if (journal) (void)journal->close();
      MPI_Abort(MPI_COMM_WORLD, 1);
      return 1;
    }
    dealer.deliver(st.MPI_SOURCE, done);
    handled += !done.empty();
    cross_checked += request[2];
    if (request[0] == kStopCrossCheck) {
      check_failed = true;
      dealer.stop_dealing();
    }
    if (request[0] != 0) {  // the worker stops (it was interrupted, or a cross-check failed)
      --active;
      continue;
    }
    if (signal.cancel.load(std::memory_order_relaxed) || check_failed) dealer.stop_dealing();
    std::vector<std::uint64_t> batch = dealer.take();
    held.indices = batch;
    std::sort(held.indices.begin(), held.indices.end());
    held.id = batch.empty() ? 0 : ++batch_ids;
    if (!batch.empty()) batch.insert(batch.begin(), held.id);
    MPI_Send(batch.data(), static_cast<int>(batch.size()), MPI_UINT64_T, st.MPI_SOURCE, kTagWork,
             MPI_COMM_WORLD);
    if (batch.empty()) --active;
  }
  local.join();
  if (lost) {
    // Open MPI cannot go on after losing a rank (that needs the ULFM extensions): say so, save
    // what came back, and end the job; the journal resumes it.
    std::cerr << "nqcount: error: " << active
              << " rank(s) stopped answering after the signal (a rank was lost or killed); MPI "
                 "cannot continue a job that lost a rank (no ULFM fault tolerance), so the job "
                 "ends here\n";
    const auto [out, in] = dealer.cost_out_and_in();
    std::cerr << "nqcount: work to be redone: at most "
              << (in ? 100.0 * static_cast<double>(out) / static_cast<double>(in) : 0.0)
              << "% of what this run finished (estimated cost of the batches that did not come "
                 "back); the journal holds the rest\n";
    CountResult r;
    r.n = plan.n;
    (void)finish_count(plan, dealer.sum(), resumed, r);
    const int status = report_interrupted(args, r, journal, "mpirun [the same mpirun options] ");
    MPI_Abort(MPI_COMM_WORLD, status);
    return status;
  }

  int threads = resolve_threads(base.threads);
  int all_threads = 0;
  MPI_Reduce(&threads, &all_threads, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (synthetic()) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - dealing).count();
    std::cout << "{\"ranks\":" << ranks << ",\"batch_results\":" << handled << ",\"seconds\":" << s
              << ",\"batch_results_per_second\":" << static_cast<double>(handled) / s << "}\n";
    return 0;
  }

  if (check_failed) {  // the failing rank has said which subproblem; what came back is kept
    if (journal) (void)journal->close();
    return 1;
  }
  CountResult r;
  r.n = plan.n;
  r.threads = all_threads;
  r.cross_checked = cross_checked;
  r.kernel = kernel_name;
  r.isa = probe.ok() ? probe->isa : "";
  r.memory_estimate = probe.ok() ? probe->memory_estimate : 0;  // this rank's (one rank's)
  const auto finished = finish_count(plan, dealer.sum(), resumed, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.cancelled) return report_interrupted(args, r, journal, "mpirun [the same mpirun options] ");
  if (!finished) {
    print_error(finished.error().message);
    return 2;
  }
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
  const std::vector<OptionRow> rows = option_table(all);
  for (const auto& row : rows)
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
  args.given = given_options(app, rows, "count");
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
    const double fraction =
        config.cross_check < 0 ? default_cross_check(config.n) : config.cross_check;
    auto start =
        resume_run(*plan, journal.get(), cross_check_tag(fraction, config.cross_check_seed));
    if (journal)
      for (const std::string& w : journal->warnings()) print_warning(w);
    if (!start) {
      status = 2;
      error = start.error().message;
    } else {
      resumed = std::move(*start);
    }
  }
  if (!error.empty())
    print_error(rank == 0 ? error : "rank " + std::to_string(rank) + ": " + error);
  if (const int worst = agree(status); worst != 0) return worst;

  Monitor signal;
  SignalScope signals(signal);
  if (rank != 0) {
    const int worker_status = run_worker(config, *plan, signal, rank);
    int threads = resolve_threads(config.threads);
    MPI_Reduce(&threads, nullptr, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    return worker_status;
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
