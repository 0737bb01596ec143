// The counting engine's public interface: a plain config in, a result (or an error) out
// (config.hpp). The engine never prints and never exits. The library's other public parts have
// headers of their own: plan.hpp (the plans), memory.hpp, estimate.hpp, simulate.hpp and
// task_stats.hpp (the estimate and the simulators), known.hpp, topology.hpp, and for a cluster
// driver such as nqcount-mpi's root dealer.hpp, orchestrate.hpp, journal.hpp and reducer.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "base/types.hpp"
#include "engine/count/config.hpp"
#include "engine/count/plan.hpp"

namespace nq {

struct Kernel;

// The cross-check fraction for an n-board when none is given: 0.001 beyond the known table
// (n > 27), where no published count can catch a wrong one; 0 within it.
double default_cross_check(int n);

// The fraction a run cross-checks: config.cross_check, or default_cross_check(n) when it is -1.
double cross_check_fraction(const CountConfig& config);

// Whether subproblem (task) `id` of the plan is cross-checked: splitmix64(seed ^ id) below
// fraction * 2^64 (every one for fraction >= 1, none for fraction <= 0).
bool cross_check_selected(double fraction, std::uint64_t seed, std::uint64_t id);

// The journal's record of a cross-check choice (RunIdentity::cross_check): a 32-bit hash of the
// fraction and the seed, never 0; 0 when the fraction is 0 (off).
std::uint32_t cross_check_tag(double fraction, std::uint64_t seed);

// The independent kernel that counts the cross-checked subproblems of a run of an n-board on
// `kernel`: the best backtracking kernel for the join (from n = 24, where the search takes hours
// a subproblem, the join's own baseline build cut elsewhere: join_check_kernel in kernels.hpp)
// and the reference kernel, the scalar kernel for the lane-parallel ones and the scalar
// search's variants, and the top-to-bottom variant (scalar-rows, kernels/src/ordered.cpp) for the
// scalar kernel.
const Kernel& cross_check_kernel(const Kernel& kernel, int n);

// Refuses (an Error) a run whose estimated peak memory is above config.memory_limit.
Expected<CountResult> count(const CountConfig& config, Monitor* monitor = nullptr);

// The plan count() makes for `config` (deterministic: every MPI rank makes the same one), after
// the same checks. n >= 4.
// `control` bounds and stops it (plan.hpp): a stopped plan comes back with Plan::stopped set.
Expected<Plan> make_plan(const CountConfig& config, const PlanControl& control = {});

// Counts only the subproblems `indices` of `plan` (made by make_plan(config)), each once in
// whatever order and however often it is named, recording each in config.journal if there is
// one (without calling its begin()). The orbit split needs the whole plan, so `orbits.total` is
// the weighted sum of the selection and the rest is 0. Its cost beside the counting grows with
// the selection, not the plan (an MPI rank counts many small selections of a large plan). The
// calling thread takes part, as in count(): a caller that asks for many selections in turn
// counts them with its caches and scratch warm.
Expected<CountResult> count_selected(const CountConfig& config, const Plan& plan,
                                     std::span<const std::uint64_t> indices,
                                     Monitor* monitor = nullptr);

// Every solution of a small board classified one by one by its stabilizer under D4 (the
// route for boards too small for a frame, n < 4, where a solution may be fixed by a
// reflection: n = 1).
OrbitCounts classify_by_enumeration(int n);

}  // namespace nq
