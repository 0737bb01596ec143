#include "schedule.hpp"

#include <algorithm>
#include <bit>
#include <fstream>
#include <numeric>
#include <queue>
#include <sstream>

#include "topology.hpp"

namespace nq {

std::vector<std::uint32_t> largest_first(const std::vector<double>& costs) {
  std::vector<std::uint32_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return costs[a] > costs[b]; });
  return order;
}

std::vector<std::vector<std::uint32_t>> deal_to_arenas(const std::vector<std::uint32_t>& order,
                                                       const std::vector<double>& costs,
                                                       const std::vector<int>& threads) {
  std::vector<std::vector<std::uint32_t>> queues(threads.size());
  if (threads.empty()) return queues;
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
  // About 32 claims per thread over the queue, at most 16 subproblems per claim.
  const std::size_t per = length / (static_cast<std::size_t>(std::max(threads, 1)) * 32);
  return std::clamp<std::size_t>(per, 1, 16);
}

int queue_to_help(const std::vector<double>& left) {
  int best = -1;
  for (std::size_t q = 0; q < left.size(); ++q)
    if (left[q] > 0 && (best < 0 || left[q] > left[static_cast<std::size_t>(best)]))
      best = static_cast<int>(q);
  return best;
}

SimulatedRun simulate_schedule(const std::vector<TaskStat>& tasks, int workers, int node_cores,
                               double serial_seconds) {
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
  const auto queues = deal_to_arenas(largest_first(estimate), estimate, threads);

  // Per queue: the claim size, the next unclaimed position, the estimated work left.
  const std::size_t q_count = queues.size();
  std::vector<std::size_t> chunk(q_count), next(q_count, 0);
  std::vector<double> left(q_count, 0.0);
  for (std::size_t q = 0; q < q_count; ++q) {
    chunk[q] = claim_size(queues[q].size(), threads[q]);
    for (std::uint32_t i : queues[q]) left[q] += std::max(estimate[i], 1e-12);
  }
  // Event simulation: the worker that becomes free first claims next (ties: lower worker).
  using Event = std::pair<double, int>;  // (free at, worker)
  std::priority_queue<Event, std::vector<Event>, std::greater<>> free_at;
  std::vector<std::size_t> home;
  for (std::size_t q = 0; q < q_count; ++q)
    for (int t = 0; t < threads[q]; ++t) {
      free_at.push({0.0, static_cast<int>(home.size())});
      home.push_back(q);
    }
  while (!free_at.empty()) {
    const auto [now, w] = free_at.top();
    free_at.pop();
    std::size_t q = home[static_cast<std::size_t>(w)];
    if (next[q] >= queues[q].size()) {
      const int h = queue_to_help(left);
      if (h < 0) {  // nothing left anywhere: this worker is done
        run.makespan = std::max(run.makespan, now);
        continue;
      }
      q = static_cast<std::size_t>(h);
    }
    const std::size_t end = std::min(next[q] + chunk[q], queues[q].size());
    double busy = 0;
    for (; next[q] < end; ++next[q]) {
      const std::uint32_t i = queues[q][next[q]];
      busy += cost[i];
      left[q] -= std::max(estimate[i], 1e-12);
    }
    if (next[q] >= queues[q].size()) left[q] = 0;  // no rounding crumbs on an empty queue
    free_at.push({now + busy, w});
  }
  run.work += serial_seconds;
  run.makespan += serial_seconds;
  run.speedup = run.makespan > 0 ? run.work / run.makespan : 1.0;
  run.efficiency = run.speedup / run.workers;
  return run;
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

Expected<std::vector<TaskStat>> read_task_stats(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{"cannot read task stats '" + path + "'"};
  std::string line;
  if (!std::getline(in, line) || line.rfind("id,nodes,seconds,estimate", 0) != 0)
    return Error{"'" + path + "' is not a --task-stats file (expected the header " +
                 "'id,nodes,seconds,estimate')"};
  std::vector<TaskStat> tasks;
  int row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (line.empty()) continue;
    std::istringstream fields(line);
    TaskStat t;
    char c1 = 0, c2 = 0, c3 = 0;
    if (!(fields >> t.id >> c1 >> t.nodes >> c2 >> t.seconds >> c3 >> t.estimate) || c1 != ',' ||
        c2 != ',' || c3 != ',' || t.seconds < 0 || t.estimate < 0)
      return Error{"'" + path + "' line " + std::to_string(row) +
                   ": expected 'id,nodes,seconds,estimate' with non-negative numbers"};
    tasks.push_back(t);
  }
  if (tasks.empty()) return Error{"'" + path + "' has no task rows"};
  std::sort(tasks.begin(), tasks.end(),
            [](const TaskStat& a, const TaskStat& b) { return a.id < b.id; });
  return tasks;
}

}  // namespace nq
