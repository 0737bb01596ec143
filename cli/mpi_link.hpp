// The cluster count's link over MPI (engine/count/cluster.hpp, ClusterLink): nqcount-mpi's, and
// the measurement of the dealing (perf/mpi_throughput.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/count/cluster.hpp"

namespace nq::cli {

// The link over MPI_COMM_WORLD: a channel is a tag. Only the thread that called MPI_Init_thread
// calls it (MPI_THREAD_FUNNELED).
class MpiLink final : public ClusterLink {
 public:
  MpiLink();
  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  void send(int to, ClusterChannel channel, const std::vector<std::uint64_t>& words) override;
  std::vector<std::uint64_t> receive(int from, ClusterChannel channel) override;
  std::optional<std::vector<std::uint64_t>> poll(ClusterChannel channel, int& from) override;
  std::vector<std::uint64_t> broadcast(const std::vector<std::uint64_t>& words) override;
  std::uint64_t all_max(std::uint64_t value) override;
  std::uint64_t all_sum(std::uint64_t value) override;
  std::vector<std::vector<std::uint64_t>> gather(const std::vector<std::uint64_t>& words) override;

 private:
  int rank_ = 0, ranks_ = 1;
};

}  // namespace nq::cli
