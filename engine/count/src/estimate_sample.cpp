// The estimate's sample (estimate_stages.hpp): drawn from the strata, counted and timed by the
// join, and timed again for the machine's speed.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "base/threads.hpp"
#include "engine/count/src/cost.hpp"
#include "engine/count/src/estimate_stages.hpp"
#include "engine/count/src/splits.hpp"
#include "kernels/kernels.hpp"

namespace nq::detail {

double Draw::mean_seconds() const {
  return std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
}

Draw draw_from(const Sampler& s, int h, std::mt19937_64& rng) {
  const int n = s.plan.n;
  const std::vector<double>& prefix = s.frame.prefix;
  const Stratum& st = s.frame.strata[static_cast<std::size_t>(h)];
  std::uniform_real_distribution<double> u(prefix[st.begin], prefix[st.end]);
  std::size_t k = static_cast<std::size_t>(
      std::upper_bound(prefix.begin() + static_cast<std::ptrdiff_t>(st.begin) + 1,
                       prefix.begin() + static_cast<std::ptrdiff_t>(st.end) + 1, u(rng)) -
      prefix.begin() - 1);
  k = std::min(k, st.end - 1);
  const std::uint32_t task = s.frame.sorted[k];
  // One of the task's representative splits, by its own cost.
  std::vector<std::pair<std::uint64_t, double>> splits;
  double sum = 0;
  for (std::uint64_t r = s.plan.first_split(task); r < s.plan.end_split(task); ++r)
    if (const RowSplitKey key = rowsplit_key(n, r); key.weight != 0) {
      const auto c = static_cast<double>(
          estimate_join_cost(rowsplit_task_subproblem(s.plan, task, key), s.probe));
      splits.emplace_back(r, c);
      sum += c;
    }
  std::uniform_real_distribution<double> v(0, sum);
  double x = v(rng);
  std::size_t pick = 0;
  while (pick + 1 < splits.size() && x >= splits[pick].second) x -= splits[pick++].second;
  Draw d;
  d.split = splits[pick].first;
  d.piece = s.plan.piece(task);
  d.cost = splits[pick].second;
  d.share = splits[pick].second / st.cost;
  d.stratum = h;
  return d;
}

namespace {

// Counts `pieces` chunk pairs (0: none, the bottom parts only) of the subproblem before draw
// `d`'s in plan order, untimed: the previous piece of its split, or the last piece of the split
// before it (within 64 splits). In a count the kernel comes to a subproblem from that neighbour:
// it mostly reuses the neighbour's bottom parts, and finds the pairing's scratch in cache, warm
// from the neighbour's last chunk pair; so the timed count should see what it would see in the
// run. Counted cold, or after the neighbour's bottom parts alone, the draws' times came out well
// above the run's (perf/results/log.md).
void warm_neighbour(const Plan& plan, const Subproblem& whole, const Draw& d,
                    std::uint64_t pieces) {
  if (d.piece > 0) {
    sample_join(rowsplit_piece(whole, d.piece - 1, plan.pieces), pieces, d.split,
                &thread_cpu_seconds);
    return;
  }
  for (std::uint64_t before = d.split; before-- > 0 && before + 64 > d.split;)
    if (const RowSplitKey k = rowsplit_key(plan.n, before); k.weight != 0) {
      sample_join(rowsplit_piece(rowsplit_subproblem(plan.n, k), plan.pieces - 1, plan.pieces),
                  pieces, before, &thread_cpu_seconds);
      return;
    }
}

}  // namespace

void time_draw(const Sampler& s, Draw& d) {
  const int n = s.plan.n;
  thread_local int prepared = -1;
  if (s.join.prepare && prepared != n) {
    s.join.prepare(n);
    prepared = n;
  }
  const double start_cpu = thread_cpu_seconds();
  const RowSplitKey key = rowsplit_key(n, d.split);
  const Subproblem whole = rowsplit_subproblem(n, key);
  const Subproblem sub = rowsplit_piece(whole, d.piece, s.plan.pieces);
  const auto timed = [&] {
    return sample_join(sub, s.pieces, s.seed * 0x9e3779b97f4a7c15ull + d.split,
                       &thread_cpu_seconds);
  };
  // The neighbour is counted first, one chunk pair of it (all of it where it has one). A
  // subproblem too large to count whole (from about n = 26) is timed after the neighbour's
  // bottom parts only: its chunk pairs take seconds, a cache warmed in milliseconds does not show
  // in them, and a chunk pair of the neighbour would be a third of the draw's work. Its
  // first timing tells which it is.
  const bool first = d.seconds.empty();
  warm_neighbour(s.plan, whole, d, first || d.within ? 0 : 1);
  JoinSample js = timed();
  const bool within = js.pieces < js.east_chunks * js.west_chunks;
  if (first && !within) {  // small enough to count whole: warm as in the run, and again
    warm_neighbour(s.plan, whole, d, 1);
    js = timed();
  }
  // The two-stage estimate of the subproblem's count and time (kernels.hpp, JoinSample).
  const double pieces = static_cast<double>(js.east_chunks) * static_cast<double>(js.west_chunks);
  const double scale = js.pieces ? pieces / static_cast<double>(js.pieces) : 0;
  d.within = within;
  d.seconds.push_back(js.setup_seconds +
                      static_cast<double>(js.west_chunks <= 1 ? 1 : js.east_chunks) *
                          js.west_seconds +
                      scale * js.pair_seconds);
  d.solutions = static_cast<double>(key.weight) * static_cast<double>(js.solutions) * scale;
  d.spent += thread_cpu_seconds() - start_cpu;
}

Sample draw_sample(const Sampler& s, int samples, double seconds, EstimateClock::time_point start,
                   CallArena& arena) {
  std::mt19937_64 rng(s.seed ^ (static_cast<std::uint64_t>(s.plan.n) << 56));
  const int strata = static_cast<int>(s.frame.strata.size());
  const int rounds = std::max(2, (samples + strata - 1) / strata);
  Sample out;
  for (int round = 0; round < rounds; ++round) {
    if (round >= 2 && seconds > 0 && seconds_since(start) >= seconds) break;
    const std::size_t first = out.draws.size();
    for (int h = 0; h < strata; ++h) out.draws.push_back(draw_from(s, h, rng));
    ++out.rounds;
    arena.execute([&] {
      tbb::parallel_for(first, out.draws.size(),
                        [&](std::size_t i) { time_draw(s, out.draws[i]); });
    });
  }
  return out;
}

Timings time_again(const Sampler& s, Sample& sample, double spread, CallArena& arena) {
  std::vector<Draw>& draws = sample.draws;
  const int threads = arena.threads();
  Timings out;
  out.blocks.resize(1);
  for (std::size_t i = 0; i < draws.size(); ++i) out.blocks[0].emplace_back(i, draws[i].seconds[0]);
  out.per_pass = draws.size();
  if (!(spread > 0)) return out;
  // The window: the count meets the machine's mean speed over its hours, and the passes should
  // see a fair part of them.
  double first_pass = 0, spent = 0;
  for (const Draw& d : draws) {
    first_pass += d.seconds[0] / d.share;
    spent += d.spent;
  }
  first_pass /= static_cast<double>(sample.rounds);  // each round estimates the total
  const double window = std::min(spread, 0.5 * first_pass / threads);
  const std::size_t busy = std::min<std::size_t>(draws.size(), static_cast<std::size_t>(threads));
  out.per_pass = draws_per_pass(draws.size(), threads, spent / static_cast<double>(busy), window);
  const auto again = EstimateClock::now();
  std::size_t next = 0;  // the first draw of the next pass
  int block = 0;         // the last pass's block
  do {
    // This pass's draws: the `per_pass` from `from` on, round the sample.
    const std::size_t from = next;
    auto draw = [&](std::size_t k) { return (from + k) % draws.size(); };
    next = draw(out.per_pass);
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, out.per_pass,
                        [&](std::size_t k) { time_draw(s, draws[draw(k)]); });
    });
    ++out.passes;
    // The eighth of the window this pass ended in (the last one past it, or with no window).
    const double part = window > 0 ? std::min(1.0, seconds_since(again) / window) : 1.0;
    const int now = 1 + std::min(kSpeedBlocks - 1, static_cast<int>(kSpeedBlocks * part));
    if (now != block) out.blocks.emplace_back();
    block = now;
    for (std::size_t k = 0; k < out.per_pass; ++k)
      out.blocks.back().emplace_back(draw(k), draws[draw(k)].seconds.back());
  } while (seconds_since(again) < window);
  out.spread_seconds = seconds_since(again);
  return out;
}

}  // namespace nq::detail
