// nqcount-mpi: `nqcount count` across MPI ranks.
//
// Every rank makes the same plan (plans are deterministic for n, split depth and route).
// Rank 0 deals the plan's subproblem indices out dynamically, largest estimated cost first, in
// batches that shrink as the work runs out (guided self-scheduling over every rank's threads: a
// batch is at least one task for each thread of the rank that asks; schedule.hpp has the rule),
// to the ranks that ask; each rank counts its batch with the TBB engine
// (count_selected) and sends back one (index, solutions, nodes) record per subproblem with its
// next request. Rank 0 also counts, on a thread of its own, while its main thread serves the
// requests (MPI_THREAD_FUNNELED: only the main thread calls MPI). Rank 0 sums the records in
// 128 bits, so the reduction is exact, keeps the checkpoint journal (the same file format as
// nqcount: either program can resume the other's journal) and prints the result once.
//
// --cross-check: the subproblems the fraction selects are counted a second time, with the
// independent kernel, on another rank than the one that counted them first where there is one
// (rank 0 deals them as check batches); a selected subproblem goes into the journal and the sums
// only once both counts agree, so a resumed run counts an unchecked one again.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>
#include <vector>

#include "cli/commands/commands.hpp"
#include "cli/commands/count_run.hpp"
#include "cli/io/output.hpp"
#include "cli/io/progress.hpp"
#include "engine/count/count.hpp"
#include "engine/count/dealer.hpp"
#include "engine/count/memory.hpp"
#include "engine/count/orchestrate.hpp"
#include "engine/count/schedule.hpp"

namespace nq::cli {
namespace {

// worker -> 0: [flag, batch id, signal, (index, solutions, nodes)...]: the results of a batch it
// was given (batch id 0: none), and what it wants: kWantMore (rank 0 answers with a batch, empty
// when none is left), kResultsOnly (it was told there is no more; no answer), kStopInterrupted
// (it stops: the signal it received; no answer), kStopFailed (it stops: its count failed, and the
// error's text went to rank 0 just before, tagged kTagError; no answer). A rank holds up to
// kDealerBatchesHeld batches (schedule.hpp): it asks for the next one as soon as one is done,
// while the others keep its threads busy.
constexpr std::uint64_t kWantMore = 0, kStopInterrupted = 1, kResultsOnly = 2, kStopFailed = 3;
constexpr int kTagRequest = 1, kTagError = 3;
// 0 -> worker: [batch id, kind, index...]; empty: no more work; [kRetry]: nothing yet, ask again
// once another batch is done (cross-checks may still come, from counts out with the ranks; a
// rank that holds no batch is not answered until there is work or none can come). kind: kCount,
// or kCheck (count them with the cross-check's kernel).
constexpr int kTagWork = 2;
constexpr std::uint64_t kCount = 0, kCheck = 1, kRetry = 2;
// After a signal, how long rank 0 waits for every rank to hand back what it finished before it
// takes a silent rank for lost. When one rank dies, Open MPI's mpirun sends SIGTERM to the others
// and SIGKILL a second later (odls_base_sigkill_timeout): rank 0 must have saved and said its
// piece by then.
constexpr std::chrono::milliseconds kLostRankGrace{300};

constexpr std::size_t kRequestHeader = 3;

std::vector<std::uint64_t> flatten(std::uint64_t flag, std::uint64_t batch_id,
                                   const std::vector<FinishedSubproblem>& done) {
  std::vector<std::uint64_t> out{flag, batch_id,
                                 static_cast<std::uint64_t>(SignalScope::received())};
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
// every subproblem of a batch at once, uncounted, batches hold one subproblem (the dealer's
// single_subproblems), rank 0 does not count, and instead of a result it says how many batch
// results it handled per second.
bool synthetic() {
  static const bool on = [] {
    const char* v = std::getenv("NQCOUNT_MPI_SYNTHETIC");
    return v && std::string(v) == "1";
  }();
  return on;
}

// A message of characters from `source` (an error's text).
std::string receive_text(int source, int tag, MPI_Status* status) {
  MPI_Probe(source, tag, MPI_COMM_WORLD, status);
  int count = 0;
  MPI_Get_count(status, MPI_CHAR, &count);
  std::string text(static_cast<std::size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return text;
}

// Every rank's verdict on the arguments and the plan: 0, or the exit status of the worst.
int agree(int status) {
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

// Every rank's error (empty: none) reaches rank 0, which prints one line: its own, else the
// first other rank's, named. Ranks printing their own would interleave their lines into one
// garbled line (every rank usually refuses for the same reason).
void say_first_error(const std::string& error, int rank, int ranks) {
  const int length = static_cast<int>(error.size());
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size(), 0);
  std::string all;
  if (rank == 0) {
    for (std::size_t r = 1; r < lengths.size(); ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    all.resize(lengths.empty() ? 0 : static_cast<std::size_t>(offsets.back() + lengths.back()));
  }
  MPI_Gatherv(error.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  if (rank != 0) return;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    if (lengths[r] > 0) {
      const std::string what =
          all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r]));
      print_error(r == 0 ? what : "rank " + std::to_string(r) + ": " + what);
      return;
    }
}

// The threads that count a rank's batches: one for each batch it may hold, each for the whole
// run, since the thread that asks for a count takes part in it (a fresh thread a batch would
// count with a cold cache, its scratch made anew each time). start(s) has slot s's thread call
// count(s); wait_any() returns a slot whose count has returned.
class BatchThreads {
 public:
  BatchThreads(std::size_t slots, std::function<void(std::size_t)> count)
      : count_(std::move(count)), go_(slots, false) {
    for (std::size_t s = 0; s < slots; ++s) threads_.emplace_back([this, s] { serve(s); });
  }
  ~BatchThreads() {
    {
      std::lock_guard lock(mu_);
      quit_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  BatchThreads(const BatchThreads&) = delete;
  BatchThreads& operator=(const BatchThreads&) = delete;

  void start(std::size_t s) {
    {
      std::lock_guard lock(mu_);
      go_[s] = true;
    }
    wake_.notify_all();
  }
  std::size_t wait_any() {
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return !ready_.empty(); });
    const std::size_t s = ready_.back();
    ready_.pop_back();
    return s;
  }

 private:
  void serve(std::size_t s) {
    for (;;) {
      {
        std::unique_lock lock(mu_);
        wake_.wait(lock, [&] { return quit_ || go_[s]; });
        if (quit_) return;
        go_[s] = false;
      }
      count_(s);
      std::lock_guard lock(mu_);
      ready_.push_back(s);
      done_.notify_one();
    }
  }

  std::function<void(std::size_t)> count_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::vector<bool> go_;
  std::vector<std::size_t> ready_;
  bool quit_ = false;
  std::vector<std::thread> threads_;
};

// Counts what rank 0 deals until it deals nothing, kDealerBatchesHeld batches at a time, each
// counted on a thread of its own (they share the rank's threads as seats, ThreadSeats, so that
// the seats the end of one batch leaves free count the others), while this thread talks to rank
// 0 (MPI_THREAD_FUNNELED). `base` checks nothing itself (rank 0 deals the cross-checks) and holds
// the rank's seats; a check batch is counted with the cross-check's kernel.
int run_worker(const CountConfig& base, const Plan& plan, Monitor& signal) {
  const CountConfig& counting = base;
  CountConfig again = counting;
  again.recheck = true;
  struct Slot {  // a batch being counted
    std::uint64_t id = 0;
    std::vector<std::uint64_t> indices;
    bool check = false;
    std::vector<FinishedSubproblem> done;
    bool interrupted = false;
    std::string error;  // the count failed (interrupted is set too)
  };
  std::array<Slot, kDealerBatchesHeld> slots;
  std::string failure;  // why the first count that failed did
  BatchThreads counters(slots.size(), [&](std::size_t s) {
    Slot& me = slots[s];
    CollectingJournal collected;
    if (synthetic()) {
      std::vector<FinishedSubproblem> zeros;
      for (std::uint64_t i : me.indices) zeros.push_back({i, {}});
      collected.record(zeros);
    } else {
      CountConfig config = me.check ? again : counting;
      config.journal = &collected;
      const auto r = count_selected(config, plan, me.indices, &signal);
      me.interrupted = !r.ok() || r->cancelled;  // what it finished still goes back
      if (!r.ok()) me.error = r.error().message;
    }
    me.done = collected.take();
  });
  // Sends slot s's results (if any) with `flag`; with kWantMore, the answer: a batch (started on
  // the slot's thread), kRetry (nothing yet: the slot idles until another batch is done), or no
  // more work.
  enum class Answer { kStarted, kLater, kNone };
  auto ask = [&](std::size_t s, std::uint64_t flag) {
    Slot& slot = slots[s];
    if (flag == kStopFailed)
      MPI_Send(failure.data(), static_cast<int>(failure.size()), MPI_CHAR, 0, kTagError,
               MPI_COMM_WORLD);
    const auto request = flatten(flag, slot.id, slot.done);
    MPI_Send(request.data(), static_cast<int>(request.size()), MPI_UINT64_T, 0, kTagRequest,
             MPI_COMM_WORLD);
    slot.id = 0;
    slot.done.clear();
    if (flag != kWantMore) return Answer::kNone;
    MPI_Status st;
    auto batch = receive(0, kTagWork, &st);
    if (batch.size() == 1 && batch[0] == kRetry) return Answer::kLater;
    if (batch.size() < 2) return Answer::kNone;
    slot.id = batch[0];
    slot.check = batch[1] == kCheck;
    slot.indices.assign(batch.begin() + 2, batch.end());
    counters.start(s);
    return Answer::kStarted;
  };
  std::size_t running = 0;
  std::array<bool, kDealerBatchesHeld> idle{};  // told to ask again later
  bool dry = false, stopping = false;
  // Asks for work for slot s; keeps the books.
  auto want = [&](std::size_t s, std::uint64_t flag) {
    switch (ask(s, flag)) {
      case Answer::kStarted:
        ++running;
        idle[s] = false;
        break;
      case Answer::kLater:
        idle[s] = true;
        break;
      case Answer::kNone:
        idle[s] = false;
        dry = dry || flag == kWantMore;
        break;
    }
  };
  for (std::size_t s = 0; s < slots.size() && !dry; ++s) want(s, kWantMore);
  while (running > 0) {
    const std::size_t s = counters.wait_any();
    --running;
    if (failure.empty()) failure = slots[s].error;
    const bool stops = !stopping && slots[s].interrupted;  // tells rank 0 once, why
    stopping = stopping || slots[s].interrupted;
    const auto before = idle;  // the slots that idled before this batch was done
    want(s, stops      ? (failure.empty() ? kStopInterrupted : kStopFailed)
            : stopping ? kResultsOnly
            : dry      ? kResultsOnly
                       : kWantMore);
    for (std::size_t t = 0; t < slots.size(); ++t)
      if (before[t] && t != s && !dry && !stopping) want(t, kWantMore);
  }
  return 0;
}

// `threads`: every rank's threads, rank 0's first.
int run_root(const CountArgs& args, const CountConfig& base, const Plan& plan,
             const std::vector<int>& threads, Monitor& signal, FileJournal* journal,
             const ResumePoint& resumed) {
  const int ranks = static_cast<int>(threads.size());
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::uint64_t> costs = estimate_costs(plan, &signal.cancel);
  Monitor progress;  // fed by the dealer, so every rank's work shows
  start_monitor(progress, plan, costs, resumed);

  Dealer dealer(plan, resumed.todo, costs, journal, progress, threads, cross_check_fraction(base),
                base.cross_check_seed, synthetic());
  const bool show = !args.no_progress && (args.progress || stderr_is_terminal());
  ProgressLine line(progress, show);

  // The kernel this rank runs (an empty selection counts nothing), and the cross-check's.
  const auto probe = count_selected(base, plan, {});
  const std::string kernel_name = probe.ok() ? probe->kernel : base.kernel;
  CountConfig counting = base;  // rank 0 deals the cross-checks: no rank checks its own work
  counting.cross_check = 0;
  CountConfig again = counting;
  again.recheck = true;
  std::atomic<bool> check_failed{false};
  auto stop_if_failed = [&] {
    if (!dealer.failure().empty() && !check_failed.exchange(true)) dealer.stop_dealing();
  };
  // Why the run stopped short, other than rank 0's own signal: the first rank whose count failed
  // ("rank 2: ...": the run exits 2), or the signal a worker received (the run exits 128 + it).
  std::mutex stopped_mu;
  std::string failed_rank;
  int worker_signal = 0;
  auto rank_failed = [&](int k, const std::string& why) {
    std::lock_guard lock(stopped_mu);
    if (failed_rank.empty()) failed_rank = "rank " + std::to_string(k) + ": " + why;
    dealer.stop_dealing();
  };
  // Rank 0 counts too, kDealerBatchesHeld batches at a time, as the workers do.
  auto count_locally = [&] {
    if (synthetic()) return;
    CollectingJournal collected;
    CountConfig count = counting, check = again;
    count.journal = check.journal = &collected;
    for (DealtBatch batch = dealer.take(0); !batch.indices.empty(); batch = dealer.take(0)) {
      const auto r = count_selected(batch.check ? check : count, plan, batch.indices, &signal);
      dealer.deliver(0, collected.take(), batch.check);
      if (!r.ok()) rank_failed(0, r.error().message);
      stop_if_failed();
      if (!r.ok() || r->cancelled || check_failed) break;
    }
  };
  std::vector<std::thread> local;
  for (std::size_t s = 0; s < kDealerBatchesHeld; ++s) local.emplace_back(count_locally);

  const auto dealing = std::chrono::steady_clock::now();
  std::uint64_t handled = 0;  // requests that brought results back
  struct Outstanding {        // a batch a rank holds
    std::uint64_t id = 0;
    std::vector<std::uint64_t> indices;  // ascending
    bool check = false;
  };
  // Per rank: the batches it holds; whether it waits for an answer that has no work in it yet
  // (cross-checks may still come: Dealer::may_deal_more); whether it was told there is no more
  // (dry) or stopped. A rank is done once it is dry or stopped and holds nothing.
  struct Worker {
    std::vector<Outstanding> held;
    bool waiting = false, dry = false, stopped = false, done = false;
  };
  std::vector<Worker> workers(static_cast<std::size_t>(ranks));
  std::uint64_t batch_ids = 0;
  int active = ranks - 1;
  // A rank that was told there is no more work, or stopped, and holds nothing, is done.
  auto retire = [&](Worker& worker) {
    if (!worker.done && (worker.dry || worker.stopped) && worker.held.empty()) {
      worker.done = true;
      --active;
    }
  };
  // Answers rank k's request for work: a batch, nothing yet (it waits), or no more.
  auto answer = [&](int k) {
    Worker& worker = workers[static_cast<std::size_t>(k)];
    if (signal.cancel.load(std::memory_order_relaxed) || check_failed) dealer.stop_dealing();
    const DealtBatch next = dealer.take(k);
    std::vector<std::uint64_t> message;
    if (next.indices.empty() && dealer.may_deal_more()) {
      // A rank that holds a batch asks again when that one is done (it cannot listen before);
      // one that holds none waits here for the answer.
      worker.waiting = worker.held.empty();
      if (worker.waiting) return;
      message = {kRetry};
      MPI_Send(message.data(), 1, MPI_UINT64_T, k, kTagWork, MPI_COMM_WORLD);
      return;
    }
    worker.waiting = false;
    if (next.indices.empty()) {
      worker.dry = true;
    } else {
      Outstanding o{++batch_ids, next.indices, next.check};
      std::sort(o.indices.begin(), o.indices.end());
      message = {o.id, next.check ? kCheck : kCount};
      message.insert(message.end(), next.indices.begin(), next.indices.end());
      worker.held.push_back(std::move(o));
    }
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_UINT64_T, k, kTagWork,
             MPI_COMM_WORLD);
    retire(worker);
  };
  auto answer_waiting = [&] {
    for (int k = 1; k < ranks; ++k)
      if (workers[static_cast<std::size_t>(k)].waiting) answer(k);
  };
  std::optional<std::chrono::steady_clock::time_point> cancelled_at;
  bool lost = false;
  while (active > 0) {
    int ready = 0;
    MPI_Status st;
    // Poll instead of blocking in MPI_Recv: Open MPI's blocking receive spins a core, which
    // rank 0's own counting threads need.
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &ready, &st);
    if (!ready) {
      answer_waiting();  // rank 0's own counts may have brought cross-checks
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
    // The results must be of a batch this rank holds, and of nothing else in it.
    Worker& worker = workers[static_cast<std::size_t>(st.MPI_SOURCE)];
    const bool well_formed = request.size() >= kRequestHeader &&
                             (request.size() - kRequestHeader) % 3 == 0 &&
                             request[0] <= kStopFailed;
    const auto held = std::find_if(worker.held.begin(), worker.held.end(),
                                   [&](const Outstanding& o) { return o.id == request[1]; });
    const bool matches =
        well_formed && (request[1] == 0 ? done.empty() : held != worker.held.end()) &&
        std::all_of(done.begin(), done.end(), [&](const FinishedSubproblem& f) {
          return std::binary_search(held->indices.begin(), held->indices.end(), f.index);
        });
    if (!matches) {
      print_error("internal error: rank " + std::to_string(st.MPI_SOURCE) +
                  " returned results that are not of a batch it holds (batch " +
                  std::to_string(well_formed ? request[1] : 0) + "); nothing of it is journaled");
      if (journal) (void)journal->close();
      MPI_Abort(MPI_COMM_WORLD, 1);
      return 1;
    }
    if (held != worker.held.end()) {
      dealer.deliver(st.MPI_SOURCE, done, held->check);
      worker.held.erase(held);
    }
    stop_if_failed();
    handled += !done.empty();
    if (request[0] == kStopInterrupted || request[0] == kStopFailed) {
      worker.stopped = true;
      dealer.stop_dealing();  // a rank that stops (a signal, an error) ends the run: resumable
      if (request[0] == kStopFailed) {
        MPI_Status error_status;
        const auto text = receive_text(st.MPI_SOURCE, kTagError, &error_status);
        rank_failed(st.MPI_SOURCE, text);
      } else if (worker_signal == 0) {
        worker_signal = static_cast<int>(request[2]);
      }
    }
    retire(worker);  // its last results (kResultsOnly, kStopInterrupted) may be in
    if (request[0] == kWantMore) answer(st.MPI_SOURCE);
    answer_waiting();  // these results may have brought cross-checks, or ended them
  }
  if (lost) {
    // Open MPI cannot go on after losing a rank (that needs the ULFM extensions): save what came
    // back and say so before waiting for rank 0's own threads (mpirun's SIGKILL follows its
    // SIGTERM by a second, sooner than a long subproblem may end), then end the job; the journal
    // resumes it.
    if (journal) (void)journal->flush();
    std::cerr << "nqcount: error: " << active
              << " rank(s) stopped answering after the signal (a rank was lost or killed); MPI "
                 "cannot continue a job that lost a rank (no ULFM fault tolerance), so the job "
                 "ends here\n";
  }
  for (std::thread& t : local) t.join();
  if (lost) {
    const auto [out, in] = dealer.cost_out_and_in();
    std::cerr << "nqcount: work to be redone: at most "
              << (in ? 100.0 * static_cast<double>(out) / static_cast<double>(in) : 0.0)
              << "% of what this run finished (estimated cost of the batches that did not come "
                 "back); the journal holds the rest\n";
    CountResult r;
    r.n = plan.n;
    (void)finish_count(plan, dealer.sum(), resumed, r);
    const int status =
        report_interrupted(args, r, journal, "mpirun [the same mpirun options] ", worker_signal);
    MPI_Abort(MPI_COMM_WORLD, status);
    return status;
  }

  const int all_threads = std::accumulate(threads.begin(), threads.end(), 0);
  if (synthetic()) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - dealing).count();
    std::cout << "{\"ranks\":" << ranks << ",\"batch_results\":" << handled << ",\"seconds\":" << s
              << ",\"batch_results_per_second\":" << static_cast<double>(handled) / s << "}\n";
    return 0;
  }

  if (check_failed) {  // what was checked, or needs no check, is kept in the journal
    print_error(dealer.failure());
    if (journal) (void)journal->close();
    return 1;
  }
  if (!failed_rank.empty() && !SignalScope::received()) {  // what came back stays in the journal
    print_error(failed_rank);
    if (journal) (void)journal->close();
    return 2;
  }
  CountResult r;
  r.n = plan.n;
  r.threads = all_threads;
  r.cross_checked = dealer.checked();
  r.kernel = kernel_name;
  r.isa = probe.ok() ? probe->isa : "";
  r.memory_estimate = probe.ok() ? probe->memory_estimate : 0;  // this rank's (one rank's)
  const auto finished = finish_count(plan, dealer.sum(), resumed, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.cancelled)
    return report_interrupted(args, r, journal, "mpirun [the same mpirun options] ", worker_signal);
  if (!finished) {
    print_error(finished.error().message);
    return 2;
  }
  std::vector<std::string> failed_writes;
  if (journal)
    if (auto closed = journal->close(); !closed)
      failed_writes.push_back(closed.error().message + " (the count is complete)");
  return report_with_failed_writes(
      args, r, RankShares{dealer.by_rank(), dealer.checked_elsewhere()}, failed_writes);
}

// One of what shapes a rank's count: its name, the value compared, and how it reads in the
// message when ranks differ ("--n 17", "NQ_KERNEL=reference").
struct IdentityField {
  std::string name, value, shown;
};

// Everything that shapes the plan, the kernel or the counts of a rank's run: every rank must
// agree with rank 0 on each, or a rank of another run would contribute its work to this one's
// sums (another n, plan, route, cut or cross-check). The threads, NUMA placement, memory limit
// and what only rank 0 does (output, checkpoint, progress) may differ.
std::vector<IdentityField> run_fields(const CountArgs& args, const CountConfig& config) {
  const bool from_env = args.kernel.empty() && config.kernel != "auto";
  auto number = [](const char* flag, long long v, long long unset) {
    const std::string value = std::to_string(v);
    return IdentityField{flag, value,
                         v == unset ? std::string(flag) + " not given" : flag + (" " + value)};
  };
  char fraction[32];
  std::snprintf(fraction, sizeof fraction, "%.17g", cross_check_fraction(config));
  return {
      {"version", NQ_VERSION, std::string("nqcount-mpi ") + NQ_VERSION},
      number("--n", config.n, -1),
      {"kernel", config.kernel,
       from_env              ? "NQ_KERNEL=" + config.kernel
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

std::string serialize(const std::vector<IdentityField>& fields) {
  std::string out;
  for (const IdentityField& f : fields)
    out += f.name + '\x1f' + f.value + '\x1f' + f.shown + '\x1e';
  return out;
}

std::vector<IdentityField> deserialize(const std::string& text) {
  std::vector<IdentityField> fields;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t a = text.find('\x1f', at), b = text.find('\x1f', a + 1),
                      end = text.find('\x1e', b + 1);
    if (a == std::string::npos || b == std::string::npos || end == std::string::npos) break;
    fields.push_back(
        {text.substr(at, a - at), text.substr(a + 1, b - a - 1), text.substr(b + 1, end - b - 1)});
    at = end + 1;
  }
  return fields;
}

// Rank 0's `text`, on every rank.
std::string broadcast(std::string text, int rank) {
  std::uint64_t size = text.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) text.assign(size, '\0');
  MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
  return text;
}

// How this rank's run differs from rank 0's: the first field that differs, in one line; empty
// where they agree.
std::string differs_from_root(const std::vector<IdentityField>& mine, int rank) {
  const std::vector<IdentityField> root = deserialize(broadcast(serialize(mine), rank));
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (i < root.size() && root[i].name == mine[i].name && root[i].value == mine[i].value) continue;
    const std::string theirs = i < root.size() ? root[i].shown : "another version";
    return "started with " + mine[i].shown + ", rank 0 with " + theirs +
           ": every rank of a job must run the same count";
  }
  return "";
}

// The ranks' verdict on their command lines, before anything else: every rank reads its own and
// none leaves before the others know (a rank that left alone would hang the others in their first
// collective call). Nothing: every rank counts. Else the status every rank exits with, after
// rank 0 said why (a rank's error, or ranks started with different commands) or printed the help
// or the version all of them asked for.
std::optional<int> agree_on_command_line(int argc, char** argv, int rank, int ranks, Args& all) {
  MpiCommandLine line = read_mpi_command_line(argc, argv, NQ_VERSION, all);
  if (line.outcome == MpiCommandLine::kCount)
    if (std::string bad = count_args_error(all.count, true); !bad.empty())
      line = {MpiCommandLine::kError, std::move(bad)};
  int outcome = line.outcome;
  MPI_Bcast(&outcome, 1, MPI_INT, 0, MPI_COMM_WORLD);  // rank 0's
  const int worst = agree(line.outcome == MpiCommandLine::kError ? 2 : 0);
  std::string error;
  if (line.outcome == MpiCommandLine::kError)
    error = line.text;
  else if (worst == 0 && line.outcome != outcome)
    error = std::string(line.outcome == MpiCommandLine::kPrint ? "asked for --help or --version"
                                                               : "asked to count") +
            ", rank 0 " +
            (outcome == MpiCommandLine::kPrint ? "for --help or --version" : "to count") +
            ": every rank must be started with the same command line";
  if (agree(error.empty() ? 0 : 2) != 0) {
    say_first_error(error, rank, ranks);
    return 2;
  }
  if (line.outcome == MpiCommandLine::kCount) return std::nullopt;
  if (rank == 0) std::fputs(line.text.c_str(), stdout);
  return 0;
}

int run(int argc, char** argv, int rank, int ranks) {
  Args all;
  CountArgs& args = all.count;
  if (const auto done = agree_on_command_line(argc, argv, rank, ranks, all)) return *done;
  CountConfig config = count_config(args);
  {
    const std::string differs = differs_from_root(run_fields(args, config), rank);
    if (agree(differs.empty() ? 0 : 2) != 0) {
      say_first_error(differs, rank, ranks);
      return 2;
    }
  }
  if (config.n < 4) {  // nothing to share out: rank 0 counts alone
    return rank == 0 ? run_count(args, ranks) : 0;
  }
  // Every rank's threads (its --threads, or its machine's hardware threads): rank 0's batches
  // are cut by them, and the plan's granularity follows them all (cluster_plan_tasks), the same on
  // every rank.
  const int threads_here = resolve_threads(config.threads);
  std::uint64_t all_threads = 0;
  const auto threads_mine = static_cast<std::uint64_t>(threads_here);
  MPI_Allreduce(&threads_mine, &all_threads, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  // A journal to resume keeps the cut it was made with (on another number of ranks, or by
  // nqcount on one machine): rank 0 reads it and tells the others.
  std::uint64_t journal_tasks =
      rank == 0 && !args.checkpoint.empty() ? rowsplit_journal_tasks(args.checkpoint, config.n) : 0;
  MPI_Bcast(&journal_tasks, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (const std::string bad = journal_cut_error(args, journal_tasks); !bad.empty()) {
    if (rank == 0) print_error(bad);  // every rank knows the same: each returns 2
    return 2;
  }
  config.min_tasks = journal_tasks > 0 ? journal_tasks
                     : args.tasks > 0  ? static_cast<std::uint64_t>(args.tasks)
                                       : cluster_plan_tasks(config.n, all_threads);

  // The rank's threads, shared as seats by the batches it holds at once (so the memory estimate
  // counts the threads that ask for them too).
  ThreadSeats seats(threads_here);
  config.seats = &seats;

  // Signals are seen from here on: planning a large board takes minutes.
  Monitor signal;
  SignalScope signals(signal);
  // Every rank holds the whole plan and may be dealt any of it: refused up front, as count(),
  // as soon as the plan's size is known and again once it is made.
  std::optional<Error> too_large;
  PlanControl control;
  control.cancel = &signal.cancel;
  control.admit = [&](PlanKind kind, std::uint64_t tasks) {
    too_large =
        check_memory(estimate_memory(config.n, kind, tasks, config).total(), config.memory_limit);
    return !too_large;
  };
  auto plan = make_plan(config, control);
  int status = 0;
  if (plan.ok() && too_large) plan = *too_large;
  if (plan.ok() && plan->stopped) plan = Error{""};  // a signal: the status says it
  if (!plan.ok()) status = SignalScope::received() ? SignalScope::exit_status() : 2;
  // Rank 0 opens the journal; the others wait for its verdict.
  std::unique_ptr<FileJournal> journal;
  ResumePoint resumed;
  std::string error = plan.ok() ? "" : plan.error().message;
  if (plan.ok())
    if (auto refused = check_memory(estimate_memory(*plan, config, plan->size()).total(),
                                    config.memory_limit)) {
      status = 2;
      error = refused->message;
    }
  // The plans must be alike too (a rank whose CPU chose another route for "auto", say).
  {
    const std::uint32_t tag =
        cross_check_tag(cross_check_fraction(config), config.cross_check_seed);
    const std::string mine = plan.ok() ? describe(run_identity(*plan, tag)) + ", cut for " +
                                             std::to_string(config.min_tasks) + " tasks"
                                       : "";
    const std::string root = broadcast(mine, rank);
    if (status == 0 && mine != root) {
      status = 2;
      error = "made another plan than rank 0 (" + mine + "; rank 0: " + root +
              "): every rank must run the same count on the same kind of machine";
    }
  }
  if (rank == 0 && status == 0) {
    journal = open_checkpoint(args);
    auto start = resume_run(*plan, journal.get(),
                            cross_check_tag(cross_check_fraction(config), config.cross_check_seed));
    if (journal)
      for (const std::string& w : journal->warnings()) print_warning(w);
    if (!start) {
      status = 2;
      error = start.error().message;
    } else {
      resumed = std::move(*start);
    }
  }
  say_first_error(error, rank, ranks);
  if (const int worst = agree(status); worst != 0) {
    if (rank == 0 && worst > 128) std::cerr << "nqcount: interrupted before counting began\n";
    return worst;
  }

  std::vector<int> threads(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
  MPI_Gather(&threads_here, 1, MPI_INT, threads.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);

  if (rank != 0) {
    CountConfig counting = config;  // rank 0 deals the cross-checks
    counting.cross_check = 0;
    return run_worker(counting, *plan, signal);
  }
  return run_root(args, config, *plan, threads, signal, journal.get(), resumed);
}

}  // namespace
}  // namespace nq::cli

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  nq::cli::end_on_uncaught_exceptions();  // one rank's line; mpirun ends the others
  int status = 2;
  try {
    status = nq::cli::run(argc, argv, rank, ranks);
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
