// The scheduling policy of a count (internal), written once and used twice: by the runner, which
// runs it on the NUMA arenas, and by the scaling simulator, which replays measured task costs under
// it on machines we do not have (so the prediction uses the same policy by construction).
//
// The policy, for independent subproblems of very unequal cost:
//   1. order: largest estimated cost first (longest-processing-time order), so the last tasks
//      to start are the small ones and the finishing tail is short (the runner keeps the
//      row-split plan in plan order instead: neighbours there share the join kernel's cached
//      bottom rows);
//   2. deal to nodes: each subproblem, in that order, goes to the arena whose estimated load
//      per thread is lowest (greedy LPT over the NUMA nodes, in proportion to their threads);
//      the node's share is then copied into memory bound to that node;
//   3. deal to threads: a node's list is laid out as one contiguous range of positions per
//      thread (split_among_threads): LPT-dealt shares, each largest first, or, in plan order,
//      contiguous blocks of about equal estimated cost;
//   4. run: a thread claims `claim_size` positions at a time from the FRONT of its own range;
//   5. steal: a thread whose range is empty picks the range with the most estimated work left
//      in its own node (range_to_steal), and only when every range of its node is empty, in
//      any node (the nodes help each other at the end); it takes the part of that range holding
//      about half its estimated work (steal_split, cut_for_steal), which becomes its own range,
//      so that it can in turn be stolen from. The thief takes the FRONT half in a largest-first
//      layout: the largest tasks left go to the thread that is free now, not to the busy owner,
//      as in list scheduling (taking the back, the owner's largest tasks were left to the end:
//      at 1024 simulated workers, n = 16 nodes-cost, efficiency 0.518 against 0.574); in plan
//      order it takes the BACK half, so that the owner goes on with its neighbours. No
//      randomness: the simulator replays the runner's steals exactly.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nq::detail {

// The estimated cost of a subproblem is cost.hpp's estimate_cost.

// Indices 0..costs.size()-1, largest cost first (ties keep the lower index first).
std::vector<std::uint32_t> largest_first(const std::vector<double>& costs);

// The order a run deals its subproblems in: largest first, or with `plan_order` the plan's own
// (the row-split plan: neighbours share a half's bottom rows, which the join kernel reuses, and
// its tasks are small and many, so the tail that largest-first shortens is short anyway).
std::vector<std::uint32_t> claim_order(const std::vector<double>& costs, bool plan_order);

// Deals `order` (indices into costs) to arenas with `threads[a]` threads: each index goes to the
// arena with the lowest load / threads so far (ties to the lower arena). Each queue keeps the
// order it was dealt in. (By value: one arena takes the list itself.)
std::vector<std::vector<std::uint32_t>> deal_to_arenas(std::vector<std::uint32_t> order,
                                                       const std::vector<double>& costs,
                                                       const std::vector<int>& threads);

// How many subproblems a thread takes at once from its range, for a node's list of `length`
// split among `threads`: small enough that a range splits into dozens of claims (balance, and
// something left to steal), large enough to feed a lane-parallel kernel a batch and to keep the
// compare-and-swaps rare. At most kMaxClaim: the runner counts a claim in buffers of that size.
inline constexpr std::size_t kMaxClaim = 16;
std::size_t claim_size(std::size_t length, int threads);

// A node's list laid out for its threads: thread t owns positions [bounds[t], bounds[t + 1]) of
// `ids` (bounds has threads + 1 entries, bounds[0] = 0, bounds[threads] = ids.size()).
struct ThreadRanges {
  std::vector<std::uint32_t> ids;
  std::vector<std::size_t> bounds;
};

// Splits a node's list (indices into costs) among `threads` threads. By default the list is
// dealt to the threads with deal_to_arenas (one thread each) and laid out share by share, so a
// thread's range keeps the list's order (largest first, for a largest-first list). With
// `keep_order` the list stays as it is (and is moved, not copied) and is cut into contiguous
// blocks of about equal cost.
ThreadRanges split_among_threads(std::vector<std::uint32_t> ids, const std::vector<double>& costs,
                                 int threads, bool keep_order);

// Suffix sums of a list's estimated costs: after[k] is the cost of positions k.. (after has one
// entry more than the list, ending with 0). A cost counts at least 1e-12, as in the dealing.
std::vector<double> suffix_costs(const std::vector<std::uint32_t>& ids,
                                 const std::vector<double>& costs);

// The estimated work of the positions [begin, end), from suffix_costs: 0 for an empty range,
// and more than 0 for any other, however rounding went.
double range_work(const std::vector<double>& after, std::size_t begin, std::size_t end);

// Where a thief cuts the range [begin, end) of two positions or more: at the mid whose two parts
// [begin, mid) and [mid, end) are each nearest half the range's estimated work (ties: the back
// part the smaller), with at least one position on each side: begin < mid < end. (A range of one
// position gives begin.)
std::size_t steal_split(const std::vector<double>& after, std::size_t begin, std::size_t end);

// A steal from the non-empty range [begin, end): the thief's new range and what the victim keeps.
// Positions before `begin` are claimed already and in neither part.
struct StealCut {
  std::size_t thief_begin = 0, thief_end = 0;
  std::size_t victim_begin = 0, victim_end = 0;
};

// Every node's list, laid out for its threads and put end to end in one space of positions:
// what the runner claims from and steals in, and what the simulator replays. Worker w (the
// workers of node 0 first, then node 1's, ...) starts with the range
// [range_begin[w], range_begin[w + 1]); node k's positions are [node_begin[k], node_begin[k+1]).
struct WorkLayout {
  std::vector<std::uint32_t> ids;         // indices into the costs, in claim order
  std::vector<std::size_t> node_begin;    // nodes + 1 entries
  std::vector<std::size_t> worker_begin;  // node k's workers: [worker_begin[k], worker_begin[k+1])
  std::vector<std::size_t> range_begin;   // workers + 1 entries
  std::vector<int> node_of;               // worker w's node
  std::vector<std::size_t> chunk;         // node k's claim_size
  std::vector<double> after;              // suffix_costs(ids, costs)
  // Which half a thief takes: the front (the largest tasks left, in a largest-first layout) or
  // the back (in plan order, so that the owner goes on with its neighbours).
  bool steal_front = true;

  std::size_t workers() const { return node_of.size(); }
  // The node whose list holds `position` (< ids.size()); a range never spans two nodes.
  int node_at(std::size_t position) const;
};

// Deals `order` to nodes of `threads[k]` threads (deal_to_arenas), then each node's list to its
// threads (split_among_threads, with `keep_order`). Thieves take the front half of a range, or,
// with `keep_order`, the back half. With one node and `keep_order`, `order` reaches the layout
// with one copy.
WorkLayout lay_out_work(std::vector<std::uint32_t> order, const std::vector<double>& costs,
                        const std::vector<int>& threads, bool keep_order);

// How a thief cuts the non-empty range [begin, end): at steal_split, taking the front part or
// the back part as the layout says; a range of one position goes to the thief whole.
StealCut cut_for_steal(const WorkLayout& layout, std::size_t begin, std::size_t end);

// The range a worker of node `node` steals from, given `left_of(w)`, the estimated work still in
// worker w's range (range_work; 0: empty): the richest range of the thief's own node, or, when
// every range there is empty, the richest of all (ties to the lower worker); -1 when every range
// is empty. A scan of the node's ranges per steal: cheap at the rate steals happen, and
// deterministic, so the simulator replays the runner's choices (no random victims).
template <class LeftOf>
int range_to_steal(const WorkLayout& layout, int node, LeftOf&& left_of) {
  auto richest = [&](std::size_t from, std::size_t to) {
    int best = -1;
    double most = 0;
    for (std::size_t w = from; w < to; ++w)
      if (const double left = left_of(w); left > most) {
        most = left;
        best = static_cast<int>(w);
      }
    return best;
  };
  const auto k = static_cast<std::size_t>(node);
  const int own = richest(layout.worker_begin[k], layout.worker_begin[k + 1]);
  return own >= 0 ? own : richest(0, layout.workers());
}

}  // namespace nq::detail
