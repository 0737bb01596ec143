// nqcount-mpi under mpirun on this machine: the same counts as nqcount at 2 and 3 ranks, and
// checkpoints that either program resumes. Built only when MPI is found.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_runner.hpp"

namespace {

using nq::test::nqcount;
using nq::test::Outcome;
using nq::test::read_file;
using nq::test::shell;
using nq::test::temp_path;

// As root, mpirun needs the two OMPI_ALLOW variables; --bind-to none lets TBB in a rank use
// more than one core; Open MPI's own allocations are not ours to leak-check.
Outcome mpi(int ranks, const std::string& args) {
  return shell(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "ASAN_OPTIONS=detect_leaks=0 " MPIEXEC " --oversubscribe --bind-to none -np " +
      std::to_string(ranks) + " " NQCOUNT_MPI_BIN " " + args);
}

void expect_same_counts(const std::string& mpi_json, const std::string& plain_json) {
  const auto a = nlohmann::json::parse(mpi_json), b = nlohmann::json::parse(plain_json);
  for (const char* f : {"n", "total", "unique", "orbits", "nodes", "subproblems", "classes",
                        "split_depth", "verified"})
    EXPECT_EQ(a[f], b[f]) << f << "\n" << mpi_json << "\n" << plain_json;
}

TEST(Mpi, TwoAndThreeRanksCountLikeNqcount) {
  for (const int n : {12, 13}) {
    const Outcome plain = nqcount("--n " + std::to_string(n) + " --json");
    ASSERT_EQ(plain.status, 0);
    for (const int ranks : {2, 3}) {
      const Outcome r = mpi(ranks, "--n " + std::to_string(n) + " --json --threads 2");
      ASSERT_EQ(r.status, 0) << r.err;
      expect_same_counts(r.out, plain.out);
      const auto j = nlohmann::json::parse(r.out);
      EXPECT_EQ(j["ranks"], ranks);
      std::uint64_t shared = 0;
      for (const auto& k : j["subproblems_by_rank"]) shared += k.get<std::uint64_t>();
      EXPECT_EQ(shared, j["subproblems"].get<std::uint64_t>());
      EXPECT_EQ(j["threads"], 2 * ranks);
    }
  }
}

TEST(Mpi, TextOutputAndReferenceRouteMatchToo) {
  const Outcome r = mpi(2, "count --n 11 --kernel reference --verify");
  ASSERT_EQ(r.status, 0) << r.err;
  const Outcome plain = nqcount("--n 11 --kernel reference --verify");
  for (const char* line : {"total        2680", "unique       341", "verified     yes"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
    EXPECT_NE(plain.out.find(line), std::string::npos) << plain.out;
  }
}

TEST(Mpi, CheckpointsAreSharedWithNqcount) {
  // nqcount-mpi writes a journal; nqcount resumes all of it, and vice versa.
  const std::string journal = temp_path("n12.ckpt");
  const Outcome plain = nqcount("--n 12 --json");
  const Outcome written = mpi(3, "--n 12 --json --checkpoint " + journal);
  ASSERT_EQ(written.status, 0) << written.err;
  expect_same_counts(written.out, plain.out);
  const Outcome again = nqcount("--n 12 --json --checkpoint " + journal);
  ASSERT_EQ(again.status, 0) << again.err;
  expect_same_counts(again.out, plain.out);
  const auto j = nlohmann::json::parse(again.out);
  EXPECT_EQ(j["subproblems_resumed"], j["subproblems"]);

  // A partial journal (a torn tail cut off the last records) is finished by nqcount-mpi.
  std::string bytes;
  {
    std::ifstream f(journal, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  bytes.resize(64 + (bytes.size() - 64) / 2 / 32 * 32 + 3);
  std::ofstream(journal, std::ios::binary | std::ios::trunc) << bytes;
  const Outcome resumed = mpi(2, "--n 12 --json --checkpoint " + journal);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  expect_same_counts(resumed.out, plain.out);
  EXPECT_NE(resumed.err.find("torn"), std::string::npos) << resumed.err;
}

TEST(Mpi, BadInputAndForeignJournalsExitTwo) {
  EXPECT_EQ(mpi(2, "--n 0").status, 2);
  // The options table's rules hold here too: --threads at most 4096, decimal numbers only.
  for (const char* bad : {"--n 8 --threads 4097", "--n 010", "--n 8 --n 9"}) {
    const Outcome b = mpi(1, bad);
    EXPECT_EQ(b.status, 2) << bad << ": " << b.err;
    EXPECT_NE(b.err.find("nqcount: error: --"), std::string::npos) << bad << ": " << b.err;
  }
  const std::string journal = temp_path("n11.ckpt");
  ASSERT_EQ(nqcount("--n 11 --checkpoint " + journal).status, 0);
  const Outcome r = mpi(2, "--n 12 --checkpoint " + journal);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("nqcount: error: checkpoint"), std::string::npos) << r.err;
}

TEST(Mpi, MemoryLimitIsCheckedOnEveryRankAndSaidOnce) {
  // mpirun adds its own report of the failed job; nqcount-mpi itself says it once.
  for (const char* args : {"--n 12 --memory-limit 1K", "--n 12 --memory-limit 8X"}) {
    const Outcome r = mpi(2, args);
    EXPECT_NE(r.status, 0) << args;
    std::size_t lines = 0;
    for (std::size_t at = r.err.find("nqcount: error: "); at != std::string::npos;
         at = r.err.find("nqcount: error: ", at + 1))
      ++lines;
    EXPECT_EQ(lines, 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find("memory"), std::string::npos) << r.err;
  }
  const Outcome fits = mpi(2, "--n 12 --json --kernel join --memory-limit 1G");
  ASSERT_EQ(fits.status, 0) << fits.err;
  EXPECT_GT(nlohmann::json::parse(fits.out)["memory_estimate_bytes"].get<std::uint64_t>(), 0u);
}

}  // namespace
