// The join kernel on slices of the row-split plan, one thread: `windows` runs of `run`
// consecutive ranks, evenly spaced over the plan (consecutive, because the kernel reuses a
// half's bottom part from one subproblem to the next, as it does in a count). The slices are
// the same for every build, so two builds of this program compare the kernel side by side.
// Rates use the process CPU time. Reports weighted solutions/s and subproblems/s.
//   build/perf/nq_bench_join --benchmark_filter=n:20
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engine/count/plan.hpp"
#include "kernels/kernels.hpp"

namespace {

void join_slice(benchmark::State& state, int n, int windows, int run) {
  const nq::Kernel* join = nq::find_kernel("join");
  // `windows` runs of `run` consecutive subproblems, spread over the plan, as a count meets them.
  std::vector<nq::Subproblem> subproblems;
  std::vector<std::uint8_t> weights;
  const nq::Plan plan = nq::plan_rowsplit(n, false);
  for (int w = 0; w < windows; ++w)
    for (std::uint64_t r = plan.splits * static_cast<std::uint64_t>(2 * w + 1) / (2 * windows),
                       taken = 0;
         r < plan.splits && taken < static_cast<std::uint64_t>(run); ++r)
      if (const nq::SplitSubproblem s = nq::split_subproblem(plan, r); s.weight != 0) {
        subproblems.push_back(s.subproblem);
        weights.push_back(static_cast<std::uint8_t>(s.weight));
        ++taken;
      }
  if (join->prepare) join->prepare(n);
  double solutions = 0, nodes = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < subproblems.size(); ++i) {
      nq::Tally t;
      join->count(std::span(&subproblems[i], 1), std::span(&t, 1));
      solutions += static_cast<double>(t.solutions) * weights[i];
      nodes += static_cast<double>(t.nodes);
    }
  }
  state.counters["solutions/s"] = benchmark::Counter(solutions, benchmark::Counter::kIsRate);
  state.counters["subproblems/s"] = benchmark::Counter(
      static_cast<double>(subproblems.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["placements/s"] = benchmark::Counter(nodes, benchmark::Counter::kIsRate);
}

void register_all() {
  // {n, windows, run}: about a tenth of a second to a few seconds a slice. The short runs of
  // n = 21 and 22 make every half's bottom part afresh once in 4 subproblems, where a count
  // makes one again for 1 in 7 to 25 (n = 18 to 20, one thread): the long runs weigh the bottom
  // parts as a count does.
  const int sizes[][3] = {{18, 16, 32}, {19, 16, 16},  {20, 16, 16}, {21, 16, 4},
                          {22, 8, 4},   {21, 12, 120}, {22, 8, 40}};
  for (const auto& s : sizes) {
    const std::string name = "join/n:" + std::to_string(s[0]) + "/windows:" + std::to_string(s[1]) +
                             "/run:" + std::to_string(s[2]);
    benchmark::RegisterBenchmark(name.c_str(), join_slice, s[0], s[1], s[2])
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
  }
}

[[maybe_unused]] const bool registered = (register_all(), true);

}  // namespace

BENCHMARK_MAIN();
