// Shards, and the campaign's journals put together: merge_journals, campaign_status and
// audit_journals (campaign.hpp), and a shard's part of count() (shard.hpp).
#include "engine/count/campaign.hpp"

#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <queue>
#include <utility>

#include "engine/count/count.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/src/shard.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"

namespace nq {

std::vector<std::uint32_t> shard_assignment(std::span<const std::uint64_t> costs,
                                            std::uint32_t shards) {
  std::vector<std::uint32_t> shard_of(costs.size(), 0);
  if (shards <= 1) return shard_of;
  std::vector<std::uint64_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::uint64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&costs](std::uint64_t a, std::uint64_t b) { return costs[a] > costs[b]; });
  // The least loaded shard on top; the lower number first among equals.
  using Load = std::pair<std::uint64_t, std::uint32_t>;
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> loads;
  for (std::uint32_t s = 0; s < shards; ++s) loads.push({0, s});
  for (std::uint64_t task : order) {
    Load least = loads.top();
    loads.pop();
    shard_of[task] = least.second;
    // A task of cost 0 still counts as 1: a shard of free tasks is no shard of none.
    least.first += std::max<std::uint64_t>(costs[task], 1);
    loads.push(least);
  }
  return shard_of;
}

std::vector<std::uint64_t> shard_tasks(std::span<const std::uint64_t> costs, std::uint32_t shard,
                                       std::uint32_t shards) {
  const std::vector<std::uint32_t> shard_of = shard_assignment(costs, shards);
  std::vector<std::uint64_t> tasks;
  for (std::uint64_t i = 0; i < shard_of.size(); ++i)
    if (shard_of[i] == shard) tasks.push_back(i);
  return tasks;
}

namespace detail {

Expected<ShardResume> resume_shard(const Plan& plan, std::span<const std::uint64_t> costs,
                                   const RunIdentity& run, SubproblemJournal* journal) {
  if (run.shards > plan.size())
    return Error{"shard " + std::to_string(run.shard) + "/" + std::to_string(run.shards) +
                 ": the plan has " + std::to_string(plan.size()) + " tasks, fewer than " +
                 std::to_string(run.shards) +
                 " shards; cut it finer (--tasks, --split-depth) or use fewer shards"};
  std::vector<FinishedSubproblem> done;
  if (journal) {
    auto begun = journal->begin(run);
    if (!begun) return begun.error();
    done = std::move(begun.value());
  }
  ShardResume out;
  const std::vector<std::uint32_t> shard_of = shard_assignment(costs, run.shards);
  for (const FinishedSubproblem& f : done)
    if (f.index < shard_of.size() && shard_of[f.index] != run.shard)
      return Error{"the checkpoint records subproblem " + std::to_string(f.index) +
                   ", which is not in shard " + std::to_string(run.shard) + "/" +
                   std::to_string(run.shards) + " of this plan"};
  out.resume = resume_point(plan, done);
  std::vector<std::uint64_t>& todo = out.resume.todo;
  todo.erase(
      std::remove_if(todo.begin(), todo.end(),
                     [&shard_of, &run](std::uint64_t i) { return shard_of[i] != run.shard; }),
      todo.end());
  out.tasks = out.resume.done.subproblems + todo.size();
  out.costs.assign(costs.begin(), costs.end());
  for (std::uint64_t i = 0; i < out.costs.size(); ++i)
    if (shard_of[i] != run.shard) out.costs[i] = 0;
  return out;
}

void finish_shard(std::uint32_t shard, std::uint32_t shards, std::uint64_t shard_size,
                  CountResult& result) {
  result.shard = shard;
  result.shards = shards;
  result.subproblems_total = shard_size;
  result.cancelled = result.subproblems < shard_size;
  const u128 total = result.orbits.total;
  result.orbits = OrbitCounts{};
  result.orbits.total = total;  // the shard's weighted sum only: merge_journals has the rest
}

}  // namespace detail

namespace {

// The plan a journal's header describes, without its shard, kernel or cross-check.
std::string describe_plan(const RunIdentity& run) {
  return "n = " + std::to_string(run.n) + ", " + run.route + " route, split depth " +
         std::to_string(run.split_rows) + ", " + std::to_string(run.classes) + " classes, " +
         std::to_string(run.subproblems) + " tasks";
}

bool same_plan(const RunIdentity& a, const RunIdentity& b) {
  return a.n == b.n && a.split_rows == b.split_rows && a.classes == b.classes &&
         a.subproblems == b.subproblems && a.route == b.route;
}

// A campaign's journals, read, and the plan they are of.
struct Campaign {
  std::vector<JournalContents> journals;
  RunIdentity run;  // the plan's (shard fields 0)
  std::uint32_t shards = 0;
  Plan plan;
  std::vector<std::string> warnings;
};

// The plan of `run`, as a count of it makes it; the row-split plan without its Burnside terms
// (a whole-board search that takes minutes on the largest boards: merge_journals makes it once
// the journals are complete).
Expected<Plan> plan_of(const RunIdentity& run) {
  if (run.n < 4 || run.n > kMaxN)
    return Error{"a campaign's board has 4 to " + std::to_string(kMaxN) + " rows; the journals' " +
                 "have " + std::to_string(run.n)};
  Plan plan;
  if (run.route == "canonical")
    plan = plan_canonical(run.n, run.split_rows);
  else if (run.route == "classic")
    plan = plan_classic(run.n, run.split_rows);
  else if (run.route == "rowsplit-rank")
    plan = plan_rowsplit(run.n, /*fixed_counts=*/false, {}, run.subproblems);
  else
    return Error{"the journals' route '" + run.route + "' is no plan this nqcount makes"};
  const RunIdentity made = run_identity(plan);
  if (!same_plan(made, run))
    return Error{"the journals are of a plan (" + describe_plan(run) +
                 ") that this nqcount does not make: it plans " + describe_plan(made)};
  return plan;
}

Expected<Campaign> load_campaign(std::span<const std::string> paths) {
  if (paths.empty()) return Error{"no journal given"};
  Campaign c;
  std::string shard_path;  // the first shard journal's, which says the campaign's K
  for (const std::string& path : paths) {
    auto read = read_journal(path);
    if (!read) return read.error();
    JournalContents& j = read.value();
    if (j.torn_bytes)
      c.warnings.push_back("checkpoint '" + path + "': a torn final record (" +
                           std::to_string(j.torn_bytes) +
                           " bytes: a write in progress, or cut short) ignored");
    if (!c.journals.empty() && !same_plan(j.run, c.journals.front().run))
      return Error{"journals of different counts: '" + c.journals.front().path + "' has " +
                   describe_plan(c.journals.front().run) + "; '" + path + "' has " +
                   describe_plan(j.run)};
    if (j.run.shards && !shard_path.empty() && c.shards != j.run.shards)
      return Error{"journals of different campaigns: '" + shard_path + "' is a shard of " +
                   std::to_string(c.shards) + ", '" + path + "' a shard of " +
                   std::to_string(j.run.shards)};
    if (j.run.shards && shard_path.empty()) {
      shard_path = path;
      c.shards = j.run.shards;
    }
    c.journals.push_back(std::move(j));
  }
  c.run = c.journals.front().run;
  c.run.shard = c.run.shards = 0;
  c.run.cross_check = 0;
  auto plan = plan_of(c.run);
  if (!plan) return plan.error();
  c.plan = std::move(plan.value());
  return c;
}

// Each task's record, merged: its count, nodes and the file that gave it first.
constexpr std::uint64_t kNotRecorded = ~std::uint64_t{0};
struct Merged {
  std::vector<std::uint64_t> solutions, nodes;
  std::vector<std::uint32_t> file;
};

void merge_records(const Campaign& c, Merged& m, MergeResult& out) {
  const std::size_t tasks = c.plan.size();
  m.solutions.assign(tasks, kNotRecorded);
  m.nodes.assign(tasks, 0);
  m.file.assign(tasks, 0);
  for (std::uint32_t f = 0; f < c.journals.size(); ++f)
    for (const FinishedSubproblem& r : c.journals[f].records) {
      std::uint64_t& seen = m.solutions[r.index];
      if (seen == kNotRecorded) {
        seen = r.tally.solutions;
        m.nodes[r.index] = r.tally.nodes;
        m.file[r.index] = f;
        ++out.covered;
      } else if (seen == r.tally.solutions) {
        ++out.duplicates;
      } else {
        MergeConflict x;
        x.task = r.index;
        x.solutions[0] = seen;
        x.solutions[1] = r.tally.solutions;
        x.files[0] = c.journals[m.file[r.index]].path;
        x.files[1] = c.journals[f].path;
        out.conflicts.push_back(std::move(x));
      }
    }
}

void find_gaps(const Campaign& c, const Merged& m, MergeResult& out) {
  const std::uint32_t shards = std::max<std::uint32_t>(c.shards, 1);
  std::vector<std::uint32_t> shard_of(c.plan.size(), 0);
  if (c.shards > 1) shard_of = shard_assignment(estimate_costs(c.plan), c.shards);
  std::vector<ShardGap> gaps(shards);
  for (std::uint32_t s = 0; s < shards; ++s) gaps[s].shard = s;
  for (const JournalContents& j : c.journals)
    if (j.run.shards) gaps[j.run.shard].journal_given = true;
  for (std::uint64_t i = 0; i < c.plan.size(); ++i) {
    ShardGap& g = gaps[shard_of[i]];
    ++g.tasks;
    if (m.solutions[i] != kNotRecorded) continue;
    ++g.missing;
    if (g.sample.size() < kGapSample) g.sample.push_back(i);
  }
  for (ShardGap& g : gaps)
    if (g.missing) out.gaps.push_back(std::move(g));
}

}  // namespace

Expected<MergeResult> merge_journals(std::span<const std::string> paths) {
  return errors_as_values([&]() -> Expected<MergeResult> {
    auto loaded = load_campaign(paths);
    if (!loaded) return loaded.error();
    const Campaign& c = *loaded;
    MergeResult out;
    out.run = c.run;
    out.shards = c.shards;
    out.tasks = c.plan.size();
    out.warnings = c.warnings;
    Merged m;
    merge_records(c, m, out);
    if (out.covered < out.tasks) find_gaps(c, m, out);
    if (!out.complete()) return out;
    Plan& plan = loaded.value().plan;
    if (plan.rowsplit()) {
      const detail::SymmetricCounts sym = detail::whole_board_symmetric(plan.n);
      plan.sym4 = sym.sym4;
      plan.sym2 = sym.sym2;
    }
    u128 weighted = 0;
    for (std::uint64_t i = 0; i < out.tasks; ++i) {
      weighted += static_cast<u128>(c.plan.weight(i)) * m.solutions[i];
      out.nodes += m.nodes[i];
    }
    auto orbits = finish_orbits(weighted, c.plan.sym4, c.plan.sym2);
    if (!orbits)
      out.inconsistent =
          "the journals cover every task, but their counts do not add up to whole orbits (a "
          "count recorded wrong: run nqcount audit): " +
          orbits.error().message;
    else
      out.orbits = *orbits;
    return out;
  });
}

namespace {

// The campaign's rate: the estimated cost of the records saved at the time marks in
// (now - 1 h, now], a fraction of `total` per hour.
double fraction_per_hour(const Campaign& c, std::span<const std::uint64_t> costs,
                         std::uint64_t total, std::uint64_t now_ms) {
  constexpr std::uint64_t kHour = 3'600'000;
  const std::uint64_t from = now_ms > kHour ? now_ms - kHour : 0;
  std::uint64_t start = now_ms;  // the first journal's creation, where it is in the hour
  for (const JournalContents& j : c.journals)
    if (j.created_ms) start = std::min(start, j.created_ms);
  start = std::max(start, from);
  std::uint64_t cost = 0;
  for (const JournalContents& j : c.journals) {
    std::size_t begin = 0;
    for (const auto& [ms, end] : j.marks) {
      if (ms > from && ms <= now_ms)
        for (std::size_t r = begin; r < end; ++r) cost += costs[j.records[r].index];
      begin = end;
    }
  }
  if (now_ms <= start || total == 0) return 0;
  const double hours = static_cast<double>(now_ms - start) / kHour;
  return static_cast<double>(cost) / static_cast<double>(total) / hours;
}

}  // namespace

Expected<CampaignStatus> campaign_status(std::span<const std::string> paths, std::uint64_t now_ms) {
  return errors_as_values([&]() -> Expected<CampaignStatus> {
    auto loaded = load_campaign(paths);
    if (!loaded) return loaded.error();
    const Campaign& c = *loaded;
    CampaignStatus out;
    out.run = c.run;
    out.shards = c.shards;
    out.warnings = c.warnings;
    const std::vector<std::uint64_t> costs = estimate_costs(c.plan);
    const std::uint32_t shards = std::max<std::uint32_t>(c.shards, 1);
    std::vector<std::uint32_t> shard_of(costs.size(), 0);
    if (c.shards > 1) shard_of = shard_assignment(costs, c.shards);
    out.by_shard.resize(shards);
    for (std::uint32_t s = 0; s < shards; ++s) out.by_shard[s].shard = s;
    std::vector<bool> done(costs.size(), false);
    for (const JournalContents& j : c.journals) {
      ShardState& mine = out.by_shard[j.run.shards ? j.run.shard : 0];
      if (mine.path.empty()) mine.path = j.path;
      if (!j.marks.empty()) mine.last_ms = std::max(mine.last_ms, j.marks.back().first);
      for (const FinishedSubproblem& r : j.records) done[r.index] = true;
    }
    for (std::uint64_t i = 0; i < costs.size(); ++i) {
      ShardState& s = out.by_shard[shard_of[i]];
      ++s.tasks;
      s.cost += costs[i];
      if (!done[i]) continue;
      ++s.done;
      s.cost_done += costs[i];
    }
    for (const ShardState& s : out.by_shard) {
      out.tasks += s.tasks;
      out.tasks_done += s.done;
      out.cost += s.cost;
      out.cost_done += s.cost_done;
      (s.done == s.tasks ? out.done : s.done == 0 ? out.not_started : out.partial) += 1;
    }
    out.fraction_per_hour = fraction_per_hour(c, costs, out.cost, now_ms);
    const double left =
        out.cost ? 1.0 - static_cast<double>(out.cost_done) / static_cast<double>(out.cost) : 0;
    if (left <= 0)
      out.eta_hours = 0;
    else if (out.fraction_per_hour > 0)
      out.eta_hours = left / out.fraction_per_hour;
    return out;
  });
}

namespace {

// The kernel that made the journals, where this machine can run it; else the route's own.
const Kernel& recording_kernel(const Campaign& c) {
  for (const JournalContents& j : c.journals)
    if (const Kernel* k = find_kernel(j.run.kernel); k && !j.run.kernel.empty() && k->supported())
      return *k;
  if (c.plan.rowsplit()) return *find_kernel("join");
  if (c.plan.classic()) return *find_kernel("reference");
  return best_kernel();
}

}  // namespace

Expected<AuditResult> audit_journals(std::span<const std::string> paths, const AuditConfig& config,
                                     Monitor* monitor) {
  return errors_as_values([&]() -> Expected<AuditResult> {
    if (!(config.fraction > 0 && config.fraction <= 1))
      return Error{"the audit's fraction must be above 0 and at most 1, got " +
                   std::to_string(config.fraction)};
    auto loaded = load_campaign(paths);
    if (!loaded) return loaded.error();
    const Campaign& c = *loaded;
    AuditResult out;
    out.run = c.run;
    Merged m;
    MergeResult ignored;
    merge_records(c, m, ignored);
    std::vector<std::uint64_t> sample;
    for (std::uint64_t i = 0; i < m.solutions.size(); ++i) {
      if (m.solutions[i] == kNotRecorded) continue;
      ++out.recorded;
      if (cross_check_selected(config.fraction, config.seed, i)) sample.push_back(i);
    }
    out.sampled = sample.size();
    const Kernel& kernel = recording_kernel(c);
    out.kernel = kernel.name;
    out.second_kernel = cross_check_kernel(kernel, c.run.n).name;
    CountConfig count;
    count.n = c.run.n;
    count.threads = config.threads;
    count.kernel = kernel.name;
    count.split_rows = c.plan.rowsplit() ? -1 : c.run.split_rows;
    count.cross_check = 0;
    count.recheck = true;  // the second kernel counts the selection
    CollectingJournal recounts;
    count.journal = &recounts;
    auto counted = count_selected(count, c.plan, sample, monitor);
    if (!counted) return counted.error();
    out.seconds = counted->seconds;
    out.cancelled = counted->cancelled;
    std::vector<FinishedSubproblem> again = recounts.take();
    std::sort(
        again.begin(), again.end(),
        [](const FinishedSubproblem& a, const FinishedSubproblem& b) { return a.index < b.index; });
    for (const JournalContents& j : c.journals)
      for (const FinishedSubproblem& r : j.records) {
        const auto it = std::lower_bound(
            again.begin(), again.end(), r.index,
            [](const FinishedSubproblem& a, std::uint64_t i) { return a.index < i; });
        if (it == again.end() || it->index != r.index) continue;
        if (it->tally.solutions != r.tally.solutions)
          out.mismatches.push_back({r.index, r.tally.solutions, it->tally.solutions, j.path});
      }
    return out;
  });
}

}  // namespace nq
