// The bookkeeping around counting a plan, shared by count() and by nqcount-mpi's root (which
// deals the same plan to ranks instead of arenas): resume from a journal, the progress
// monitor's cost totals (from the plan's cost estimate, estimate_costs), and the result from the
// sums. Never prints.
#pragma once

#include <cstdint>
#include <span>

#include "base/types.hpp"
#include "engine/count/config.hpp"
#include "engine/count/journal.hpp"
#include "engine/count/plan.hpp"
#include "engine/count/reducer.hpp"

namespace nq {

// What is done and what is left: with a journal, what its begin() says (an Error when it is
// another run's journal, and the file is then left as it was); without one, nothing is done.
// `cross_check` is the run's cross_check_tag(), part of what the journal must match.
Expected<ResumePoint> resume_run(const Plan& plan, SubproblemJournal* journal,
                                 std::uint32_t cross_check);

// Sets the monitor's totals: subproblems, estimated cost of the plan and of what was resumed
// (done before this run: not part of its rate).
void start_monitor(Monitor& monitor, const Plan& plan, std::span<const std::uint64_t> costs,
                   const ResumePoint& resumed);

// Fills `result`'s counts from what this run counted (`part`) and what it resumed: nodes,
// subproblems, cancelled, and the orbits (the plan's symmetric counts must be set). A cancelled
// run keeps its partial total in orbits.total; an inconsistent complete one is an Error.
// `symmetric_complete` is false when the plan's symmetric counts were cancelled before they
// were found: the run is then cancelled too.
Expected<void> finish_count(const Plan& plan, Partial part, const ResumePoint& resumed,
                            CountResult& result, bool symmetric_complete = true);

}  // namespace nq
