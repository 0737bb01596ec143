#include "cli/mpi_link.hpp"

#include <mpi.h>

namespace nq::cli {
namespace {

int tag(ClusterChannel channel) {
  return channel == ClusterChannel::kRequest ? 1 : 2;
}

std::vector<std::uint64_t> take(MPI_Status& status, ClusterChannel channel) {
  int count = 0;
  MPI_Get_count(&status, MPI_UINT64_T, &count);
  std::vector<std::uint64_t> words(static_cast<std::size_t>(count));
  MPI_Recv(words.data(), count, MPI_UINT64_T, status.MPI_SOURCE, tag(channel), MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return words;
}

std::uint64_t reduce(std::uint64_t value, MPI_Op op) {
  std::uint64_t out = 0;
  MPI_Allreduce(&value, &out, 1, MPI_UINT64_T, op, MPI_COMM_WORLD);
  return out;
}

}  // namespace

MpiLink::MpiLink() {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
}

void MpiLink::send(int to, ClusterChannel channel, const std::vector<std::uint64_t>& words) {
  MPI_Send(words.data(), static_cast<int>(words.size()), MPI_UINT64_T, to, tag(channel),
           MPI_COMM_WORLD);
}

std::vector<std::uint64_t> MpiLink::receive(int from, ClusterChannel channel) {
  MPI_Status status;
  MPI_Probe(from, tag(channel), MPI_COMM_WORLD, &status);
  return take(status, channel);
}

std::optional<std::vector<std::uint64_t>> MpiLink::poll(ClusterChannel channel, int& from) {
  int ready = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, tag(channel), MPI_COMM_WORLD, &ready, &status);
  if (!ready) return std::nullopt;
  from = status.MPI_SOURCE;
  return take(status, channel);
}

std::vector<std::uint64_t> MpiLink::broadcast(const std::vector<std::uint64_t>& words) {
  std::uint64_t size = words.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::vector<std::uint64_t> out = words;
  out.resize(size);
  MPI_Bcast(out.data(), static_cast<int>(size), MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return out;
}

std::uint64_t MpiLink::all_max(std::uint64_t value) {
  return reduce(value, MPI_MAX);
}

std::uint64_t MpiLink::all_sum(std::uint64_t value) {
  return reduce(value, MPI_SUM);
}

std::vector<std::vector<std::uint64_t>> MpiLink::gather(const std::vector<std::uint64_t>& words) {
  const int size = static_cast<int>(words.size());
  std::vector<int> sizes(rank_ == 0 ? static_cast<std::size_t>(ranks_) : 0);
  MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(sizes.size(), 0);
  for (std::size_t r = 1; r < sizes.size(); ++r) offsets[r] = offsets[r - 1] + sizes[r - 1];
  const std::size_t total =
      sizes.empty() ? 0 : static_cast<std::size_t>(offsets.back() + sizes.back());
  std::vector<std::uint64_t> all(total);
  MPI_Gatherv(words.data(), size, MPI_UINT64_T, all.data(), sizes.data(), offsets.data(),
              MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::vector<std::vector<std::uint64_t>> out;
  for (std::size_t r = 0; r < sizes.size(); ++r)
    out.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + sizes[r]);
  return out;
}

}  // namespace nq::cli
