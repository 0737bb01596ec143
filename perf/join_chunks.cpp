// The join on sampled chunk pairs of large boards (n = 24..28), one thread: draws `draws`
// row-split subproblems (a seeded uniform pool of 8 per draw, picked by the cost model as the
// estimate picks), counts `pieces` chunk pairs of each (sample_join, as `nqcount estimate`), and
// prints where a subproblem's estimated time goes: the halves' setup (bottom parts and the east
// walk), the west walks (once per east chunk when the west half takes several) and the pairing
// (scaled from the pieces to every chunk pair). The draws are the same for every build, so two
// builds of this program compare the kernel side by side on a few seconds of work.
//   build/perf/nq_join_chunks N [draws] [pieces] [seed]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "base/threads.hpp"
#include "engine/count/plan.hpp"
#include "kernels/kernels.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: nq_join_chunks N [draws] [pieces] [seed]\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const int draws = argc > 2 ? std::atoi(argv[2]) : 8;
  const auto pieces = static_cast<std::uint64_t>(argc > 3 ? std::atoll(argv[3]) : 2);
  const auto seed = static_cast<std::uint64_t>(argc > 4 ? std::atoll(argv[4]) : 1);
  const nq::Kernel* join = nq::find_kernel("join");
  if (join->prepare) join->prepare(n);
  const nq::Plan plan = nq::plan_rowsplit(n, false);  // lazy: its ranks only
  const std::uint64_t ranks = plan.splits;
  std::mt19937_64 rng(seed);
  double setup = 0, west = 0, pair = 0, pair_only = 0, solutions = 0, chunk_pairs = 0;
  double spent = 0;
  for (int d = 0; d < draws; ++d) {
    // A pool of 8 ranks of nonzero weight, one picked by estimated cost.
    std::vector<std::pair<std::uint64_t, double>> pool;
    double sum = 0;
    while (pool.size() < 8) {
      const std::uint64_t r = rng() % ranks;
      if (nq::split_subproblem(plan, r).weight == 0) continue;
      const auto c = static_cast<double>(nq::split_cost(plan, r));
      pool.emplace_back(r, c);
      sum += c;
    }
    double x = std::uniform_real_distribution<double>(0, sum)(rng);
    std::size_t pick = 0;
    while (pick + 1 < pool.size() && x >= pool[pick].second) x -= pool[pick++].second;
    const nq::SplitSubproblem key = nq::split_subproblem(plan, pool[pick].first);
    const nq::Subproblem s = key.subproblem;
    const double t0 = nq::thread_cpu_seconds();
    const nq::JoinSample js =
        nq::sample_join(s, pieces, seed + pool[pick].first, &nq::thread_cpu_seconds);
    spent += nq::thread_cpu_seconds() - t0;
    const double all = static_cast<double>(js.east_chunks) * static_cast<double>(js.west_chunks);
    const double scale = js.pieces ? all / static_cast<double>(js.pieces) : 0;
    const double w =
        static_cast<double>(js.west_chunks <= 1 ? 1 : js.east_chunks) * js.west_seconds;
    setup += js.setup_seconds;
    west += w;
    pair += scale * js.pair_seconds;
    pair_only += js.pair_seconds;
    chunk_pairs += static_cast<double>(js.pieces);
    solutions += scale * static_cast<double>(js.solutions) * key.weight;
    std::printf(
        "rank %llu: chunks %llu x %llu, setup %.3f s, west walk %.3f s (x%llu), "
        "pair %.4f s a piece\n",
        static_cast<unsigned long long>(pool[pick].first),
        static_cast<unsigned long long>(js.east_chunks),
        static_cast<unsigned long long>(js.west_chunks), js.setup_seconds, js.west_seconds,
        static_cast<unsigned long long>(js.west_chunks <= 1 ? 1 : js.east_chunks),
        js.pieces ? js.pair_seconds / static_cast<double>(js.pieces) : 0.0);
  }
  const double total = setup + west + pair;
  std::printf("n %d, %d draws, %.0f chunk pairs counted (%.2f CPU s spent)\n", n, draws,
              chunk_pairs, spent);
  std::printf(
      "estimated seconds of the draws: %.2f (setup %.1f%%, west walks %.1f%%, pairs "
      "%.1f%%); pairing %.4f s a chunk pair; weighted solutions %.4e\n",
      total, 100 * setup / total, 100 * west / total, 100 * pair / total,
      chunk_pairs > 0 ? pair_only / chunk_pairs : 0.0, solutions);
  return 0;
}
