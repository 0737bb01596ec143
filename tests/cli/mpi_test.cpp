// nqcount-mpi under mpirun on this machine: the same counts as nqcount at 2 and 3 ranks, and
// checkpoints that either program resumes. Built only when MPI is found.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/count/journal.hpp"
#include "engine/count/known.hpp"
#include "engine/count/plan.hpp"
#include "kernels/kernels.hpp"
#include "tests/cli_runner.hpp"
#include "tests/support/sanitized.hpp"

namespace {

using namespace nq::test;  // nqcount, shell, Outcome, read_file, temp_path, ...

// What every run here is started with: Open MPI as root (the test machines), no leak report at
// exit (Open MPI's own allocations, in the sanitizer builds), and the transports of ranks on one
// machine only, shared memory (vader) and a rank's own (self), as Open MPI picks there anyway:
// naming them skips probing the others, 0.2 of each start's 0.37 s. Without hwloc's I/O
// discovery (HWLOC_COMPONENTS): mpirun and every rank read each PCI device's configuration
// space to place network cards (where such reads are slow, a third of a start's CPU time),
// and ranks of one machine have no card to place; NUMA nodes and cores are found as before.
#define MPI_ENV                                                                            \
  "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 " \
  "OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 HWLOC_COMPONENTS=-pci,-linuxio "

// As root, mpirun needs the two OMPI_ALLOW variables; --bind-to none lets TBB in a rank use
// more than one core; Open MPI's own allocations are not ours to leak-check.
// `mpirun_options` go to mpirun itself (e.g. -q).
Outcome mpi(int ranks, const std::string& args, const std::string& mpirun_options = "") {
  return shell(MPI_ENV MPIEXEC " " + mpirun_options + " --oversubscribe --bind-to none -np " +
               std::to_string(ranks) + " " NQCOUNT_MPI_BIN " " + args);
}

// One rank started without mpirun (MPI's singleton start): the same checks of the command line
// as under mpirun -np 1, without mpirun's second or two of start-up.
Outcome singleton(const std::string& args) {
  return shell(MPI_ENV NQCOUNT_MPI_BIN " " + args);
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

TEST(Mpi, EightRanksOversubscribedCountLikeNqcount) {
  for (const int n : {13, 15}) {
    const Outcome plain = nqcount("--n " + std::to_string(n) + " --json");
    ASSERT_EQ(plain.status, 0);
    const Outcome r = mpi(8, "--n " + std::to_string(n) + " --json --threads 1 --verify");
    ASSERT_EQ(r.status, 0) << r.err;
    expect_same_counts(r.out, plain.out);
    EXPECT_EQ(nlohmann::json::parse(r.out)["ranks"], 8);
  }
}

// A rank counts its batches (several at once, each a count with an arena of its own) on
// oneTBB's threads, which the program caps at its --threads (or the hardware's): a rank's
// threads stay within that and its own few (MPI's, the batches'). With the cap far above, oneTBB
// kept starting threads for the arenas that came and went, a few hundred a rank at n = 14 here,
// every one spinning. The most threads any rank had, read from /proc while the job ran.
TEST(Mpi, ARankRunsNoMoreThreadsThanItCountsWith) {
  const Outcome r = shell(MPI_ENV MPIEXEC " --oversubscribe --bind-to none -np 2 " NQCOUNT_MPI_BIN
                                          " --n 14 --threads 2 >/dev/null & job=$!; most=0; "
                                          "while kill -0 $job 2>/dev/null; do "
                                          "  for rank in $(cat /proc/$job/task/$job/children); do "
                                          "    while read -r key value; do "
                                          "      [ \"$key\" = Threads: ] && "
                                          "[ \"$value\" -gt $most ] && most=$value; "
                                          "    done </proc/$rank/status; "
                                          "  done 2>/dev/null; "
                                          "done; wait $job; echo \"$? $most\"");
  int status = -1, most = 0;
  std::istringstream(r.out) >> status >> most;
  ASSERT_EQ(status, 0) << r.out << r.err;
  EXPECT_GT(most, 1) << "no rank was seen";
  EXPECT_LE(most, 16) << "threads of one rank";
}

// The plan cut into pieces of its subproblems (--tasks past its 1,716 ranks at n = 14: 7
// pieces each), cross-checked: the same counts, nodes and tasks as nqcount's cut alike, and
// every piece checked on another rank.
TEST(Mpi, PiecesOfSubproblemsCountLikeNqcount) {
  const std::string args = "--n 14 --kernel join --tasks 20000 --cross-check 1 --json";
  const Outcome plain = nqcount(args + " --verify");
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(nlohmann::json::parse(plain.out)["subproblems"], 1716 * 7);
  const Outcome r = mpi(3, args + " --threads 1 --verify");
  ASSERT_EQ(r.status, 0) << r.err;
  expect_same_counts(r.out, plain.out);
  EXPECT_EQ(nlohmann::json::parse(r.out)["cross_checked"], 1716 * 7);
}

// The measurement of rank 0's dealing (perf/mpi_throughput.cpp, scripts/mpi-throughput): one
// task a batch, handed back uncounted, so as many batch results as the plan has tasks.
TEST(Mpi, TheDealingsThroughputIsMeasuredBatchByBatch) {
#ifndef NQ_MPI_THROUGHPUT_BIN
  GTEST_SKIP() << "this build has no perf/ programs";
#else
  const Outcome r =
      shell(MPI_ENV MPIEXEC " --oversubscribe --bind-to none -np 4 " NQ_MPI_THROUGHPUT_BIN " 12");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const Outcome plain = nqcount("--n 12 --json");
  EXPECT_EQ(j["batch_results"], nlohmann::json::parse(plain.out)["subproblems"]);
  EXPECT_EQ(j["ranks"], 4);
  EXPECT_GT(j["batch_results_per_second"].get<double>(), 0.0);
#endif
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
  bytes.resize(128 + (bytes.size() - 128) / 2 / 32 * 32 + 3);
  std::ofstream(journal, std::ios::binary | std::ios::trunc) << bytes;
  const Outcome resumed = mpi(2, "--n 12 --json --checkpoint " + journal);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  expect_same_counts(resumed.out, plain.out);
  EXPECT_NE(resumed.err.find("torn"), std::string::npos) << resumed.err;
}

// nqcount merge reads an nqcount-mpi journal as one of a count's journals: alone, and beside a
// shard of the same plan and cut, whose tasks it records too.
TEST(Mpi, AJournalOfNqcountMpiIsMergedWithShards) {
  const std::string journal = temp_path("m16.ckpt"), shard = temp_path("m16-shard.ckpt");
  const Outcome written = mpi(2, "--n 16 --json --checkpoint " + journal);
  ASSERT_EQ(written.status, 0) << written.err;
  const Outcome alone = nqcount("merge --json --verify " + journal);
  ASSERT_EQ(alone.status, 0) << alone.err;
  auto same = [](const std::string& merged, const std::string& counted) {
    const auto a = nlohmann::json::parse(merged), b = nlohmann::json::parse(counted);
    for (const char* f : {"n", "total", "unique", "orbits", "nodes"})
      EXPECT_EQ(a[f], b[f]) << f << "\n" << merged << "\n" << counted;
  };
  same(alone.out, written.out);
  ASSERT_EQ(nqcount("--n 16 --shard 1/3 --checkpoint " + shard).status, 0);
  const Outcome both = nqcount("merge --json " + shard + " " + journal);
  ASSERT_EQ(both.status, 0) << both.err;
  same(both.out, written.out);
  EXPECT_GT(nlohmann::json::parse(both.out)["duplicates"].get<int>(), 0);
}

// --cross-check under MPI: rank 0 deals each selected subproblem again, as a check, to another
// rank than the one that counted it; the counts are those of nqcount.
TEST(Mpi, CrossChecksAreCountedOnAnotherRank) {
  const Outcome r = mpi(3, "--n 13 --threads 1 --cross-check 1 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cross_checked"], j["subproblems"]);
  EXPECT_GT(j["cross_checked_on_another_rank"].get<std::uint64_t>(), 0u) << r.out;
  expect_same_counts(r.out, nqcount("--n 13 --threads 1 --json").out);
  // Checks come from counts still out with the ranks: a rank that finds no work meanwhile waits
  // for them instead of leaving them to nobody (which ended such runs unfinished, exit 130, now
  // and then). Short runs, on two and three ranks, several times.
  const std::string single = nqcount("--n 12 --kernel join --json").out;
  for (int round = 0; round < nq::test_support::sized(4, 2); ++round)
    for (const int ranks : {2, 3}) {
      const Outcome again = mpi(ranks, "--n 12 --kernel join --cross-check 1 --json");
      ASSERT_EQ(again.status, 0) << ranks << " ranks: " << again.err;
      const auto k = nlohmann::json::parse(again.out);
      EXPECT_EQ(k["cross_checked"], k["subproblems"]);
      expect_same_counts(again.out, single);
    }
}

// A second count that disagrees (here a kernel for another plan, forced through the programs'
// test build, tests/support/testing.hpp) stops
// the run with exit 1 and names the subproblem and both ranks; nothing unchecked is journaled.
TEST(Mpi, AFailedCrossCheckStopsTheRunWithExitOne) {
  const std::string journal = temp_path("xfail.ckpt");
  const Outcome r = mpi(2, "--n 12 --kernel join --cross-check 1 --checkpoint " + journal);
  ASSERT_EQ(r.status, 0) << r.err;  // the real second kernel agrees
  std::filesystem::remove(journal);
  const Outcome bad = shell("NQ_TEST_CROSS_CHECK_KERNEL=reference " MPI_ENV MPIEXEC
                            " --oversubscribe --bind-to none -np 2 " NQCOUNT_MPI_TESTING_BIN
                            " --n 12 --kernel join --cross-check 1 --checkpoint " +
                            journal);
  EXPECT_EQ(bad.status, 1) << bad.err;
  EXPECT_NE(bad.err.find("nqcount: error: cross-check failed: subproblem "), std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find(" counted it again with the second kernel"), std::string::npos) << bad.err;
  // The journal holds no subproblem (every one is selected, none passed): a resume counts all.
  ASSERT_TRUE(std::filesystem::exists(journal));
  EXPECT_EQ(std::filesystem::file_size(journal), nq::FileJournal::kHeaderBytes);
}

// Counts past 2^64 stay exact through rank 0's sums: a journal whose finished subproblems carry
// counts near 2^61 (as a Q(29) run's would sum far past 2^64), resumed by nqcount-mpi, which
// counts the rest on two ranks; the total is the exact 128-bit sum, printed in full.
TEST(Mpi, SumsPastTwoToTheSixtyFourStayExactThroughTheRoot) {
  const int n = 12;
  const nq::Plan plan = nq::plan_canonical(n, nq::default_split_rows(n));
  ASSERT_GT(plan.size(), 20u);
  const std::string journal = temp_path("u128.ckpt");
  const std::uint64_t big = (std::uint64_t{1} << 61) - 8;  // a multiple of 8, as counts of a
                                                           // symmetric plan's classes must be
  nq::u128 expected = 0;
  {
    nq::FileJournal j(journal, std::chrono::milliseconds(10));
    ASSERT_TRUE(j.begin(nq::run_identity(plan)).ok());
    std::vector<nq::FinishedSubproblem> done;
    for (std::size_t i = 0; i + 10 < plan.size(); ++i) {
      done.push_back({i, {big, 1}});
      expected += nq::u128{plan.weight(i)} * big;
    }
    j.record(done);
    ASSERT_TRUE(j.close().ok());
  }
  for (std::size_t i = plan.size() - 10; i < plan.size(); ++i)  // what the ranks will count
    expected += nq::u128{plan.weight(i)} * nq::count_one_scalar(plan.subproblems[i]).solutions;
  ASSERT_GT(expected, nq::u128{~std::uint64_t{0}});
  const Outcome r =
      mpi(2, "--n 12 --kernel scalar --threads 1 --checkpoint " + journal + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["total"], nq::to_string(expected)) << r.out;
  EXPECT_EQ(j["subproblems_resumed"].get<std::uint64_t>(), plan.size() - 10);
}

TEST(Mpi, BadInputAndForeignJournalsExitTwo) {
  EXPECT_EQ(mpi(2, "--n 0").status, 2);
  // The options table's rules hold here too: --threads at most 4096, decimal numbers only.
  // And what nqcount-mpi cannot do is refused, not ignored: --algo dp (one process),
  // --task-stats (each rank counts a share), options without effect.
  const std::string stats = temp_path("mpi-stats.csv");
  for (const std::string& bad :
       std::vector<std::string>{"--n 8 --threads 4097", "--n 010", "--n 8 --n 9",
                                "--n 10 --algo dp", "--n 10 --task-stats " + stats,
                                "--n 10 --checkpoint-every 5", "--n 10 --progress --no-progress"}) {
    const Outcome b = singleton(bad);
    EXPECT_EQ(b.status, 2) << bad << ": " << b.err;
    EXPECT_NE(b.err.find("nqcount: error: --"), std::string::npos) << bad << ": " << b.err;
  }
  EXPECT_FALSE(std::filesystem::exists(stats));
  // NQ_KERNEL is checked as --kernel is, and a bad one is said as the variable's; the flag wins.
  const Outcome env = shell("NQ_KERNEL=bogus " MPI_ENV NQCOUNT_MPI_BIN " --n 8");
  EXPECT_EQ(env.status, 2) << env.err;
  EXPECT_EQ(env.err.rfind("nqcount: error: NQ_KERNEL: bogus ", 0), 0u) << env.err;
  EXPECT_EQ(std::count(env.err.begin(), env.err.end(), '\n'), 1) << env.err;
  const Outcome flag = shell("NQ_KERNEL=bogus " MPI_ENV NQCOUNT_MPI_BIN " --n 8 --kernel scalar");
  EXPECT_EQ(flag.status, 0) << flag.err;
  const Outcome help = shell("NQ_KERNEL=bogus " MPI_ENV NQCOUNT_MPI_BIN " --help");
  EXPECT_EQ(help.status, 0) << help.err;
  EXPECT_NE(help.out.find("Usage: nqcount-mpi"), std::string::npos) << help.out;
  const std::string journal = temp_path("n11.ckpt");
  ASSERT_EQ(nqcount("--n 11 --checkpoint " + journal).status, 0);
  const Outcome r = mpi(2, "--n 12 --checkpoint " + journal);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("nqcount: error: checkpoint"), std::string::npos) << r.err;
}

// Starts an n-count (the scalar kernel by default, one thread a rank) on `ranks` ranks in the
// background, all on one CPU (taskset), so that on any machine it is still counting when the
// signal comes; half a second after its journal holds a record, sends `sig` to the ranks
// (mpirun's children) named by `which`: "all" (as Slurm signals every task) or "worker" (a rank
// other than 0, known by OMPI_COMM_WORLD_RANK in its environment: the ranks' process ids come
// in the order their shells started them, which need not be the ranks'). Returns mpirun's
// status and stderr; each rank's own exit status is in the file rank.R of `statuses` where that
// folder is given.
Outcome interrupted_run(const std::string& journal, const char* sig, const char* which, int n,
                        const std::string& kernel = "scalar", int ranks = 3,
                        const std::string& extra = "", const std::string& statuses = "") {
  const std::string err = temp_path("interrupted.err");
  // Each rank runs under a shell that notes its status; the signals go to the ranks themselves.
  const std::string wrapper = temp_path("rank-status.sh");
  nq::test::write_executable(
      wrapper,
      "#!/bin/sh\n\"$@\"\ns=$?\n" +
          (statuses.empty() ? "" : "echo $s > " + statuses + "/rank.$OMPI_COMM_WORLD_RANK\n") +
          "exit $s\n");
  const std::string kill =
      std::string(which) == "all"
          ? std::string("kill -") + sig + " $p; "
          : std::string(
                "v=; for q in $p; do r=$(tr \"\\0\" \"\\n\" < /proc/$q/environ | "
                "sed -n s/^OMPI_COMM_WORLD_RANK=//p); [ \"$r\" = 0 ] || v=$q; done; "
                "kill -") +
                sig + " $v; ";
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  int cpu = 0;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &allowed)) ++cpu;
  const std::string script =
      // Eight ranks on two loaded cores may not see rank 0 scheduled within Open MPI's default
      // second between its SIGTERM and SIGKILL; what rank 0 does in it is the same given three.
      "OMPI_MCA_odls_base_sigkill_timeout=3 " MPI_ENV "taskset -c " + std::to_string(cpu) +
      " " MPIEXEC " --oversubscribe --bind-to none -np " + std::to_string(ranks) + " " + wrapper +
      " " NQCOUNT_MPI_BIN " --n " + std::to_string(n) + " --kernel " + kernel + " --threads 1 " +
      extra + " --checkpoint " + journal + " --checkpoint-every 1 >/dev/null 2>" + err +
      " & m=$!; "
      // Stopped once the journal holds a record (past its 128-byte header), so that a resume has
      // work to take back however slowly the first batches come (a loaded machine).
      "for i in $(seq 1200); do [ -f " +
      journal + " ] && [ $(stat -c %s " + journal +
      ") -gt 128 ] && break; sleep 0.05; done; sleep 0.5; "
      "p=$(for w in $(pgrep -P $m); do pgrep -P $w; done | sort -n | tr \"\\n\" \" \"); "
      "p=${p% }; " +
      kill + "wait $m; echo $?";
  const Outcome r = shell("bash -c '" + script + "'");
  return {std::atoi(r.out.c_str()), r.out, read_file(err)};
}

// The fastest backtracking kernel this CPU runs. The backtracking kernels share one plan, so a
// scalar run's journal resumes on it: the rest counted in half the time or less.
std::string fastest_backtracking_kernel() {
  for (const char* name : {"avx512", "avx2"})
    if (const nq::Kernel* k = nq::find_kernel(name); k != nullptr && k->supported()) return name;
  return "scalar";
}

TEST(SlowMpi, SigtermCheckpointsExits143AndResumesExactly) {
  const std::string journal = temp_path("n17-term.ckpt");
  const std::string statuses = nq::test::temp_dir("statuses");
  const Outcome stopped = interrupted_run(journal, "TERM", "all", 17, "scalar", 3, "", statuses);
  EXPECT_EQ(stopped.status, 143) << stopped.err;
  for (int rank = 0; rank < 3; ++rank)  // every rank alike (the workers once exited 0)
    EXPECT_EQ(std::atoi(read_file(statuses + "/rank." + std::to_string(rank)).c_str()), 143)
        << "rank " << rank;
  EXPECT_NE(stopped.err.find("resume with: mpirun"), std::string::npos) << stopped.err;
  const Outcome resumed = mpi(2, "--n 17 --kernel " + fastest_backtracking_kernel() +
                                     " --threads 1 --json --verify --checkpoint " + journal);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const auto j = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(j["verified"], true);
  EXPECT_GT(j["subproblems_resumed"].get<std::uint64_t>(), 0u);
}

// A signal to one worker alone (not to rank 0) stops the whole job, saved, and every rank exits
// with that signal's status, as when every rank receives it (once: the workers 0, rank 0 130).
TEST(SlowMpi, SigtermToOneWorkerStopsEveryRankWith143) {
  const std::string journal = temp_path("n17-worker.ckpt");
  const std::string statuses = nq::test::temp_dir("statuses");
  const Outcome stopped = interrupted_run(journal, "TERM", "worker", 17, "scalar", 3, "", statuses);
  EXPECT_EQ(stopped.status, 143) << stopped.err;
  EXPECT_NE(stopped.err.find("resume with: mpirun"), std::string::npos) << stopped.err;
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_EQ(std::atoi(read_file(statuses + "/rank." + std::to_string(rank)).c_str()), 143)
        << "rank " << rank << "\n"
        << stopped.err;
}

TEST(SlowMpi, AKilledWorkerEndsTheJobAndTheJournalFinishesIt) {
  const std::string journal = temp_path("n17-kill.ckpt");  // n = 17: still running after 1 s
  const Outcome stopped = interrupted_run(journal, "KILL", "worker", 17);
  EXPECT_NE(stopped.status, 0) << stopped.err;
  EXPECT_NE(stopped.err.find("no ULFM"), std::string::npos) << stopped.err;
  EXPECT_NE(stopped.err.find("resume with: mpirun"), std::string::npos) << stopped.err;
  const Outcome resumed = mpi(2, "--n 17 --kernel " + fastest_backtracking_kernel() +
                                     " --threads 1 --json --verify --checkpoint " + journal);
  ASSERT_EQ(resumed.status, 0) << stopped.err << resumed.err;
  const auto j = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(j["verified"], true);
  EXPECT_GT(j["subproblems_resumed"].get<std::uint64_t>(), 0u);
}

// The join's row-split plan, dealt as a cluster deals it (the plan cut for all the ranks'
// threads, the largest tasks first), on 8 ranks oversubscribed: the counts of the table, for an
// odd n (the middle row split) and an even one.
TEST(SlowMpi, EightRanksCountSixteenAndSeventeenLikeTheTable) {
  for (const int n : {16, 17}) {
    const Outcome r = mpi(8, "--n " + std::to_string(n) + " --kernel join --threads 1 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["total"], nq::known_value(n)->total) << n;
    EXPECT_EQ(j["ranks"], 8);
  }
}

// A rank of an 8-rank join count killed mid-run, the plan cut into pieces of its subproblems
// (--tasks past the ranks: n = 18 has 24,310, cut into 8 pieces each; n = 18, so that the run
// is still counting when the kill comes where the join is vectorized): the journal holds what
// came back, and a restart on another number of ranks, without --tasks, reads the cut from the
// journal and finishes it exactly. (Rank 0's message about the lost rank is
// AKilledWorkerEndsTheJobAndTheJournalFinishesIt's to check: with eight ranks on two loaded
// cores, mpirun may end the job before it has forwarded rank 0's last lines.)
TEST(SlowMpi, AKilledRankOfAJoinCountInPiecesRestartsOnOtherRanksExactly) {
  const std::string journal = temp_path("n18-pieces-kill.ckpt");
  const Outcome stopped =
      interrupted_run(journal, "KILL", "worker", 18, "join", 8, "--tasks 194480");
  EXPECT_NE(stopped.status, 0) << stopped.err;
  const Outcome resumed = mpi(3, "--n 18 --kernel join --threads 1 --json --checkpoint " + journal);
  ASSERT_EQ(resumed.status, 0) << stopped.err << resumed.err;
  const auto j = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(j["total"], nq::known_value(18)->total);
  EXPECT_EQ(j["unique"], nq::known_value(18)->unique);
  EXPECT_EQ(j["subproblems"], 194480);
  EXPECT_GT(j["subproblems_resumed"].get<std::uint64_t>(), 0u);
}

// Another run's journal: another n, split depth, or cross-check (fraction or seed).
TEST(Mpi, AJournalOfAnotherRunIsRefusedAndLeftUntouched) {
  const std::string journal = temp_path("n11b.ckpt");
  ASSERT_EQ(nqcount("--n 11 --cross-check 0.5 --cross-check-seed 3 --checkpoint " + journal).status,
            0);
  const std::string before = read_file(journal);
  for (const char* args : {"--n 12 --cross-check 0.5 --cross-check-seed 3",
                           "--n 11 --split-depth 2 --cross-check 0.5 --cross-check-seed 3",
                           "--n 11 --cross-check 0.5 --cross-check-seed 4", "--n 11"}) {
    const Outcome r = mpi(2, std::string(args) + " --checkpoint " + journal);
    EXPECT_EQ(r.status, 2) << args << r.err;
    EXPECT_EQ(read_file(journal), before) << args;
  }
}

// scripts/slurm/nqcount.sbatch under a fake Slurm: `srun` logs its arguments and runs the
// command itself (a one-rank MPI job), `scontrol` logs its arguments. Returns the script's
// status and stderr; `dir` holds the logs, the journal and the result.
Outcome sbatch(const std::string& dir, const std::string& env, bool terminate) {
  std::filesystem::create_directories(dir + "/bin");
  write_executable(dir + "/bin/srun", "#!/bin/bash\necho \"$@\" >> " + dir +
                                          "/srun.log\nwhile [[ $1 == --* ]]; do shift; done\n"
                                          "exec \"$@\"\n");
  write_executable(dir + "/bin/scontrol", "#!/bin/bash\necho \"$@\" >> " + dir + "/scontrol.log\n");
  const std::string run =
      "cd " + dir + " && PATH=" + dir +
      "/bin:$PATH " MPI_ENV "NQ_BIN=" NQCOUNT_MPI_BIN " SLURM_SUBMIT_DIR=" + dir +
      " SLURM_JOB_ID=4242 " + env + " exec " NQ_SOURCE_DIR "/scripts/slurm/nqcount.sbatch";
  if (!terminate) return shell(run + " > " + dir + "/job.out");
  // As Slurm's --signal=B:TERM does: SIGTERM to the batch shell while the step runs, once the
  // journal holds a record (past its 128-byte header), however loaded the machine.
  const std::string journal = dir + "/nqcount-n16.ckpt";
  const Outcome r =
      shell("bash -c '" + run + " > " + dir + "/job.out & s=$!; for i in $(seq 1200); do [ -f " +
            journal + " ] && [ $(stat -c %s " + journal +
            ") -gt 128 ] && break; sleep 0.05; done; sleep 0.2; "
            "kill -TERM $s; wait $s; echo $?'");
  return {std::atoi(r.out.c_str()), r.out, r.err};
}

TEST(SlowSlurmScript, ThreadsFromSlurmCheckpointOnSharedStorageAndRequeueOnTimeout) {
  const std::string dir = temp_path("slurm");
  // Threads per rank from SLURM_CPUS_PER_TASK, the journal in the submit directory, the
  // result beside it.
  const Outcome done = sbatch(dir, "NQ_N=11 SLURM_CPUS_PER_TASK=2", false);
  ASSERT_EQ(done.status, 0) << done.err << read_file(dir + "/job.out");
  const std::string srun = read_file(dir + "/srun.log");
  EXPECT_NE(srun.find("--threads 2 --checkpoint " + dir + "/nqcount-n11.ckpt"), std::string::npos)
      << srun;
  const auto j = nlohmann::json::parse(read_file(dir + "/nqcount-n11.json"));
  EXPECT_EQ(j["threads"], 2);
  const Outcome plain = nqcount("--n 11 --json");
  EXPECT_EQ(j["total"], nlohmann::json::parse(plain.out)["total"]);
  // Submitted again (a requeue after the end): nothing is counted twice.
  ASSERT_EQ(sbatch(dir, "NQ_N=11 SLURM_CPUS_PER_TASK=2", false).status, 0);
  EXPECT_EQ(read_file(dir + "/srun.log"), srun);

  // The time limit: SIGTERM to the batch shell -> the ranks save the journal, exit 143, and
  // the job requeues itself; the requeued job finishes from the journal.
  const Outcome stopped =
      sbatch(dir, "NQ_N=16 NQ_EXTRA=\"--kernel scalar --checkpoint-every 1\"", true);
  EXPECT_EQ(stopped.status, 143) << stopped.err << read_file(dir + "/job.out");
  EXPECT_EQ(read_file(dir + "/scontrol.log"), "requeue 4242\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/nqcount-n16.json"));
  const Outcome again =
      sbatch(dir, "NQ_N=16 NQ_EXTRA=\"--kernel scalar --checkpoint-every 1 --verify\"", false);
  ASSERT_EQ(again.status, 0) << again.err;
  const auto k = nlohmann::json::parse(read_file(dir + "/nqcount-n16.json"));
  EXPECT_EQ(k["verified"], true);
  EXPECT_GT(k["subproblems_resumed"].get<std::uint64_t>(), 0u);
}

TEST(Mpi, SlurmScriptRunsTheSameCommandLineUnderMpirunAndRefusesBadSettings) {
  const std::string dir = temp_dir("slurm-mpirun");
  const Outcome r = shell("cd " + dir +
                          " && " MPI_ENV
                          "NQ_LAUNCHER=mpirun NQ_N=12 SLURM_CPUS_PER_TASK=1 "
                          "NQ_BIN=" NQCOUNT_MPI_BIN " SLURM_SUBMIT_DIR=" +
                          dir + " " NQ_SOURCE_DIR "/scripts/slurm/nqcount.sbatch");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(read_file(dir + "/nqcount-n12.json"));
  EXPECT_GE(j["ranks"].get<int>(), 1);
  EXPECT_EQ(j["total"], nlohmann::json::parse(nqcount("--n 12 --json").out)["total"]);
  const Outcome no_n = shell("env -u NQ_N " NQ_SOURCE_DIR "/scripts/slurm/nqcount.sbatch");
  EXPECT_NE(no_n.status, 0);
  EXPECT_NE(no_n.err.find("NQ_N"), std::string::npos) << no_n.err;
  const Outcome bad =
      shell("NQ_N=12 NQ_LAUNCHER=qsub " NQ_SOURCE_DIR "/scripts/slurm/nqcount.sbatch");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("nqcount: error: NQ_LAUNCHER"), std::string::npos) << bad.err;
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
  const auto j = nlohmann::json::parse(fits.out);
  EXPECT_GT(j["memory_estimate_bytes"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["kernel"], "join");
  EXPECT_EQ(j["isa"], nlohmann::json::parse(nqcount("--n 12 --json --kernel join").out)["isa"]);
}

// A refusal that every rank makes (the join has no split depth) is said once, by rank 0, on one
// line of its own; with mpirun -q nothing else is printed, and every rank exits 2.
TEST(Mpi, MpiErrorsAreOneLineFromRankZero) {
  const Outcome r = mpi(4, "--n 12 --kernel join --split-depth 3", "-q");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("nqcount: error: the join kernel has its own plan", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.find("rank "), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// Two ranks started as one job (mpirun's MPMD form) with what `first` and `second` put before
// and after the program: rank 0 runs `first`, rank 1 `second`. At most a minute: a job that
// hangs is killed and reported as status -1 (timeout's 124).
Outcome pair(const std::string& first, const std::string& second) {
  auto app = [](const std::string& words) {
    const std::size_t at = words.find("@");  // what goes before the program: "env X=1 @ --n 12"
    return at == std::string::npos ? std::string(NQCOUNT_MPI_BIN " ") + words
                                   : words.substr(0, at) + NQCOUNT_MPI_BIN + words.substr(at + 1);
  };
  const Outcome r =
      shell(MPI_ENV "timeout 60 " MPIEXEC " -q --oversubscribe --bind-to none -np 1 " + app(first) +
            " : -np 1 " + app(second));
  return {r.status == 124 ? -1 : r.status, r.out, r.err};
}

// A pair of ranks that would run different counts, each refused before any work: exit 2, one
// line that names rank 1 and what differs, nothing on stdout, no journal made.
void expect_refused_pair(const std::string& first, const std::string& second,
                         const std::string& named) {
  static std::atomic<int> pairs{0};
  const std::string journal = temp_path("pair" + std::to_string(pairs++) + ".ckpt");
  const Outcome r = pair(first + " --checkpoint " + journal, second + " --checkpoint " + journal);
  EXPECT_EQ(r.status, 2) << first << " : " << second << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("nqcount: error: rank 1: ", 0), 0u) << first << " : " << second << "\n"
                                                            << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << first << " : " << second << "\n"
                                                             << r.err;
  EXPECT_NE(r.err.find(named), std::string::npos) << first << " : " << second << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::filesystem::exists(journal)) << first << " : " << second;
}

// Runs `check` on every case at once: a job's start is mostly waiting (mpirun, its daemons),
// not CPU.
template <class Case, class Check>
void check_concurrently(const std::vector<Case>& cases, Check check) {
  std::vector<std::thread> running;
  for (const Case& c : cases) running.emplace_back([&check, &c] { check(c); });
  for (std::thread& t : running) t.join();
}

// Ranks of one job started with different counts (which once summed into a wrong total with exit
// 0, or ended in an internal error) are refused before any work.
TEST(Mpi, RanksOfAnotherCountAreRefusedBeforeAnyWork) {
  check_concurrently(
      std::vector<std::array<const char*, 3>>{
          {"--n 16 --threads 1", "--n 17 --threads 1", "--n 17, rank 0 with --n 16"},
          {"--n 16", "--n 16 --kernel reference", "--kernel reference, rank 0 with"},
          {"--n 12", "env NQ_KERNEL=scalar @ --n 12", "NQ_KERNEL=scalar"}},
      [](const std::array<const char*, 3>& c) { expect_refused_pair(c[0], c[1], c[2]); });
}

// Every field that shapes the plan, the kernel or the counts, each in a pair that differs in it
// alone.
TEST(SlowMpi, EveryMismatchedPairIsRefusedBeforeAnyWork) {
  struct Case {
    const char* first;
    const char* second;
    const char* named;
  };
  check_concurrently(
      std::vector<Case>{
          {"--n 12", "--n 13", "--n 13"},
          {"--n 13", "--n 12", "--n 12"},
          {"--n 8", "--n 9", "--n 9"},
          {"--n 16", "--n 15", "--n 15"},
          {"--n 12 --kernel join", "--n 12", "--kernel auto"},
          {"--n 12 --kernel scalar", "--n 12 --kernel avx2", "--kernel avx2"},
          {"--n 12 --kernel reference", "--n 12 --kernel scalar", "--kernel scalar"},
          {"--n 16", "--n 16 --kernel scalar", "--kernel scalar"},
          {"--n 16 --kernel join", "--n 16 --kernel reference", "--kernel reference"},
          {"--n 12", "env NQ_KERNEL=reference @ --n 12", "NQ_KERNEL=reference"},
          {"env NQ_KERNEL=scalar @ --n 12", "--n 12", "--kernel auto"},
          {"env NQ_KERNEL=join @ --n 12", "env NQ_KERNEL=scalar @ --n 12", "NQ_KERNEL=scalar"},
          {"--n 14 --kernel join", "--n 14 --kernel join --tasks 5000", "--tasks 5000"},
          {"--n 14 --kernel join --tasks 5000", "--n 14 --kernel join --tasks 6000",
           "--tasks 6000"},
          {"--n 12 --split-depth 2", "--n 12 --split-depth 3", "--split-depth 3"},
          {"--n 12", "--n 12 --split-depth 2", "--split-depth 2"},
          {"--n 12 --cross-check 0.5", "--n 12", "--cross-check 0,"},
          {"--n 12 --cross-check 0.5", "--n 12 --cross-check 0.25", "--cross-check 0.25"},
          {"--n 12 --cross-check 0.5", "--n 12 --cross-check 0.5 --cross-check-seed 7",
           "--cross-check-seed 7"},
          {"--n 12 --kernel scalar --order fewest", "--n 12 --kernel scalar", "--order rows"},
          {"--n 12 --kernel scalar", "--n 12 --kernel scalar --lookahead", "--lookahead"},
      },
      [](const Case& c) { expect_refused_pair(c.first, c.second, c.named); });
}

// A rank that cannot take part (a bad option, --help or --version on it alone) ends the whole
// job at once with one line, instead of leaving the others waiting for it forever; --help on
// every rank prints the help once.
TEST(Mpi, ARankThatCannotStartEndsTheJobPromptly) {
  check_concurrently(
      std::vector<std::string>{"--n 16 --threads 1 --kernel bogus", "--n 16 --threads 1 --help",
                               "--n 16 --threads 1 --version", "--n 0 --threads 1"},
      [](const std::string& second) {
        const Outcome r = pair("--n 16 --threads 1", second);
        EXPECT_EQ(r.status, 2) << second << ": " << r.err;
        EXPECT_EQ(r.err.rfind("nqcount: error: rank 1: ", 0), 0u) << second << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << second << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
      });
  const Outcome help = pair("--help", "--help");
  EXPECT_EQ(help.status, 0) << help.err;
  EXPECT_EQ(help.out.find("Usage: nqcount-mpi"), help.out.rfind("Usage: nqcount-mpi")) << help.out;
  EXPECT_NE(help.out.find("Usage: nqcount-mpi"), std::string::npos) << help.out;
}

// A board too small to share out is counted by rank 0 alone, and its report still names the
// ranks, as every nqcount-mpi report does.
TEST(Mpi, TinyBoardsReportTheirRanks) {
  for (const int n : {1, 3}) {
    const Outcome r = mpi(2, "--n " + std::to_string(n) + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ranks"], 2);
    EXPECT_EQ(j["subproblems_by_rank"].size(), 2u);
  }
}

}  // namespace
