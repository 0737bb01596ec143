// A subproblem counted whole and in pieces (the plan cut past one rank a task, Plan::parts),
// side by side, one thread: `draws` ranks spread evenly over the row-split plan of n, each
// counted whole by the join and then as its `parts` pieces, in turn; prints each rank's CPU
// seconds both ways and, at the end, the pieces' total over the whole's (what cutting the plan
// into pieces costs at this n). Every rank's pieces must add up to its count.
//   build/perf/nq_join_pieces N [draws] [parts]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "base/threads.hpp"
#include "engine/count/plan.hpp"
#include "kernels/kernels.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: nq_join_pieces N [draws] [parts]\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const int draws = argc > 2 ? std::atoi(argv[2]) : 8;
  const auto parts = static_cast<std::uint64_t>(argc > 3 ? std::atoll(argv[3]) : 3);
  if (n < 8 || n > 28 || draws < 1 || parts < 2 || parts > static_cast<std::uint64_t>(n / 2)) {
    std::fprintf(stderr, "nq_join_pieces: n 8..28, draws >= 1, parts 2..n/2\n");
    return 2;
  }
  const nq::Kernel& join = *nq::find_kernel("join");
  if (join.prepare) join.prepare(n);
  const nq::Plan whole = nq::plan_rowsplit(n, false);
  const nq::Plan cut = nq::plan_rowsplit(n, false, {}, whole.splits * parts);
  if (cut.pieces != parts) {
    std::fprintf(stderr, "nq_join_pieces: the plan of n = %d cuts into %llu parts\n", n,
                 static_cast<unsigned long long>(cut.pieces));
    return 2;
  }
  auto count = [&](const nq::Subproblem& s) {
    nq::Tally t;
    join.count(std::span<const nq::Subproblem>(&s, 1), std::span<nq::Tally>(&t, 1));
    return t.solutions;
  };
  double whole_seconds = 0, pieces_seconds = 0;
  for (int d = 0; d < draws; ++d) {
    std::uint64_t rank = (2 * static_cast<std::uint64_t>(d) + 1) * whole.splits / (2 * draws);
    while (rank + 1 < whole.splits && nq::split_subproblem(whole, rank).weight == 0) ++rank;
    const double t0 = nq::thread_cpu_seconds();
    const std::uint64_t solutions = count(nq::split_subproblem(whole, rank).subproblem);
    const double t1 = nq::thread_cpu_seconds();
    std::uint64_t sum = 0;
    for (std::uint64_t p = 0; p < parts; ++p)
      sum += count(nq::rowsplit_task(cut, rank * parts + p).subproblem);
    const double t2 = nq::thread_cpu_seconds();
    whole_seconds += t1 - t0;
    pieces_seconds += t2 - t1;
    std::printf("rank %llu: whole %.3f s, %llu pieces %.3f s (%.3f)%s\n",
                static_cast<unsigned long long>(rank), t1 - t0,
                static_cast<unsigned long long>(parts), t2 - t1, (t2 - t1) / (t1 - t0),
                sum == solutions ? "" : "  PIECES DIFFER");
    if (sum != solutions) return 1;
  }
  std::printf("n = %d, %d ranks: whole %.2f s, in %llu pieces %.2f s: %.3f of the whole\n", n,
              draws, whole_seconds, static_cast<unsigned long long>(parts), pieces_seconds,
              pieces_seconds / whole_seconds);
  return 0;
}
