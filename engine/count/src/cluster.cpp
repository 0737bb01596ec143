// The cluster count (cluster.hpp): the start every rank makes alike, the workers' loop and rank
// 0's, over the program's ClusterLink.
#include "engine/count/cluster.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>
#include <utility>

#include "base/threads.hpp"
#include "engine/count/count.hpp"
#include "engine/count/dealer.hpp"
#include "engine/count/journal.hpp"
#include "engine/count/memory.hpp"
#include "engine/count/orchestrate.hpp"
#include "engine/count/src/cost.hpp"

namespace nq {
namespace {

// A rank's request to rank 0: [flag, batch id, detail, text..., (index, solutions, nodes)...]:
// the results of a batch it was given (batch id 0: none), and what it wants: kWantMore (rank 0
// answers with a batch, empty when none is left), kResultsOnly (it was told there is no more; no
// answer), kStopInterrupted (it stops: `detail` is the signal it received; no answer),
// kStopFailed (it stops: its count failed; the error's text follows, `detail` bytes, as
// text_words writes it; no answer). A rank holds up to kDealerBatchesHeld batches: it asks for the
// next one as soon as one is done, while the others keep its threads busy.
constexpr std::uint64_t kWantMore = 0, kStopInterrupted = 1, kResultsOnly = 2, kStopFailed = 3;
constexpr std::size_t kRequestHeader = 3;
// Rank 0's answer: [batch id, kind, index...]; empty: no more work; [kRetry]: nothing yet, ask
// again once another batch is done (cross-checks may still come, from counts out with the ranks;
// a rank that holds no batch is not answered until there is work or none can come). kind:
// kCount, or kCheck (count them with the cross-check's kernel).
constexpr std::uint64_t kCount = 0, kCheck = 1, kRetry = 2;
// After a stop, how long rank 0 waits for every rank to hand back what it finished before it
// takes a silent rank for lost. When one rank dies, Open MPI's mpirun sends SIGTERM to the others
// and SIGKILL a second later (odls_base_sigkill_timeout): rank 0 must have saved and said its
// piece by then.
constexpr std::chrono::milliseconds kLostRankGrace{300};

// A parsed request.
struct Request {
  std::uint64_t flag = 0, batch = 0, detail = 0;
  std::string error;  // kStopFailed
  std::vector<FinishedSubproblem> done;
  bool well_formed = false;
};

std::vector<std::uint64_t> request_words(std::uint64_t flag, std::uint64_t batch,
                                         std::uint64_t signal, const std::string& error,
                                         const std::vector<FinishedSubproblem>& done) {
  std::vector<std::uint64_t> out{flag, batch, flag == kStopFailed ? error.size() : signal};
  if (flag == kStopFailed) {
    const auto text = text_words(error);
    out.insert(out.end(), text.begin(), text.end());
  }
  for (const FinishedSubproblem& f : done) {
    out.push_back(f.index);
    out.push_back(f.tally.solutions);
    out.push_back(f.tally.nodes);
  }
  return out;
}

Request parse_request(const std::vector<std::uint64_t>& words) {
  Request r;
  if (words.size() < kRequestHeader || words[0] > kStopFailed) return r;
  r.flag = words[0];
  r.batch = words[1];
  r.detail = words[2];
  std::size_t at = kRequestHeader;
  if (r.flag == kStopFailed) {  // text_words: its length, then its bytes
    const std::size_t text = 1 + (r.detail + 7) / 8;
    if (words.size() < at + text) return r;
    r.error = words_text(std::span(words).subspan(at, text));
    at += text;
  }
  if ((words.size() - at) % 3 != 0) return r;
  for (; at < words.size(); at += 3) r.done.push_back({words[at], {words[at + 1], words[at + 2]}});
  r.well_formed = true;
  return r;
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

// What a rank counts with: `count`, and `again` for check batches (the cross-check's kernel);
// neither checks anything itself (rank 0 deals the cross-checks).
struct Counting {
  CountConfig count, again;
  BatchCount batch;
  explicit Counting(const ClusterConfig& config)
      : count(config.count),
        batch(config.count_batch ? config.count_batch : BatchCount(&count_selected)) {
    count.cross_check = 0;
    count.checkpoint.clear();
    again = count;
    again.recheck = true;
  }
};

// A rank other than 0: counts what rank 0 deals until it deals nothing, kDealerBatchesHeld
// batches at a time (BatchThreads; they share the rank's threads as seats, CountConfig::seats,
// so that the seats the end of one batch leaves free count the others), while this thread
// talks to rank 0.
void run_worker(ClusterLink& link, const ClusterConfig& config, const Plan& plan, Monitor& signal) {
  const Counting counting(config);
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
    CountConfig c = me.check ? counting.again : counting.count;
    c.journal = &collected;
    const auto r = counting.batch(c, plan, me.indices, &signal);
    me.interrupted = !r.ok() || r->cancelled;  // what it finished still goes back
    if (!r.ok()) me.error = r.error().message;
    me.done = collected.take();
  });
  // Sends slot s's results (if any) with `flag`; with kWantMore, the answer: a batch (started on
  // the slot's thread), kRetry (nothing yet: the slot idles until another batch is done), or no
  // more work.
  enum class Answer { kStarted, kLater, kNone };
  auto ask = [&](std::size_t s, std::uint64_t flag) {
    Slot& slot = slots[s];
    const int stopped_by = config.stopped_by ? config.stopped_by() : 0;
    link.send(
        0, ClusterChannel::kRequest,
        request_words(flag, slot.id, static_cast<std::uint64_t>(stopped_by), failure, slot.done));
    slot.id = 0;
    slot.done.clear();
    if (flag != kWantMore) return Answer::kNone;
    const auto batch = link.receive(0, ClusterChannel::kWork);
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
  auto want = [&](std::size_t s, std::uint64_t flag) {  // asks for slot s; keeps the books
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
    want(s, stops             ? (failure.empty() ? kStopInterrupted : kStopFailed)
            : stopping || dry ? kResultsOnly
                              : kWantMore);
    for (std::size_t t = 0; t < slots.size(); ++t)
      if (before[t] && t != s && !dry && !stopping) want(t, kWantMore);
  }
}

// Rank 0's book of the other ranks: the batches each holds, whether it waits for an answer that
// has no work in it yet (cross-checks may still come: Dealer::may_deal_more), whether it was
// told there is no more (dry) or stopped. A rank is done once it is dry or stopped and holds
// nothing.
class Ranks {
 public:
  struct Held {
    std::uint64_t id = 0;
    std::vector<std::uint64_t> indices;  // ascending
    bool check = false;
  };
  struct Worker {
    std::vector<Held> held;
    bool waiting = false, dry = false, stopped = false, done = false;
  };

  explicit Ranks(int ranks) : workers_(static_cast<std::size_t>(ranks)), active_(ranks - 1) {}
  Worker& operator[](int k) { return workers_[static_cast<std::size_t>(k)]; }
  int active() const { return active_; }
  int size() const { return static_cast<int>(workers_.size()); }
  std::uint64_t next_batch_id() { return ++batch_ids_; }

  // A rank told there is no more work, or stopped, that holds nothing is done.
  void retire(Worker& worker) {
    if (!worker.done && (worker.dry || worker.stopped) && worker.held.empty()) {
      worker.done = true;
      --active_;
    }
  }

 private:
  std::vector<Worker> workers_;
  int active_;
  std::uint64_t batch_ids_ = 0;
};

// Rank 0's part: deals, counts its own share on threads of its own, and serves the requests.
class Root {
 public:
  Root(ClusterLink& link, const ClusterConfig& config, const Plan& plan,
       const std::vector<int>& threads, Monitor& signal, Monitor& progress, FileJournal* journal,
       const ResumePoint& resumed, const std::vector<std::uint64_t>& costs)
      : link_(link),
        config_(config),
        plan_(plan),
        signal_(signal),
        journal_(journal),
        counting_(config),
        dealer_(plan, resumed.todo, costs, journal, progress, threads,
                cross_check_fraction(config.count), config.count.cross_check_seed,
                config.batch_limit),
        ranks_(link.ranks()) {}

  // Deals until every rank is done, or ranks stop answering after a stop (lost: true).
  bool serve() {
    std::vector<std::thread> local;
    for (std::size_t s = 0; s < kDealerBatchesHeld && config_.root_counts; ++s)
      local.emplace_back([this] { count_locally(); });
    std::optional<std::chrono::steady_clock::time_point> stopped_at;
    bool lost = false;
    while (ranks_.active() > 0) {
      int from = 0;
      auto words = link_.poll(ClusterChannel::kRequest, from);
      if (!words) {
        // Polled, not a blocking receive: MPI's spins a core, which rank 0's own counts need.
        answer_waiting();  // rank 0's own counts may have brought cross-checks
        if (signal_.cancel.load(std::memory_order_relaxed) && !stopped(stopped_at)) {
          lost = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      if (!handle(from, parse_request(*words))) {
        protocol_failed_ = true;
        dealer_.stop_dealing();
        break;
      }
    }
    if (lost) {  // said before waiting for rank 0's own counts: the job may end a second later
      if (journal_) (void)journal_->flush();
      if (config_.on_lost_ranks) config_.on_lost_ranks(ranks_.active());
    }
    for (std::thread& t : local) t.join();
    return lost;
  }

  Dealer& dealer() { return dealer_; }
  int active() const { return ranks_.active(); }
  bool check_failed() const { return check_failed_; }
  bool protocol_failed() const { return protocol_failed_; }
  std::string protocol_error() const { return protocol_error_; }
  // The first rank whose count failed ("rank K: ..."), or the signal a worker received.
  std::string failed_rank() {
    std::lock_guard lock(mu_);
    return failed_rank_;
  }
  int worker_signal() const { return worker_signal_; }

 private:
  // After a stop: flushes the journal at once, then gives the ranks kLostRankGrace to hand back
  // what they finished. False once that has passed with ranks still out.
  bool stopped(std::optional<std::chrono::steady_clock::time_point>& at) {
    dealer_.stop_dealing();
    const auto now = std::chrono::steady_clock::now();
    if (!at) {
      at = now;
      if (journal_) (void)journal_->flush();  // what came back is safe before anything else
      return true;
    }
    return now - *at <= kLostRankGrace;
  }

  void rank_failed(int k, const std::string& why) {
    std::lock_guard lock(mu_);
    if (failed_rank_.empty()) failed_rank_ = "rank " + std::to_string(k) + ": " + why;
    dealer_.stop_dealing();
  }
  void stop_if_check_failed() {
    if (!dealer_.failure().empty() && !check_failed_.exchange(true)) dealer_.stop_dealing();
  }

  // Rank 0 counts too, kDealerBatchesHeld batches at a time, as the workers do.
  void count_locally() {
    CollectingJournal collected;
    CountConfig count = counting_.count, check = counting_.again;
    count.journal = check.journal = &collected;
    for (DealtBatch batch = dealer_.take(0); !batch.indices.empty(); batch = dealer_.take(0)) {
      const auto r = counting_.batch(batch.check ? check : count, plan_, batch.indices, &signal_);
      dealer_.deliver(0, collected.take(), batch.check);
      if (!r.ok()) rank_failed(0, r.error().message);
      stop_if_check_failed();
      if (!r.ok() || r->cancelled || check_failed_) break;
    }
  }

  // Answers rank k's request for work: a batch, nothing yet (it waits), or no more.
  void answer(int k) {
    Ranks::Worker& worker = ranks_[k];
    if (signal_.cancel.load(std::memory_order_relaxed) || check_failed_) dealer_.stop_dealing();
    const DealtBatch next = dealer_.take(k);
    if (next.indices.empty() && dealer_.may_deal_more()) {
      // A rank that holds a batch asks again when that one is done (it cannot listen before);
      // one that holds none waits here for the answer.
      worker.waiting = worker.held.empty();
      if (!worker.waiting) link_.send(k, ClusterChannel::kWork, {kRetry});
      return;
    }
    worker.waiting = false;
    std::vector<std::uint64_t> message;
    if (next.indices.empty()) {
      worker.dry = true;
    } else {
      Ranks::Held held{ranks_.next_batch_id(), next.indices, next.check};
      std::sort(held.indices.begin(), held.indices.end());
      message = {held.id, next.check ? kCheck : kCount};
      message.insert(message.end(), next.indices.begin(), next.indices.end());
      worker.held.push_back(std::move(held));
    }
    link_.send(k, ClusterChannel::kWork, message);
    ranks_.retire(worker);
  }
  void answer_waiting() {
    for (int k = 1; k < ranks_.size(); ++k)
      if (ranks_[k].waiting) answer(k);
  }

  // One request from rank `from`; false where it is not of the protocol (results of a batch the
  // rank does not hold): nothing of it is journaled.
  bool handle(int from, const Request& request) {
    Ranks::Worker& worker = ranks_[from];
    const auto held = std::find_if(worker.held.begin(), worker.held.end(),
                                   [&](const Ranks::Held& h) { return h.id == request.batch; });
    const bool matches =
        request.well_formed &&
        (request.batch == 0 ? request.done.empty() : held != worker.held.end()) &&
        std::all_of(request.done.begin(), request.done.end(), [&](const FinishedSubproblem& f) {
          return std::binary_search(held->indices.begin(), held->indices.end(), f.index);
        });
    if (!matches) {
      protocol_error_ = "internal error: rank " + std::to_string(from) +
                        " returned results that are not of a batch it holds (batch " +
                        std::to_string(request.batch) + "); nothing of it is journaled";
      return false;
    }
    if (held != worker.held.end()) {
      dealer_.deliver(from, request.done, held->check);
      worker.held.erase(held);
    }
    stop_if_check_failed();
    if (request.flag == kStopInterrupted || request.flag == kStopFailed) {
      worker.stopped = true;
      dealer_.stop_dealing();  // a rank that stops (a signal, an error) ends the run: resumable
      if (request.flag == kStopFailed)
        rank_failed(from, request.error);
      else if (worker_signal_ == 0)
        worker_signal_ = static_cast<int>(request.detail);
    }
    ranks_.retire(worker);  // its last results (kResultsOnly, a stop) may be in
    if (request.flag == kWantMore) answer(from);
    answer_waiting();  // these results may have brought cross-checks, or ended them
    return true;
  }

  ClusterLink& link_;
  const ClusterConfig& config_;
  const Plan& plan_;
  Monitor& signal_;
  FileJournal* journal_;
  Counting counting_;
  Dealer dealer_;
  Ranks ranks_;
  std::atomic<bool> check_failed_{false};
  bool protocol_failed_ = false;
  std::string protocol_error_;
  std::mutex mu_;
  std::string failed_rank_;
  int worker_signal_ = 0;
};

// What the start of a cluster count made: the plan and, on rank 0, the journal and what it
// holds, and every rank's threads.
struct Start {
  Plan plan;
  std::unique_ptr<FileJournal> journal;
  ResumePoint resumed;
  std::vector<int> threads;  // rank 0: every rank's, rank 0's first
};

// The cut every rank's plan takes: a resumed journal's own, else the one asked for, else the
// cluster's for every rank's threads. An Error where the journal's and the one asked for differ.
Expected<std::uint64_t> agree_on_cut(ClusterLink& link, const ClusterConfig& config,
                                     int threads_here) {
  const std::uint64_t all_threads = link.all_sum(static_cast<std::uint64_t>(threads_here));
  // A journal to resume keeps the cut it was made with (on another number of ranks, or by
  // count() on one machine): rank 0 reads it and tells the others.
  const std::string& checkpoint = config.count.checkpoint;
  const std::uint64_t read = link.rank() == 0 && !checkpoint.empty()
                                 ? rowsplit_journal_tasks(checkpoint, config.count.n)
                                 : 0;
  const std::uint64_t journal_tasks = link.broadcast({read}).at(0);
  const std::uint64_t asked = config.count.min_tasks;
  if (std::string bad = resume_cut_error(config.count.n, asked, journal_tasks, checkpoint);
      !bad.empty())
    return Error{std::move(bad)};
  return journal_tasks > 0 ? journal_tasks
         : asked > 0       ? asked
                           : cluster_plan_tasks(config.count.n, all_threads);
}

// Every rank makes the plan; each refuses it above the memory limit, as count() does, as soon
// as its size is known and again once it is made. Stopped by a signal: an empty Error.
Expected<Plan> plan_on_rank(const CountConfig& count, Monitor& signal) {
  std::optional<Error> too_large;
  PlanControl control;
  control.cancel = &signal.cancel;
  control.admit = [&](PlanKind kind, std::uint64_t tasks) {
    too_large =
        check_memory(estimate_memory(count.n, kind, tasks, count).total(), count.memory_limit);
    return !too_large;
  };
  auto plan = make_plan(count, control);
  if (plan.ok() && too_large) return *too_large;
  if (plan.ok() && plan->stopped) return Error{""};  // a signal: the caller says it
  if (!plan.ok()) return plan;
  if (auto refused =
          check_memory(estimate_memory(*plan, count, plan->size()).total(), count.memory_limit))
    return *refused;
  return plan;
}

// Rank 0's journal, opened, and what it holds.
Expected<void> open_journal(const ClusterConfig& config, const Plan& plan, Start& start) {
  const CountConfig& count = config.count;
  if (!count.checkpoint.empty())
    start.journal = std::make_unique<FileJournal>(count.checkpoint,
                                                  std::chrono::seconds(count.checkpoint_every));
  auto resumed = resume_run(plan, start.journal.get(),
                            cross_check_tag(cross_check_fraction(count), count.cross_check_seed));
  if (!resumed) return resumed.error();
  start.resumed = std::move(*resumed);
  return {};
}

// What every rank does before counting, alike: the cut, the plan (checked against rank 0's),
// rank 0's journal. An Error, the same on every rank, where any rank cannot go on: its message
// at rank 0 (first_error's line), empty elsewhere. A signal while planning: `stopped`.
Expected<Start> start_alike(ClusterLink& link, const ClusterConfig& config, Monitor& signal,
                            int& stopped) {
  const int threads_here = resolve_threads(config.count.threads);
  Start start;
  std::string error;
  int status = 0;
  CountConfig count = config.count;
  if (auto cut = agree_on_cut(link, config, threads_here); !cut) {
    error = cut.error().message;
  } else {
    count.min_tasks = *cut;
    auto plan = plan_on_rank(count, signal);
    if (plan)
      start.plan = std::move(*plan);
    else if (plan.error().message.empty())  // stopped: by a signal, SIGINT where none is known
      stopped = config.stopped_by && config.stopped_by() ? config.stopped_by() : 2;
    else
      error = plan.error().message;
  }
  // The plans must be alike too (a rank whose CPU chose another route for "auto", say).
  const std::uint32_t tag = cross_check_tag(cross_check_fraction(count), count.cross_check_seed);
  const std::string mine = error.empty() && !stopped
                               ? describe(run_identity(start.plan, tag)) + ", cut for " +
                                     std::to_string(count.min_tasks) + " tasks"
                               : "";
  const std::string root = words_text(link.broadcast(text_words(mine)));
  if (error.empty() && !stopped && mine != root)
    error = "made another plan than rank 0 (" + mine + "; rank 0: " + root +
            "): every rank must run the same count on the same kind of machine";
  if (link.rank() == 0 && error.empty() && !stopped)
    if (auto opened = open_journal(config, start.plan, start); !opened)
      error = opened.error().message;
  status = !error.empty() ? 2 : stopped ? 128 + stopped : 0;
  const std::string said = first_error(link, error);
  const auto worst = static_cast<int>(link.all_max(static_cast<std::uint64_t>(status)));
  if (worst > 128) stopped = worst - 128;
  if (worst == 2 || (worst != 0 && worst <= 128)) return Error{said};
  if (stopped) return Error{""};
  const auto all = link.gather({static_cast<std::uint64_t>(threads_here)});
  for (const auto& t : all) start.threads.push_back(static_cast<int>(t.at(0)));
  return start;
}

// Rank 0's result of a run that ended, from the root's books.
ClusterResult root_result(Root& root, const Start& start, bool lost, const ClusterConfig& config,
                          std::chrono::steady_clock::time_point began, Monitor& signal) {
  ClusterResult out;
  out.tasks = start.plan.size();
  CountResult& r = out.count;
  r.n = start.plan.n;
  r.threads = std::accumulate(start.threads.begin(), start.threads.end(), 0);
  r.cross_checked = root.dealer().checked();
  // The kernel this rank runs (an empty selection counts nothing), and one rank's memory.
  CountConfig probe_config = config.count;
  probe_config.checkpoint.clear();
  const auto probe = count_selected(probe_config, start.plan, {});
  r.kernel = probe.ok() ? probe->kernel : config.count.kernel;
  r.isa = probe.ok() ? probe->isa : "";
  r.memory_estimate = probe.ok() ? probe->memory_estimate : 0;
  const auto finished = finish_count(start.plan, root.dealer().sum(), start.resumed, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  out.subproblems_by_rank = root.dealer().by_rank();
  out.checked_elsewhere = root.dealer().checked_elsewhere();
  const auto [cost_out, cost_in] = root.dealer().cost_out_and_in();
  out.redo_share = cost_in ? static_cast<double>(cost_out) / static_cast<double>(cost_in) : 0;
  const std::string failed_rank = root.failed_rank();
  const bool signalled = signal.cancel.load() && config.stopped_by && config.stopped_by() != 0;
  if (lost) {
    out.ending = ClusterResult::Ending::kRanksLost;
    out.lost_ranks = root.active();
    out.signal = config.stopped_by ? config.stopped_by() : 0;
    if (out.signal == 0) out.signal = root.worker_signal();
  } else if (root.check_failed()) {
    out.ending = ClusterResult::Ending::kCrossCheckFailed;
    out.error = root.dealer().failure();
  } else if (!failed_rank.empty() && !signalled) {
    out.ending = ClusterResult::Ending::kRankFailed;
    out.error = failed_rank;
  } else if (r.cancelled) {
    out.ending = ClusterResult::Ending::kInterrupted;
    out.signal = config.stopped_by ? config.stopped_by() : 0;
    if (out.signal == 0) out.signal = root.worker_signal();
  } else if (!finished) {
    out.ending = ClusterResult::Ending::kRankFailed;
    out.error = finished.error().message;
  }
  return out;
}

}  // namespace

std::vector<std::uint64_t> text_words(const std::string& text) {
  std::vector<std::uint64_t> words((text.size() + 7) / 8 + 1, 0);
  words[0] = text.size();
  std::memcpy(words.data() + 1, text.data(), text.size());
  return words;
}

std::string words_text(std::span<const std::uint64_t> words) {
  if (words.empty() || words[0] > 8 * (words.size() - 1)) return "";
  std::string text(static_cast<std::size_t>(words[0]), '\0');
  std::memcpy(text.data(), words.data() + 1, text.size());
  return text;
}

std::string first_error(ClusterLink& link, const std::string& mine) {
  const auto all = link.gather(text_words(mine));
  for (std::size_t r = 0; r < all.size(); ++r)
    if (const std::string what = words_text(all[r]); !what.empty())
      return r == 0 ? what : "rank " + std::to_string(r) + ": " + what;
  return "";
}

std::string differs_from_root(ClusterLink& link, const std::vector<RunField>& mine) {
  std::string serialized;
  for (const RunField& f : mine)
    serialized += f.name + '\x1f' + f.value + '\x1f' + f.shown + '\x1e';
  const std::string root = words_text(link.broadcast(text_words(serialized)));
  std::vector<RunField> theirs;
  for (std::size_t at = 0; at < root.size();) {
    const std::size_t a = root.find('\x1f', at), b = root.find('\x1f', a + 1),
                      end = root.find('\x1e', b + 1);
    if (a == std::string::npos || b == std::string::npos || end == std::string::npos) break;
    theirs.push_back(
        {root.substr(at, a - at), root.substr(a + 1, b - a - 1), root.substr(b + 1, end - b - 1)});
    at = end + 1;
  }
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (i < theirs.size() && theirs[i].name == mine[i].name && theirs[i].value == mine[i].value)
      continue;
    return "started with " + mine[i].shown + ", rank 0 with " +
           (i < theirs.size() ? theirs[i].shown : "another version") +
           ": every rank of a job must run the same count";
  }
  return "";
}

Expected<ClusterResult> count_on_cluster(ClusterLink& link, const ClusterConfig& asked,
                                         Monitor& signal, Monitor& progress) {
  const auto began = std::chrono::steady_clock::now();
  // The rank's threads, shared as seats by the batches it holds at once (so the memory
  // estimate counts the threads that ask for them too).
  ThreadSeats seats(resolve_threads(asked.count.threads));
  ClusterConfig config = asked;
  config.count.seats = &seats;
  int stopped = 0;
  auto start = start_alike(link, config, signal, stopped);
  if (!start) {
    if (!stopped) return start.error();
    ClusterResult r;  // stopped while planning: nothing counted, nothing to save
    r.ending = ClusterResult::Ending::kInterrupted;
    r.signal = stopped;
    r.count.n = config.count.n;
    return r;
  }
  if (link.rank() != 0) {
    run_worker(link, config, start->plan, signal);
    return ClusterResult{};
  }
  const std::vector<std::uint64_t> costs = estimate_costs(start->plan, &signal.cancel);
  start_monitor(progress, start->plan, costs, start->resumed);
  Root root(link, config, start->plan, start->threads, signal, progress, start->journal.get(),
            start->resumed, costs);
  const bool lost = root.serve();
  ClusterResult out;
  if (root.protocol_failed()) {
    out.ending = ClusterResult::Ending::kBroken;
    out.error = root.protocol_error();
  } else {
    out = root_result(root, *start, lost, config, began, signal);
  }
  if (start->journal) {
    out.journal = start->journal->path();
    out.journal_warnings = start->journal->warnings();
    if (auto closed = start->journal->close(); !closed)
      out.journal_failure = closed.error().message;
  }
  return out;
}

}  // namespace nq
