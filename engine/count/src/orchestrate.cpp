#include "engine/count/orchestrate.hpp"

namespace nq {

Expected<ResumePoint> resume_run(const Plan& plan, SubproblemJournal* journal,
                                 std::uint32_t cross_check) {
  if (!journal) return resume_point(plan, {});
  auto done = journal->begin(run_identity(plan, cross_check));
  if (!done) return done.error();
  return resume_point(plan, *done);
}

void start_monitor(Monitor& monitor, const Plan& plan, std::span<const std::uint64_t> costs,
                   const ResumePoint& resumed) {
  std::uint64_t total_cost = 0;
  for (std::uint64_t c : costs) total_cost += c;
  std::uint64_t resumed_cost = total_cost;
  for (std::uint64_t i : resumed.todo) resumed_cost -= costs[i];
  monitor.cost_total.store(total_cost);
  monitor.cost_resumed.store(resumed_cost);
  monitor.cost_done.store(resumed_cost);
  monitor.subproblems_done.store(resumed.done.subproblems);
  monitor.subproblems_total.store(plan.size());
}

Expected<void> finish_count(const Plan& plan, Partial part, const ResumePoint& resumed,
                            CountResult& result, bool symmetric_complete) {
  part.join(resumed.done);
  result.nodes = part.nodes;
  result.subproblems = part.subproblems;
  result.subproblems_total = plan.size();
  result.subproblems_resumed = resumed.done.subproblems;
  result.classes = plan.classes;
  result.split_rows = plan.split_rows;
  result.cancelled = part.subproblems < plan.size() || !symmetric_complete;
  auto orbits = finish_orbits(part.weighted, plan.sym4, plan.sym2);
  if (!orbits.ok()) {
    if (!result.cancelled) return orbits.error();
    orbits = OrbitCounts{part.weighted};  // partial counts: orbits are not meaningful yet
  }
  result.orbits = *orbits;
  return {};
}

}  // namespace nq
