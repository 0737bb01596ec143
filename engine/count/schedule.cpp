#include "engine/count/schedule.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <limits>
#include <numeric>
#include <queue>
#include <sstream>

#include "base/prefault.hpp"
#include "base/read_file.hpp"
#include "engine/count/topology.hpp"

namespace nq {

std::vector<std::uint32_t> largest_first(const std::vector<double>& costs) {
  std::vector<std::uint32_t> order;
  reserve_prefaulted(order, costs.size());
  order.resize(costs.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return costs[a] > costs[b]; });
  return order;
}

std::vector<std::uint32_t> claim_order(const std::vector<double>& costs, bool plan_order) {
  if (!plan_order) return largest_first(costs);
  std::vector<std::uint32_t> order;
  reserve_prefaulted(order, costs.size());
  order.resize(costs.size());
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

std::vector<std::vector<std::uint32_t>> deal_to_arenas(std::vector<std::uint32_t> order,
                                                       const std::vector<double>& costs,
                                                       const std::vector<int>& threads) {
  std::vector<std::vector<std::uint32_t>> queues(threads.size());
  if (threads.empty()) return queues;
  if (threads.size() == 1) {  // one arena takes the whole order
    queues[0] = std::move(order);
    return queues;
  }
  // A min-heap of (load per thread, arena): the least loaded arena on top, ties to the lower.
  using Entry = std::pair<double, std::size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> lightest;
  std::vector<double> load(threads.size(), 0.0);
  for (std::size_t a = 0; a < threads.size(); ++a) lightest.push({0.0, a});
  for (std::uint32_t i : order) {
    const std::size_t best = lightest.top().second;
    lightest.pop();
    // An item's cost counts at least a little, so zero-cost items still spread evenly.
    load[best] += std::max(costs[i], 1e-12);
    queues[best].push_back(i);
    lightest.push({load[best] / std::max(threads[best], 1), best});
  }
  return queues;
}

std::size_t claim_size(std::size_t length, int threads) {
  // About 32 claims per thread over the queue, at most kMaxClaim subproblems per claim.
  const std::size_t per = length / (static_cast<std::size_t>(std::max(threads, 1)) * 32);
  return std::clamp<std::size_t>(per, 1, kMaxClaim);
}

ThreadRanges split_among_threads(std::vector<std::uint32_t> ids, const std::vector<double>& costs,
                                 int threads, bool keep_order) {
  const auto t_count = static_cast<std::size_t>(std::max(threads, 1));
  ThreadRanges r;
  r.bounds.assign(t_count + 1, 0);
  r.bounds[t_count] = ids.size();
  if (keep_order) {
    // Contiguous blocks: thread t's block ends where the prefix cost is nearest (t+1)/T of the
    // total (neighbours in plan order share the join kernel's cached rows).
    const std::vector<double> after = suffix_costs(ids, costs);
    const double total = after[0];
    std::size_t k = 0;
    for (std::size_t t = 1; t < t_count; ++t) {
      const double target = total * static_cast<double>(t) / static_cast<double>(t_count);
      // Advance while taking one more position brings the prefix nearer the target.
      while (k < ids.size() && (total - after[k + 1]) - target <= target - (total - after[k])) ++k;
      r.bounds[t] = k;
    }
    r.ids = std::move(ids);
  } else {
    // LPT over the threads (one each); a share keeps the list's order, largest first.
    const auto shares = deal_to_arenas(std::move(ids), costs, std::vector<int>(t_count, 1));
    reserve_prefaulted(r.ids, r.bounds[t_count]);  // the list's length (`ids` is moved from)
    for (std::size_t t = 0; t < t_count; ++t) {
      r.bounds[t] = r.ids.size();
      r.ids.insert(r.ids.end(), shares[t].begin(), shares[t].end());
    }
  }
  return r;
}

std::vector<double> suffix_costs(const std::vector<std::uint32_t>& ids,
                                 const std::vector<double>& costs) {
  std::vector<double> after;
  reserve_prefaulted(after, ids.size() + 1);
  after.resize(ids.size() + 1, 0.0);
  for (std::size_t k = ids.size(); k-- > 0;)
    after[k] = after[k + 1] + std::max(costs[ids[k]], 1e-12);
  return after;
}

double range_work(const std::vector<double>& after, std::size_t begin, std::size_t end) {
  if (begin >= end) return 0;
  // Suffix sums of very unequal costs can round a small range's difference to 0 (or below).
  return std::max(after[begin] - after[end], std::numeric_limits<double>::min());
}

std::size_t steal_split(const std::vector<double>& after, std::size_t begin, std::size_t end) {
  if (end - begin <= 1) return begin;
  const double half = (after[begin] - after[end]) / 2;
  // The back part [mid, end) shrinks as mid grows: find the first mid in (begin, end) whose
  // back part holds at most half the work, then compare it with the part one position larger.
  std::size_t lo = begin + 1, hi = end - 1;  // the answer lies in [lo, hi]
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (after[mid] - after[end] <= half)
      hi = mid;
    else
      lo = mid + 1;
  }
  // lo: the largest back part with at most half (or the last position alone, if even that is
  // more). One position more is nearer half only if it beats it strictly; neither part is ever
  // the whole range (a range of two or more is shared). The front part [begin, mid) holds the
  // rest, so it is just as near half.
  const double smaller = after[lo] - after[end];
  if (lo - 1 > begin && (after[lo - 1] - after[end]) - half < half - smaller) return lo - 1;
  return lo;
}

int WorkLayout::node_at(std::size_t position) const {
  // node_begin is ascending; nodes are few.
  const auto it = std::upper_bound(node_begin.begin(), node_begin.end(), position);
  return static_cast<int>(it - node_begin.begin()) - 1;
}

StealCut cut_for_steal(const WorkLayout& layout, std::size_t begin, std::size_t end) {
  if (end - begin == 1) return {begin, end, end, end};
  const std::size_t mid = steal_split(layout.after, begin, end);
  if (layout.steal_front) return {begin, mid, mid, end};
  return {mid, end, begin, mid};
}

WorkLayout lay_out_work(std::vector<std::uint32_t> order, const std::vector<double>& costs,
                        const std::vector<int>& threads, bool keep_order) {
  WorkLayout layout;
  reserve_prefaulted(layout.ids, order.size());
  auto dealt = deal_to_arenas(std::move(order), costs, threads);
  layout.node_begin.push_back(0);
  layout.worker_begin.push_back(0);
  for (std::size_t k = 0; k < dealt.size(); ++k) {
    const int t = std::max(threads[k], 1);
    const std::size_t length = dealt[k].size();
    const ThreadRanges split = split_among_threads(std::move(dealt[k]), costs, t, keep_order);
    const std::size_t base = layout.ids.size();
    for (int w = 0; w < t; ++w) {
      layout.range_begin.push_back(base + split.bounds[static_cast<std::size_t>(w)]);
      layout.node_of.push_back(static_cast<int>(k));
    }
    layout.ids.insert(layout.ids.end(), split.ids.begin(), split.ids.end());
    layout.node_begin.push_back(layout.ids.size());
    layout.worker_begin.push_back(layout.node_of.size());
    layout.chunk.push_back(claim_size(length, t));
  }
  layout.range_begin.push_back(layout.ids.size());
  layout.after = suffix_costs(layout.ids, costs);
  layout.steal_front = !keep_order;
  return layout;
}

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

std::size_t dealer_batch_cap(std::size_t plan_size, std::size_t threads, std::size_t all_threads) {
  const std::size_t all = std::max<std::size_t>(1, all_threads);
  return std::max<std::size_t>(1, threads) *
         std::max<std::size_t>(1, plan_size / (kDealerCapShare * all));
}

std::uint64_t dealer_plan_tasks(std::uint64_t all_threads) {
  return kDealerTasksPerThread * std::max<std::uint64_t>(1, all_threads);
}

std::size_t dealer_batch(std::size_t left, std::size_t plan_size, std::size_t threads,
                         std::size_t all_threads) {
  const std::size_t all = std::max<std::size_t>(1, all_threads);
  const std::size_t guided =
      std::max<std::size_t>(1, threads) * std::max<std::size_t>(1, left / (4 * all));
  return std::min({left, dealer_batch_cap(plan_size, threads, all_threads), guided});
}

std::size_t dealer_run(std::size_t tasks, std::size_t all_threads) {
  const std::size_t per = std::max<std::size_t>(all_threads, 1) * kDealerRunsPerThread;
  return std::clamp<std::size_t>(tasks / per, 1, kDealerMaxRun);
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

std::string format_task_stats(std::span<const TaskStat> tasks) {
  std::ostringstream csv;
  csv << kTaskStatsHeader << "\n" << std::setprecision(9);
  for (const TaskStat& t : tasks)
    csv << t.id << "," << t.nodes << "," << t.seconds << "," << t.estimate << ","
        << (t.plan_order ? 1 : 0) << "," << (t.resumed ? 1 : 0) << "\n";
  return csv.str();
}

std::vector<TaskStat> timed_tasks(std::vector<TaskStat> tasks) {
  std::erase_if(tasks, [](const TaskStat& t) { return t.resumed; });
  return tasks;
}

namespace {

template <typename T>
bool parse_whole(std::string_view f, T& value) {
  std::uint64_t v = 0;
  if (!parse_decimal(f, v, std::numeric_limits<T>::max())) return false;
  value = static_cast<T>(v);
  return true;
}

// A non-negative finite decimal as the count writes it: 0.25, 3, 1.5e-05 (no sign in front,
// no spaces, no inf or nan).
bool parse_real(std::string_view f, double& value) {
  if (f.empty() || f[0] < '0' || f[0] > '9') return false;
  if (f.size() > 1 && f[0] == '0' && f[1] >= '0' && f[1] <= '9') return false;  // 01.5
  const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
  return ec == std::errc{} && end == f.data() + f.size() && std::isfinite(value) && value >= 0;
}

}  // namespace

Expected<std::vector<TaskStat>> read_task_stats(const std::string& path) {
  const Expected<std::string> text = read_text_file(path, "task stats");
  if (!text.ok()) return text.error();
  return parse_task_stats(*text, path);
}

static_assert(kMaxTaskStatsTotal == 1e100, "parse_task_stats' message quotes it");

Expected<std::vector<TaskStat>> parse_task_stats(std::string_view text, const std::string& name) {
  std::vector<TaskStat> tasks;
  std::vector<long long> line_of;  // each task's line, for the messages
  std::size_t columns = 0;         // 4, 5 or 6, as the header says
  double total_seconds = 0, total_estimate = 0;
  std::size_t at = 0;
  for (long long row = 1; at < text.size(); ++row) {
    const std::size_t eol = text.find('\n', at);
    const std::string_view line =
        text.substr(at, eol == std::string_view::npos ? std::string_view::npos : eol - at);
    at = eol == std::string_view::npos ? text.size() : eol + 1;
    const std::string where = name + ":" + std::to_string(row) + ": ";
    if (line.find('\r') != std::string_view::npos)
      return Error{where + "carriage return (CRLF line ends?): rows end with a newline only"};
    if (row == 1) {
      columns = line == kTaskStatsHeader                 ? 6
                : line == kTaskStatsHeaderWithoutResumed ? 5
                : line == kTaskStatsHeaderWithoutOrder   ? 4
                                                         : 0;
      if (columns == 0)
        return Error{"'" + name + "' is not a --task-stats file (expected the header '" +
                     std::string(kTaskStatsHeader) + "')"};
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string_view> fields;
    for (std::size_t from = 0;;) {
      const std::size_t comma = line.find(',', from);
      fields.push_back(line.substr(
          from, comma == std::string_view::npos ? std::string_view::npos : comma - from));
      if (comma == std::string_view::npos) break;
      from = comma + 1;
    }
    TaskStat t;
    auto flag = [&](std::size_t k) { return k >= columns || fields[k] == "0" || fields[k] == "1"; };
    const bool ok = fields.size() == columns && parse_whole(fields[0], t.id) &&
                    parse_whole(fields[1], t.nodes) && parse_real(fields[2], t.seconds) &&
                    parse_real(fields[3], t.estimate) && flag(4) && flag(5);
    if (!ok) {
      const std::string_view header = columns == 6   ? kTaskStatsHeader
                                      : columns == 5 ? kTaskStatsHeaderWithoutResumed
                                                     : kTaskStatsHeaderWithoutOrder;
      return Error{where + "expected '" + std::string(header) +
                   "': whole numbers id and nodes, non-negative decimals seconds and estimate" +
                   (columns == 6   ? ", plan_order and resumed 0 or 1"
                    : columns == 5 ? ", plan_order 0 or 1"
                                   : "") +
                   ", no spaces, signs or extra fields"};
    }
    t.plan_order = columns >= 5 && fields[4] == "1";
    t.resumed = columns >= 6 && fields[5] == "1";
    // Each column's total stays far below the largest double, so that no sum or product the
    // simulators form overflows into inf or nan.
    total_seconds += t.seconds;
    total_estimate += t.estimate;
    if (!(total_seconds <= kMaxTaskStatsTotal) || !(total_estimate <= kMaxTaskStatsTotal))
      return Error{where + "the " +
                   (total_seconds <= kMaxTaskStatsTotal ? "estimates" : "seconds") +
                   " of the rows up to this one add up to more than 1e100, the most a profile "
                   "may hold (this row: " +
                   std::string(fields[total_seconds <= kMaxTaskStatsTotal ? 3 : 2]) + ")"};
    tasks.push_back(t);
    line_of.push_back(row);
  }
  if (text.empty())
    return Error{"'" + name + "' is not a --task-stats file (expected the header '" +
                 std::string(kTaskStatsHeader) + "')"};
  if (tasks.empty()) return Error{"'" + name + "' has no task rows"};
  std::vector<std::size_t> order(tasks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return tasks[a].id < tasks[b].id; });
  for (std::size_t k = 1; k < order.size(); ++k)
    if (tasks[order[k]].id == tasks[order[k - 1]].id)
      return Error{"'" + name + "': task id " + std::to_string(tasks[order[k]].id) +
                   " appears twice (rows " + std::to_string(line_of[order[k - 1]]) + " and " +
                   std::to_string(line_of[order[k]]) + ")"};
  std::vector<TaskStat> sorted;
  sorted.reserve(tasks.size());
  for (std::size_t k : order) sorted.push_back(tasks[k]);
  return sorted;
}

}  // namespace nq
