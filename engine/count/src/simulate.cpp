#include "engine/count/simulate.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <queue>

#include "engine/count/dealer.hpp"
#include "engine/count/src/layout.hpp"
#include "engine/count/topology.hpp"

namespace nq {

using detail::claim_order;
using detail::cut_for_steal;
using detail::lay_out_work;
using detail::range_to_steal;
using detail::range_work;
using detail::StealCut;
using detail::WorkLayout;

namespace {

// range_to_steal's choice for the simulator, in O(log workers) a steal instead of a scan of the
// workers (a scan made a replay on P workers take O(P^2) at its end, where every worker finds
// its range empty): a tournament tree over the workers' work left, each of its nodes holding the
// winner of its span, most work first, ties to the lower worker, as range_to_steal ranks them.
template <class LeftOf>
class RichestRange {
 public:
  RichestRange(std::size_t workers, LeftOf& left_of)
      : left_of_(left_of),
        leaves_(std::bit_ceil(std::max<std::size_t>(workers, 1))),
        left_(workers),
        tree_(2 * leaves_, kNone) {
    for (std::size_t w = 0; w < workers; ++w) {
      left_[w] = left_of_(w);
      tree_[leaves_ + w] = static_cast<std::uint32_t>(w);
    }
    for (std::size_t i = leaves_; i-- > 1;) tree_[i] = better(tree_[2 * i], tree_[2 * i + 1]);
  }

  // After worker w's range changed.
  void update(std::size_t w) {
    left_[w] = left_of_(w);
    for (std::size_t i = (leaves_ + w) / 2; i >= 1; i /= 2)
      tree_[i] = better(tree_[2 * i], tree_[2 * i + 1]);
  }

  // range_to_steal(layout, node, left_of), the same worker or -1.
  int to_steal(const WorkLayout& layout, int node) const {
    const auto k = static_cast<std::size_t>(node);
    const int own = richest(layout.worker_begin[k], layout.worker_begin[k + 1]);
    return own >= 0 ? own : richest(0, left_.size());
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  std::uint32_t better(std::uint32_t a, std::uint32_t b) const {
    if (a == kNone) return b;
    if (b == kNone) return a;
    if (left_[a] != left_[b]) return left_[a] > left_[b] ? a : b;
    return std::min(a, b);
  }

  // The richest worker of [from, to) with work left, or -1.
  int richest(std::size_t from, std::size_t to) const {
    std::uint32_t best = kNone;
    for (std::size_t lo = from + leaves_, hi = to + leaves_; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) best = better(best, tree_[lo++]);
      if (hi & 1) best = better(best, tree_[--hi]);
    }
    return best != kNone && left_[best] > 0 ? static_cast<int>(best) : -1;
  }

  LeftOf& left_of_;
  std::size_t leaves_;
  std::vector<double> left_;         // each worker's work left when last updated
  std::vector<std::uint32_t> tree_;  // tree_[1] the root, tree_[leaves_ + w] worker w
};

}  // namespace

SimulatedRun simulate_schedule(const std::vector<TaskStat>& tasks, int workers, int node_cores,
                               double serial_seconds, bool plan_order) {
  SimulatedRun run;
  run.workers = std::max(workers, 1);
  node_cores = std::max(node_cores, 1);
  // The machine: as many nodes of node_cores cores as the workers need.
  Topology machine;
  const int nodes = (run.workers + node_cores - 1) / node_cores;
  for (int k = 0; k < nodes; ++k) {
    NumaNode node;
    node.os_index = k;
    node.cores = node_cores;
    machine.nodes.push_back(node);
  }
  const NumaPlan plan = plan_arenas(machine, run.workers, true);
  run.arenas = static_cast<int>(plan.arenas.size());

  std::vector<double> cost(tasks.size()), estimate(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    cost[i] = tasks[i].seconds;
    estimate[i] = tasks[i].estimate;
    run.work += tasks[i].seconds;
  }
  std::vector<int> threads;
  for (const ArenaPlan& a : plan.arenas) threads.push_back(a.threads);
  // The tasks are sorted by id (read_task_stats), so plan order is their order.
  const WorkLayout layout =
      lay_out_work(claim_order(estimate, plan_order), estimate, threads, plan_order);

  // Each worker's range [begin, end), as the runner's range words hold them.
  const std::size_t w_count = layout.workers();
  std::vector<std::size_t> begin(layout.range_begin.begin(), layout.range_begin.end() - 1);
  std::vector<std::size_t> end(layout.range_begin.begin() + 1, layout.range_begin.end());
  auto left_of = [&](std::size_t w) { return range_work(layout.after, begin[w], end[w]); };
  RichestRange richest(w_count, left_of);
  std::size_t unclaimed = layout.ids.size();  // positions no worker has claimed yet
  // Event simulation: the worker that becomes free first claims next (ties: lower worker);
  // a claim and a steal take no time. Every worker is first free at 0: those that have not had
  // their first turn yet, workers fresh.., are not in the queue but stand for (0, fresh), so
  // that the queue holds the workers with a claim under way, at most one per task.
  using Event = std::pair<double, std::size_t>;  // (free at, worker)
  std::priority_queue<Event, std::vector<Event>, std::greater<>> free_at;
  std::size_t fresh = 0;
  for (;;) {
    Event next;
    if (fresh < w_count && (free_at.empty() || Event{0.0, fresh} < free_at.top())) {
      next = {0.0, fresh++};
    } else if (!free_at.empty()) {
      next = free_at.top();
      free_at.pop();
    } else {
      break;
    }
    const auto [now, w] = next;
    if (begin[w] >= end[w]) {  // empty: steal half of the richest range
      const int victim = unclaimed == 0 ? -1 : richest.to_steal(layout, layout.node_of[w]);
      if (victim < 0) {  // nothing left anywhere: this worker is done
        run.makespan = std::max(run.makespan, now);
        // Nor for the workers yet to have their first turn: they are done at 0.
        fresh = w_count;
        continue;
      }
      const auto v = static_cast<std::size_t>(victim);
      const StealCut cut = cut_for_steal(layout, begin[v], end[v]);
      begin[w] = cut.thief_begin;
      end[w] = cut.thief_end;
      begin[v] = cut.victim_begin;
      end[v] = cut.victim_end;
      richest.update(v);
      ++run.steals;
    }
    const std::size_t node = static_cast<std::size_t>(layout.node_at(begin[w]));
    const std::size_t stop = std::min(begin[w] + layout.chunk[node], end[w]);
    double busy = 0;
    unclaimed -= stop - begin[w];
    for (; begin[w] < stop; ++begin[w]) busy += cost[layout.ids[begin[w]]];
    richest.update(w);
    free_at.push({now + busy, w});
  }
  run.work += serial_seconds;
  run.makespan += serial_seconds;
  run.speedup = run.makespan > 0 ? run.work / run.makespan : 1.0;
  run.efficiency = run.speedup / run.workers;
  return run;
}

SimulatedDeal simulate_dealer(const std::vector<TaskStat>& tasks, int ranks, int threads,
                              double root_seconds) {
  SimulatedDeal r;
  r.ranks = std::max(1, ranks);
  r.threads = std::max(1, threads);
  const auto threads_each = static_cast<std::size_t>(r.threads);
  const std::size_t all_threads = threads_each * static_cast<std::size_t>(r.ranks);
  const std::size_t plan = tasks.size();
  const std::vector<std::size_t> order = dealer_order(
      tasks.size(), [&](std::size_t i) { return tasks[i].estimate; },
      dealer_run(tasks.size(), all_threads));
  std::size_t next = 0;
  // Each rank's threads, by the time each is free: a batch's tasks go, in order, to the thread
  // free first, but not before the batch arrives; the batch is done when its last task is.
  // A rank's threads that have had no task yet are all free at 0, so they are kept as a count,
  // not one entry each: the pools hold one entry per task dealt at most, and the memory grows
  // with ranks plus tasks, never ranks times threads (2^20 ranks of 2^16 threads would be 2^36
  // entries). The threads free first come out in the same order as with an entry each.
  struct Pool {
    std::size_t unused = 0;  // threads that have had no task yet: free at 0
    std::priority_queue<double, std::vector<double>, std::greater<>> busy;  // the others
  };
  std::vector<Pool> pools(static_cast<std::size_t>(r.ranks));
  for (Pool& pool : pools) pool.unused = threads_each;
  auto batch_time = [&](Pool& pool, double arrives, std::size_t begin, std::size_t end) {
    double last = arrives;
    for (std::size_t i = begin; i < end; ++i) {
      const double seconds = tasks[order[i]].seconds;
      double free = 0;  // an unused thread's time, else the busy thread free first
      if (pool.unused > 0) {
        --pool.unused;
      } else {
        free = pool.busy.top();
        pool.busy.pop();
      }
      const double at = std::max(free, arrives) + seconds;
      pool.busy.push(at);
      last = std::max(last, at);
      r.work += seconds;
    }
    return last;
  };
  auto take = [&] {
    const std::size_t batch = dealer_batch(plan - next, plan, threads_each, all_threads);
    const std::size_t begin = next;
    next = dealer_batch_end(next, plan, batch,
                            [&](std::size_t at) { return tasks[order[at]].estimate; });
    if (next > begin) ++r.batches;
    return std::pair{begin, next};
  };
  // Requests in rank 0's queue, by the time they are sent: every rank's first kDealerBatchesHeld
  // at the start, then one whenever a batch of it is done.
  using Event = std::pair<double, int>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> done;
  for (std::size_t b = 0; b < kDealerBatchesHeld; ++b)
    for (int k = 0; k < r.ranks; ++k) done.push({0.0, k});
  double server_free = 0, serving = 0;
  while (!done.empty()) {
    const auto [t, k] = done.top();
    done.pop();
    r.makespan = std::max(r.makespan, t);
    double start = t;
    if (k != 0) {  // a request to rank 0's main thread: served in turn
      start = std::max(t, server_free);
      r.longest_wait = std::max(r.longest_wait, start - t);
      server_free = start + root_seconds;
      serving += root_seconds;
      start = server_free;
      // The run ends when rank 0 has served the last request, the final "no more work" too.
      r.makespan = std::max(r.makespan, start);
    }
    const auto [begin, end] = take();
    if (begin == end) continue;  // no work left: this request gets none
    done.push({batch_time(pools[static_cast<std::size_t>(k)], start, begin, end), k});
  }
  // Each pool's heap holds every used thread's last finishing time: the least of them, or 0
  // where a thread never had a task, is when that rank's first thread was done for good.
  r.first_idle = r.makespan;
  for (const Pool& pool : pools)
    r.first_idle =
        std::min(r.first_idle, pool.unused > 0 || pool.busy.empty() ? 0.0 : pool.busy.top());
  r.tail = r.makespan - r.first_idle;
  // Divided one factor at a time: ranks times threads times the makespan can pass the largest
  // double.
  r.efficiency = r.makespan > 0 ? r.work / r.makespan / r.ranks / r.threads : 0;
  r.root_busy = r.makespan > 0 ? serving / r.makespan : 0;
  return r;
}

std::uint64_t simulate_schedule_bytes(std::size_t tasks, int workers, int node_cores) {
  const auto w = static_cast<std::uint64_t>(std::max(workers, 1));
  const std::uint64_t nodes = (w + static_cast<std::uint64_t>(std::max(node_cores, 1)) - 1) /
                              static_cast<std::uint64_t>(std::max(node_cores, 1));
  // A worker: begin, end, range_begin (3 size_t), node_of (int), its work left (double), two
  // tree entries (uint32) up to twice over (the tree's leaves are a power of two).
  const std::uint64_t per_worker =
      3 * sizeof(std::size_t) + sizeof(int) + sizeof(double) + 4 * sizeof(std::uint32_t);
  // A node: its NumaNode, arena, queue, bounds and layout entries (generously).
  const std::uint64_t per_node = 256;
  // A task: a TaskStat copy, cost and estimate, the order, the dealt queue and the layout
  // (uint32 each), the suffix sums, an event (pair<double, size_t>), doubled for vector growth.
  const std::uint64_t per_task =
      2 * (sizeof(TaskStat) + 3 * sizeof(double) + 3 * sizeof(std::uint32_t) +
           sizeof(std::pair<double, std::size_t>));
  return w * per_worker + nodes * per_node + static_cast<std::uint64_t>(tasks) * per_task;
}

std::uint64_t simulate_dealer_bytes(std::size_t tasks, int ranks) {
  // A rank: its pool (a count and an empty heap) and kDealerBatchesHeld requests in the queue
  // (pair<double, int>), doubled for vector growth. A task: its place in the order and one
  // finishing time in a pool, doubled likewise.
  const std::uint64_t per_rank = 32 + 2 * kDealerBatchesHeld * sizeof(std::pair<double, int>);
  const std::uint64_t per_task = 2 * (sizeof(std::size_t) + sizeof(double));
  return static_cast<std::uint64_t>(std::max(ranks, 1)) * per_rank +
         static_cast<std::uint64_t>(tasks) * per_task;
}

std::vector<TaskStat> costs_from_nodes(std::vector<TaskStat> tasks) {
  double seconds = 0, nodes = 0;
  for (const TaskStat& t : tasks) {
    seconds += t.seconds;
    nodes += static_cast<double>(t.nodes);
  }
  const double per_node = nodes > 0 ? seconds / nodes : 0.0;
  for (TaskStat& t : tasks) t.seconds = per_node * static_cast<double>(t.nodes);
  return tasks;
}

}  // namespace nq
