// The cluster count (engine/count/cluster.hpp) without MPI: its ranks are threads of this
// process, joined by an in-memory link. The same counts as count(), however the ranks' threads
// are spread; ranks that disagree on the plan are refused; a worker's failure and a signal end
// the run as the protocol says.
#include "engine/count/cluster.hpp"

#include <gtest/gtest.h>

#include <barrier>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/count/count.hpp"
#include "engine/count/known.hpp"

namespace nq {
namespace {

// The ranks' shared post: a queue of messages per (rank, channel), and the collectives' slots.
class Hub {
 public:
  explicit Hub(int ranks) : ranks_(ranks), slots_(static_cast<std::size_t>(ranks)), sync_(ranks) {}
  int ranks() const { return ranks_; }
  void post(int to, int from, ClusterChannel channel, const std::vector<std::uint64_t>& words) {
    std::lock_guard lock(mu_);
    queues_[{to, channel}].push_back({from, words});
    arrived_.notify_all();
  }
  // The first message to `to` on `channel` from `from` (-1: anyone); waits where `wait`.
  std::optional<std::pair<int, std::vector<std::uint64_t>>> take(int to, int from,
                                                                 ClusterChannel channel,
                                                                 bool wait) {
    std::unique_lock lock(mu_);
    for (;;) {
      auto& queue = queues_[{to, channel}];
      for (auto it = queue.begin(); it != queue.end(); ++it)
        if (from < 0 || it->first == from) {
          auto message = std::move(*it);
          queue.erase(it);
          return message;
        }
      if (!wait) return std::nullopt;
      arrived_.wait(lock);
    }
  }
  // Every rank's words, once all have given theirs.
  std::vector<std::vector<std::uint64_t>> exchange(int rank, std::vector<std::uint64_t> words) {
    slots_[static_cast<std::size_t>(rank)] = std::move(words);
    sync_.arrive_and_wait();
    auto all = slots_;
    sync_.arrive_and_wait();
    return all;
  }

 private:
  int ranks_;
  std::mutex mu_;
  std::condition_variable arrived_;
  std::map<std::pair<int, ClusterChannel>, std::deque<std::pair<int, std::vector<std::uint64_t>>>>
      queues_;
  std::vector<std::vector<std::uint64_t>> slots_;
  std::barrier<> sync_;
};

class ThreadLink final : public ClusterLink {
 public:
  ThreadLink(Hub& hub, int rank) : hub_(hub), rank_(rank) {}
  int rank() const override { return rank_; }
  int ranks() const override { return hub_.ranks(); }
  void send(int to, ClusterChannel channel, const std::vector<std::uint64_t>& words) override {
    hub_.post(to, rank_, channel, words);
  }
  std::vector<std::uint64_t> receive(int from, ClusterChannel channel) override {
    return hub_.take(rank_, from, channel, true)->second;
  }
  std::optional<std::vector<std::uint64_t>> poll(ClusterChannel channel, int& from) override {
    auto message = hub_.take(rank_, -1, channel, false);
    if (!message) return std::nullopt;
    from = message->first;
    return message->second;
  }
  std::vector<std::uint64_t> broadcast(const std::vector<std::uint64_t>& words) override {
    return hub_.exchange(rank_, words)[0];
  }
  std::uint64_t all_max(std::uint64_t value) override {
    std::uint64_t most = 0;
    for (const auto& v : hub_.exchange(rank_, {value})) most = std::max(most, v[0]);
    return most;
  }
  std::uint64_t all_sum(std::uint64_t value) override {
    std::uint64_t sum = 0;
    for (const auto& v : hub_.exchange(rank_, {value})) sum += v[0];
    return sum;
  }
  std::vector<std::vector<std::uint64_t>> gather(const std::vector<std::uint64_t>& words) override {
    auto all = hub_.exchange(rank_, words);
    return rank_ == 0 ? all : std::vector<std::vector<std::uint64_t>>{};
  }

 private:
  Hub& hub_;
  int rank_;
};

// Every rank's result, each rank a thread; `config_of(rank)` is its config.
std::vector<Expected<ClusterResult>> run_ranks(int ranks,
                                               const std::function<ClusterConfig(int)>& config_of,
                                               std::vector<Monitor>* signals = nullptr) {
  Hub hub(ranks);
  std::vector<Expected<ClusterResult>> results(static_cast<std::size_t>(ranks), Error{"not run"});
  std::vector<Monitor> own(static_cast<std::size_t>(ranks));
  std::vector<Monitor>& signal = signals ? *signals : own;
  std::vector<Monitor> progress(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      ThreadLink link(hub, r);
      const auto k = static_cast<std::size_t>(r);
      results[k] = count_on_cluster(link, config_of(r), signal[k], progress[k]);
    });
  for (std::thread& t : threads) t.join();
  return results;
}

ClusterConfig board(int n, int threads) {
  ClusterConfig c;
  c.count.n = n;
  c.count.threads = threads;
  return c;
}

TEST(Cluster, RanksCountLikeOneProcess) {
  for (const auto& board_kernel :
       std::vector<std::pair<int, std::string>>{{12, "auto"}, {13, "scalar"}, {14, "join"}}) {
    const int n = board_kernel.first;  // named, not bound: clang 14 cannot capture a binding
    const std::string& kernel = board_kernel.second;
    CountConfig one;
    one.n = n;
    one.threads = 2;
    one.kernel = kernel;
    const auto whole = count(one);
    ASSERT_TRUE(whole.ok());
    const auto results = run_ranks(3, [&](int rank) {
      ClusterConfig c = board(n, rank == 0 ? 1 : 2);
      c.count.kernel = kernel;
      return c;
    });
    for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.error().message;
    const ClusterResult& root = *results[0];
    EXPECT_EQ(root.ending, ClusterResult::Ending::kCounted);
    EXPECT_TRUE(root.count.orbits.total == whole->orbits.total) << n;
    EXPECT_TRUE(root.count.orbits.unique == whole->orbits.unique) << n;
    EXPECT_TRUE(root.count.nodes == whole->nodes) << n;
    EXPECT_EQ(root.count.threads, 5);
    std::uint64_t shared = 0;
    for (std::uint64_t k : root.subproblems_by_rank) shared += k;
    EXPECT_EQ(shared, root.count.subproblems);
  }
}

// Every task counted twice, the second time on another rank than the first.
TEST(Cluster, CrossChecksAreCountedOnAnotherRank) {
  const auto results = run_ranks(3, [](int) {
    ClusterConfig c = board(12, 1);
    c.count.cross_check = 1;
    return c;
  });
  ASSERT_TRUE(results[0].ok()) << results[0].error().message;
  const ClusterResult& root = *results[0];
  EXPECT_EQ(root.ending, ClusterResult::Ending::kCounted);
  EXPECT_EQ(root.count.cross_checked, root.count.subproblems);
  EXPECT_GT(root.checked_elsewhere, 0u);
  EXPECT_TRUE(root.count.orbits.total == known_value(12)->total);
}

// Ranks whose plans differ (another cut) are refused before any work, the same on every rank,
// said once, at rank 0, naming the rank.
TEST(Cluster, RanksThatPlanOtherwiseAreRefused) {
  const auto results = run_ranks(2, [](int rank) {
    ClusterConfig c = board(14, 1);
    c.count.kernel = "join";
    c.count.min_tasks = rank == 0 ? 0 : 20000;
    return c;
  });
  ASSERT_FALSE(results[0].ok());
  ASSERT_FALSE(results[1].ok());
  EXPECT_EQ(results[0].error().message.rfind("rank 1: made another plan than rank 0", 0), 0u)
      << results[0].error().message;
  EXPECT_TRUE(results[1].error().message.empty());
}

// A worker whose count fails stops the run: rank 0 names it, and what came back is kept.
TEST(Cluster, AFailedWorkerCountEndsTheRunNamingTheRank) {
  const auto results = run_ranks(3, [](int rank) {
    ClusterConfig c = board(12, 1);
    if (rank == 2)
      c.count_batch = [](const CountConfig&, const Plan&, std::span<const std::uint64_t>,
                         Monitor*) -> Expected<CountResult> { return Error{"out of memory"}; };
    return c;
  });
  ASSERT_TRUE(results[0].ok()) << results[0].error().message;
  EXPECT_EQ(results[0]->ending, ClusterResult::Ending::kRankFailed);
  EXPECT_EQ(results[0]->error, "rank 2: out of memory");
}

// A signal to one worker alone ends the run with that worker's signal, at rank 0; and a signal
// while the ranks plan ends every rank's run before any counting.
TEST(Cluster, ASignalToOneWorkerEndsTheRunWithItsSignal) {
  const auto results = run_ranks(3, [](int rank) {
    ClusterConfig c = board(13, 1);
    c.count.kernel = "scalar";
    if (rank == 1) {  // its first batch is cut short by SIGTERM, as a cancelled count is
      c.stopped_by = [] { return 15; };
      c.count_batch = [](const CountConfig&, const Plan& plan, std::span<const std::uint64_t>,
                         Monitor*) -> Expected<CountResult> {
        CountResult r;
        r.n = plan.n;
        r.cancelled = true;
        return r;
      };
    }
    return c;
  });
  ASSERT_TRUE(results[0].ok()) << results[0].error().message;
  EXPECT_EQ(results[0]->ending, ClusterResult::Ending::kInterrupted);
  EXPECT_EQ(results[0]->signal, 15);
  EXPECT_TRUE(results[0]->count.cancelled);
  EXPECT_GT(results[0]->count.subproblems_total, 0u);

  std::vector<Monitor> signals(2);
  signals[1].cancel = true;  // before the plan is made
  const auto planning = run_ranks(
      2,
      [](int rank) {
        ClusterConfig c = board(13, 1);
        if (rank == 1) c.stopped_by = [] { return 2; };
        return c;
      },
      &signals);
  for (const auto& r : planning) {
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->ending, ClusterResult::Ending::kInterrupted);
    EXPECT_EQ(r->signal, 2);
    EXPECT_EQ(r->count.subproblems_total, 0u);
  }
}

TEST(Cluster, TextTravelsAsWords) {
  for (const std::string& text :
       std::vector<std::string>{"", "a", "eight ch", "nine char", std::string(100, 'x')})
    EXPECT_EQ(words_text(text_words(text)), text);
  EXPECT_EQ(words_text(std::vector<std::uint64_t>{99}), "");  // longer than its words: none
}

}  // namespace
}  // namespace nq
