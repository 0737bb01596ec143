// How many batch results a second rank 0 of a cluster count handles, with nothing else in the
// way: the workers hand every batch (one task each) back at once, uncounted, and rank 0 deals
// only. Run under mpirun (scripts/mpi-throughput); rank 0 prints one JSON line:
//   mpirun -np 64 build/perf/nq_mpi_throughput [N]        (default n = 17)
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "cli/mpi_link.hpp"
#include "engine/count/cluster.hpp"
#include "engine/count/count.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  nq::cli::MpiLink link;
  nq::ClusterConfig config;
  config.count.n = argc > 1 ? std::atoi(argv[1]) : 17;
  config.count.threads = 1;
  config.count.cross_check = 0;
  config.batch_limit = 1;
  config.root_counts = false;
  config.count_batch = [](const nq::CountConfig& c, const nq::Plan& plan,
                          std::span<const std::uint64_t> tasks,
                          nq::Monitor*) -> nq::Expected<nq::CountResult> {
    std::vector<nq::FinishedSubproblem> zeros;
    for (std::uint64_t i : tasks) zeros.push_back({i, {}});
    if (c.journal) c.journal->record(zeros);
    nq::CountResult r;
    r.n = plan.n;
    r.subproblems = r.subproblems_total = tasks.size();
    return r;
  };
  nq::Monitor signal, progress;
  const auto start = std::chrono::steady_clock::now();
  const auto r = nq::count_on_cluster(link, config, signal, progress);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int status = 0;
  if (!r) {
    if (link.rank() == 0) std::fprintf(stderr, "nqcount: error: %s\n", r.error().message.c_str());
    status = 2;
  } else if (link.rank() == 0) {
    const auto batches = static_cast<double>(r->count.subproblems);
    std::printf(
        "{\"ranks\":%d,\"batch_results\":%.0f,\"seconds\":%.6f,\"batch_results_per_second\":%.1f}"
        "\n",
        link.ranks(), batches, seconds, batches / seconds);
  }
  MPI_Finalize();
  return status;
}
