#include "engine/count/src/layout.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>

#include "base/prefault.hpp"

namespace nq::detail {

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

}  // namespace nq::detail
