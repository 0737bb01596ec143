// Whole counts through the engine, one thread, side by side: the canonical-class engine
// (auto kernel) against the classic kernel with mirror halving (--kernel reference).
// Rate counters: nodes/s and solutions/s (solutions of the full board, weights included).
#include <benchmark/benchmark.h>

#include "count/count.hpp"

namespace {

void count_with(benchmark::State& state, const char* kernel) {
  nq::CountConfig c;
  c.n = static_cast<int>(state.range(0));
  c.threads = static_cast<int>(state.range(1));
  c.kernel = kernel;
  double nodes = 0, solutions = 0;
  for (auto _ : state) {
    auto r = nq::count(c);
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    nodes += static_cast<double>(r->nodes);
    solutions += static_cast<double>(r->orbits.total);
  }
  state.counters["nodes/s"] = benchmark::Counter(nodes, benchmark::Counter::kIsRate);
  state.counters["solutions/s"] = benchmark::Counter(solutions, benchmark::Counter::kIsRate);
}

void BM_Engine(benchmark::State& s) {
  count_with(s, "auto");
}
void BM_Reference(benchmark::State& s) {
  count_with(s, "reference");
}

// {n, threads}
BENCHMARK(BM_Reference)->Args({14, 1})->Args({15, 1})->Args({16, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Engine)->Args({14, 1})->Args({15, 1})->Args({16, 1})->Args({16, 2})->Unit(
    benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
