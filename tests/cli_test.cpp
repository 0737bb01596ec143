// The nqcount command line, run as a user runs it: exit codes, stderr, JSON.
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "kernels.hpp"

namespace {

using nq::test::nqcount;
using nq::test::expect_usage_error;
using nq::test::Outcome;
using nq::test::read_file;
using nq::test::shell;
using nq::test::temp_path;


TEST(Cli, BadInputExitsTwoWithOneLine) {
  for (const char* a : {"--n 0", "--n -3", "--n abc", "--n 33", "--n 99999999999", "--threads 0",
                        "--n 8 --threads 0", "--n 8 --bogus", "", "--n", "--n 8 --kernel nope",
                        "table --n 40", "frobnicate"})
    expect_usage_error(a);
}

TEST(Cli, CountsAndPrintsEveryField) {
  const Outcome r = nqcount("--n 8 --threads 2");
  EXPECT_EQ(r.status, 0);
  for (const char* field : {"total        92", "unique       12", "U1=0 U2=0 U4=1 U8=11", "nodes",
                            "subproblems", "seconds", "threads      2"})
    EXPECT_NE(r.out.find(field), std::string::npos) << field << "\n" << r.out;
}

TEST(Cli, JsonHasTheSpecFields) {
  const Outcome r = nqcount("count --n 10 --json --threads 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* f : {"n", "threads", "total", "unique", "orbits", "nodes", "subproblems",
                        "seconds", "kernel", "numa_nodes", "verified"})
    EXPECT_TRUE(j.contains(f)) << f;
  EXPECT_EQ(j["total"], 724);
  EXPECT_EQ(j["unique"], 92);
  EXPECT_EQ(j["orbits"]["4"], 3);
  EXPECT_EQ(j["orbits"]["8"], 89);
  EXPECT_EQ(j["threads"], 3);
  EXPECT_EQ(j["verified"], true);
}

TEST(Cli, VerifyPassesOnKnownValues) {
  const Outcome r = nqcount("--n 11 --verify");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("yes"), std::string::npos);
}

TEST(Cli, ThreadsAboveHardwareWarnAndRun) {
  const Outcome r = nqcount("--n 9 --threads 64 --json");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("nqcount: warning:"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(r.out)["threads"], 64);
}

TEST(Cli, ReferenceKernelIsReported) {
  const Outcome r = nqcount("--n 9 --kernel reference --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kernel"], "reference");
  EXPECT_EQ(j["unique"], 46);
}

TEST(Cli, TablePrintsTheKnownValues) {
  const Outcome r = nqcount("table --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 27u);
  EXPECT_EQ(j[26]["n"], 27);
  EXPECT_EQ(j[26]["total"], 234907967154122528ULL);
}

TEST(Cli, ProgressOnlyWhenAsked) {
  EXPECT_TRUE(nqcount("--n 10").err.empty());
  EXPECT_TRUE(nqcount("--n 10 --progress").err.empty());  // shorter than the 1 s delay
}

TEST(Cli, HelpExplainsAndExitsZero) {
  const Outcome r = nqcount("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("count"), std::string::npos);
  const Outcome c = nqcount("count --help");
  EXPECT_EQ(c.status, 0);
  EXPECT_NE(c.out.find("--threads"), std::string::npos);
}

// ---- kernel choice: --kernel, NQ_KERNEL, and what the CPU can run ------------------------

// Sets an environment variable for the nqcount runs of one test (popen inherits it).
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }
  const char* name_;
};

TEST(Cli, ForcedKernelIsReportedOrRefused) {
  for (const nq::Kernel& k : nq::all_kernels()) {
    const std::string name(k.name);
    const Outcome r = nqcount("--n 10 --json --kernel " + name);
    if (!k.supported()) {
      expect_usage_error("--n 10 --kernel " + name);
      continue;
    }
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["kernel"], name);
    EXPECT_EQ(j["total"], 724);
  }
}

TEST(Cli, NqKernelEnvironmentChoosesAndTheFlagWins) {
  ScopedEnv env("NQ_KERNEL", "scalar");
  EXPECT_EQ(nlohmann::json::parse(nqcount("--n 9 --json").out)["kernel"], "scalar");
  EXPECT_EQ(nlohmann::json::parse(nqcount("--n 9 --json --kernel reference").out)["kernel"],
            "reference");
  EXPECT_EQ(nlohmann::json::parse(nqcount("--n 9 --json --kernel auto").out)["kernel"],
            std::string(nq::best_kernel().name));
}

TEST(Cli, UnknownNqKernelExitsTwoAndNamesTheVariable) {
  ScopedEnv env("NQ_KERNEL", "avx3");
  expect_usage_error("--n 9");
  EXPECT_NE(nqcount("--n 9").err.find("NQ_KERNEL"), std::string::npos);
}

TEST(Cli, KernelTheCpuCannotRunExitsTwo) {
  // The test seam makes the SIMD kernels "unsupported" even on a CPU that has them.
  ScopedEnv env("NQ_TEST_DISABLE_KERNELS", "avx512,avx2");
  for (const char* args : {"--n 9 --kernel avx512", "--n 9 --kernel avx2"}) {
    expect_usage_error(args);
    EXPECT_NE(nqcount(args).err.find("cannot run on this CPU"), std::string::npos) << args;
  }
  EXPECT_EQ(nlohmann::json::parse(nqcount("--n 9 --json").out)["kernel"], "scalar");
}

}  // namespace
