// Kernel throughput: each kernel counts every subproblem of the canonical plan of an n-board,
// on one thread, in the runner's batches. Reports nodes/s (per core: the benchmark is single
// threaded; rates use the process CPU time, which a busy shared machine disturbs less than
// the wall clock). Kernels this CPU cannot run are reported as skipped.
//   build/perf/nq_bench_kernels --benchmark_filter=n:16
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engine/count/plan.hpp"
#include "kernels/kernels.hpp"

namespace {

// `batch`: subproblems per kernel call (the runner hands a kernel at most kMaxClaim of
// count/layout.hpp, often fewer).
void count_plan(benchmark::State& state, const nq::Kernel* kernel, int n, std::size_t batch) {
  if (!kernel->supported()) {
    state.SkipWithError("this CPU cannot run this kernel");
    return;
  }
  const nq::Plan plan = nq::plan_canonical(n, nq::default_split_rows(n));
  const std::span<const nq::Subproblem> subs(plan.subproblems);
  std::vector<nq::Tally> tallies(subs.size());
  std::uint64_t nodes = 0;
  for (auto _ : state) {
    for (std::size_t b = 0; b < subs.size(); b += batch) {
      const std::size_t m = std::min(batch, subs.size() - b);
      kernel->count(subs.subspan(b, m), std::span(tallies).subspan(b, m));
    }
    for (const nq::Tally& t : tallies) nodes += t.nodes;
    benchmark::DoNotOptimize(tallies.data());
  }
  state.counters["nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
  state.counters["subproblems"] = static_cast<double>(subs.size());
}

void register_all() {
  auto add = [](const nq::Kernel& k, int n, std::size_t batch) {
    const std::string name = "kernel:" + std::string(k.name) + "/n:" + std::to_string(n) +
                             "/batch:" + std::to_string(batch);
    benchmark::RegisterBenchmark(name.c_str(), count_plan, &k, n, batch)
        ->Unit(benchmark::kMillisecond);
  };
  for (int n : {12, 14, 15, 16})
    for (const nq::Kernel& k : nq::all_kernels()) add(k, n, 64);
  for (std::size_t batch : {8, 1024})  // lanes refill from a short queue, or a long one
    for (const nq::Kernel& k : nq::all_kernels()) add(k, 15, batch);
}

[[maybe_unused]] const bool registered =
    (register_all(), true);  // before BENCHMARK_MAIN's main() runs

}  // namespace

BENCHMARK_MAIN();
