// The algebra tools side by side, for ratios taken in one run (the machine is shared):
// enumerating every solution (what `list` does) against counting them with the engine, the
// Rivin-Zabih DP against the same, and the algebraic orbit search against the enumeration.
#include <benchmark/benchmark.h>

#include "engine/algebra/dp.hpp"
#include "engine/algebra/orbits.hpp"
#include "engine/count/count.hpp"
#include "kernels/enumerate.hpp"

namespace {

void BM_EnumerateSolutions(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::uint64_t solutions = 0;
  for (auto _ : state) {
    std::uint64_t found = 0;
    nq::for_each_solution(n, [&](const int* rows) {
      found += static_cast<std::uint64_t>(rows[0] >= 0);
      return true;
    });
    benchmark::DoNotOptimize(found);
    solutions += found;
  }
  state.counters["solutions/s"] =
      benchmark::Counter(static_cast<double>(solutions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EnumerateSolutions)->Arg(12)->Arg(14)->Unit(benchmark::kMillisecond);

void BM_CountEngineOneThread(benchmark::State& state) {
  nq::CountConfig config;
  config.n = static_cast<int>(state.range(0));
  config.threads = 1;
  std::uint64_t solutions = 0;
  for (auto _ : state) {
    auto r = nq::count(config);
    solutions += static_cast<std::uint64_t>(r->orbits.total);
  }
  state.counters["solutions/s"] =
      benchmark::Counter(static_cast<double>(solutions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CountEngineOneThread)->Arg(12)->Arg(14)->Unit(benchmark::kMillisecond);

void BM_DpClosedLines(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::uint64_t solutions = 0;
  for (auto _ : state) solutions += nq::count_by_closed_lines(n)->total;
  state.counters["solutions/s"] =
      benchmark::Counter(static_cast<double>(solutions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DpClosedLines)->Arg(12)->Arg(14)->Unit(benchmark::kMillisecond);

void BM_OrbitsEnumerate(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(nq::enumerate_orbits(static_cast<int>(state.range(0)))->size());
}
BENCHMARK(BM_OrbitsEnumerate)->Arg(10)->Arg(11)->Unit(benchmark::kMillisecond);

void BM_OrbitsAlgebraic(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(nq::algebraic_orbits(static_cast<int>(state.range(0)))->orbits.size());
}
BENCHMARK(BM_OrbitsAlgebraic)->Arg(10)->Arg(11)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
