// Whole counts through the engine, one thread, side by side: the canonical-class engine
// (auto kernel) against the classic kernel with mirror halving (--kernel reference).
// Rate counters: nodes/s and solutions/s (solutions of the full board, weights included).
// And the serial setup of a row-split count: every rank's cost estimate, on one thread; and what
// an MPI rank's batch costs beside its counting as the plan grows.
#include <benchmark/benchmark.h>
#include <oneapi/tbb/task_arena.h>

#include "engine/count/count.hpp"
#include "engine/count/plan.hpp"

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

// The cost estimates a row-split count makes before it starts: every rank unranked, its orbit
// rule applied (odd n: the middle-queen rows it keeps) and the join's cost formula, in a
// one-thread arena. Rate counter: ranks/s.
void BM_RowSplitCosts(benchmark::State& state) {
  const nq::Plan plan = nq::plan_rowsplit(static_cast<int>(state.range(0)), false);
  tbb::task_arena one(1);
  for (auto _ : state) one.execute([&] { benchmark::DoNotOptimize(nq::estimate_costs(plan)); });
  state.counters["ranks/s"] =
      benchmark::Counter(static_cast<double>(plan.splits) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

// One batch of an MPI rank: count_selected of one cheap task (the plan's last) of the join's
// row-split plan of n cut into at least `min_tasks` tasks (pieces of ranks past two tasks a
// rank), one thread. What grows with the plan's size (the second argument) is what the batch
// costs beside its counting. Counter: the plan's tasks.
void BM_SelectedBatch(benchmark::State& state) {
  nq::CountConfig c{.n = static_cast<int>(state.range(0)), .threads = 1, .kernel = "join"};
  c.min_tasks = static_cast<std::uint64_t>(state.range(1));
  const auto plan = nq::make_plan(c);
  if (!plan.ok()) {
    state.SkipWithError(plan.error().message.c_str());
    return;
  }
  const std::uint64_t last[] = {plan->size() - 1};
  for (auto _ : state) {
    auto r = nq::count_selected(c, *plan, last);
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(r->orbits.total);
  }
  state.counters["tasks"] = static_cast<double>(plan->size());
}

// {n, threads}
BENCHMARK(BM_Reference)->Args({14, 1})->Args({15, 1})->Args({16, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Engine)->Args({14, 1})->Args({15, 1})->Args({16, 1})->Args({16, 2})->Unit(
    benchmark::kMillisecond);
BENCHMARK(BM_RowSplitCosts)->Arg(16)->Arg(17)->Arg(18)->Arg(19)->Unit(benchmark::kMillisecond);
// {n, min_tasks}: 6,435 tasks, 92,378, 1,410,864 (4 pieces a rank) and 14,872,858 (11).
BENCHMARK(BM_SelectedBatch)
    ->Args({16, 0})
    ->Args({20, 0})
    ->Args({22, 1700000})
    ->Args({24, 16000000})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
