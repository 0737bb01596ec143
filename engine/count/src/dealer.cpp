#include "engine/count/dealer.hpp"

#include <algorithm>
#include <numeric>

#include "engine/count/count.hpp"

namespace nq {

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

Dealer::Dealer(const Plan& plan, const std::vector<std::uint64_t>& todo,
               const std::vector<std::uint64_t>& costs, SubproblemJournal* journal,
               Monitor& progress, std::vector<int> threads, double check_fraction,
               std::uint64_t check_seed, std::size_t batch_limit)
    : plan_(plan),
      costs_(costs),
      journal_(journal),
      progress_(progress),
      threads_(std::move(threads)),
      all_threads_(static_cast<std::size_t>(std::accumulate(threads_.begin(), threads_.end(), 0))),
      check_fraction_(check_fraction),
      check_seed_(check_seed),
      batch_limit_(batch_limit),
      by_rank_(threads_.size(), 0) {
  // Runs of consecutive tasks, the largest estimated cost first (dealer_order says why).
  for (std::size_t k : dealer_order(
           todo.size(), [&](std::size_t k) { return costs[todo[k]]; },
           dealer_run(todo.size(), all_threads_)))
    todo_.push_back(todo[k]);
}

DealtBatch Dealer::take(int rank) {
  std::lock_guard lock(mu_);
  const std::size_t left = todo_.size() - next_;
  const auto threads = static_cast<std::size_t>(threads_[static_cast<std::size_t>(rank)]);
  const std::size_t cap = dealer_batch_cap(plan_.size(), threads, all_threads_);
  DealtBatch b;
  for (const bool own : {false, true}) {
    if (own && left > 0) break;
    for (auto it = checks_.begin(); it != checks_.end() && b.indices.size() < cap;)
      if ((it->second != rank) != own) {
        b.indices.push_back(it->first);
        it = checks_.erase(it);
      } else {
        ++it;
      }
    if (!b.indices.empty()) {
      b.check = true;
      out_ += b.indices.size();
      return b;
    }
  }
  std::size_t batch = dealer_batch(left, plan_.size(), threads, all_threads_);
  if (batch_limit_ > 0) batch = std::min(batch, batch_limit_);
  const std::size_t end = dealer_batch_end(next_, todo_.size(), batch,
                                           [&](std::size_t at) { return costs_[todo_[at]]; });
  b.indices.assign(todo_.begin() + static_cast<std::ptrdiff_t>(next_),
                   todo_.begin() + static_cast<std::ptrdiff_t>(end));
  next_ = end;
  for (std::uint64_t i : b.indices) cost_out_ += costs_[i];
  out_ += b.indices.size();
  return b;
}

void Dealer::stop_dealing() {
  std::lock_guard lock(mu_);
  next_ = todo_.size();
  checks_.clear();
  stopped_ = true;
}

bool Dealer::may_deal_more() {
  std::lock_guard lock(mu_);
  return !stopped_ && check_fraction_ > 0 && (out_ > 0 || !checks_.empty());
}

void Dealer::deliver(int rank, const std::vector<FinishedSubproblem>& done, bool check) {
  if (done.empty()) return;
  std::vector<FinishedSubproblem> settled;
  {
    std::lock_guard lock(mu_);
    out_ -= std::min(out_, done.size());
    for (const FinishedSubproblem& f : done) {
      if (check) {
        const auto it = pending_.find(f.index);
        if (it == pending_.end()) continue;  // not ours to check (cannot happen)
        const First& first = it->second;
        if (first.tally.solutions != f.tally.solutions && failure_.empty())
          failure_ =
              "cross-check failed: subproblem " + std::to_string(f.index) + ": rank " +
              std::to_string(first.rank) + " counted " + std::to_string(first.tally.solutions) +
              ", rank " + std::to_string(rank) +
              " counted it again with the second kernel: " + std::to_string(f.tally.solutions);
        if (first.tally.solutions == f.tally.solutions) {
          settled.push_back({f.index, first.tally});
          ++checked_;
          if (first.rank != rank) ++checked_elsewhere_;
        }
        pending_.erase(it);
      } else {
        by_rank_[static_cast<std::size_t>(rank)] += 1;
        if (check_fraction_ > 0 && cross_check_selected(check_fraction_, check_seed_, f.index)) {
          pending_[f.index] = {f.tally, rank};
          checks_.emplace_back(f.index, rank);
        } else {
          settled.push_back(f);
        }
      }
    }
  }
  record(settled);
}

Partial Dealer::sum() {
  std::lock_guard lock(mu_);
  return sum_;
}

std::pair<std::uint64_t, std::uint64_t> Dealer::cost_out_and_in() {
  std::lock_guard lock(mu_);
  return {cost_out_, cost_in_};
}

std::vector<std::uint64_t> Dealer::by_rank() {
  std::lock_guard lock(mu_);
  return by_rank_;
}

std::uint64_t Dealer::checked() {
  std::lock_guard lock(mu_);
  return checked_;
}

std::uint64_t Dealer::checked_elsewhere() {
  std::lock_guard lock(mu_);
  return checked_elsewhere_;
}

std::string Dealer::failure() {
  std::lock_guard lock(mu_);
  return failure_;
}

void Dealer::record(const std::vector<FinishedSubproblem>& done) {
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
  progress_.subproblems_done.fetch_add(done.size(), std::memory_order_relaxed);
  progress_.nodes_done.fetch_add(nodes, std::memory_order_relaxed);
  progress_.cost_done.fetch_add(cost, std::memory_order_relaxed);
}

}  // namespace nq
