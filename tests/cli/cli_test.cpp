// The nqcount command line, run as a user runs it: exit codes, stderr, JSON.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "tests/cli_runner.hpp"

namespace {

using namespace nq::test;  // nqcount, shell, Outcome, read_file, temp_path, ...

// The files these tests make (stderr captures, journals, devices) live in a folder of the test
// process's own, which goes when the process exits: a run of the suite leaves nothing behind.
// The parent has its folder before the fork, so the child's exit must not take it.
TEST(Cli, TestFilesGoWithTheTestProcess) {
  const std::string mine = temp_path("mine.txt");
  std::ofstream(mine) << "x";
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // a test process that makes a file, then exits as a test program does
    close(pipe_fds[0]);
    const std::string left = temp_path("left.txt");
    std::ofstream(left) << "x";
    const bool own = left.rfind(temp_folder_of(getpid()) + "/", 0) == 0;
    const char made = own && std::filesystem::exists(left) ? 'y' : 'n';
    if (write(pipe_fds[1], &made, 1) != 1) _exit(3);
    std::exit(0);
  }
  close(pipe_fds[1]);
  char made = 0;
  ASSERT_EQ(read(pipe_fds[0], &made, 1), 1);
  close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(made, 'y');
  EXPECT_FALSE(std::filesystem::exists(temp_folder_of(pid)));
  // This process's folder is its own, untouched by the child, and temp_path hands out paths
  // inside it.
  EXPECT_TRUE(std::filesystem::exists(mine));
  EXPECT_EQ(mine.rfind(temp_folder() + "/", 0), 0u);
  EXPECT_EQ(temp_folder(), temp_folder_of(getpid()));
}

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

TEST(Cli, CrossCheckCountsTwiceAndSaysHowMany) {
  for (const char* kernel : {"join", "scalar", "reference"}) {
    const Outcome r = nqcount(std::string("--n 12 --cross-check 1 --json --kernel ") + kernel);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["total"], 14200);
    EXPECT_GT(j["cross_checked"].get<int>(), 0) << kernel;
    EXPECT_EQ(j["cross_checked"], j["subproblems"]) << kernel;
  }
  const Outcome off = nqcount("--n 12 --json");
  ASSERT_EQ(off.status, 0);
  EXPECT_EQ(nlohmann::json::parse(off.out)["cross_checked"], 0);  // none within the table
  EXPECT_EQ(off.out.find("cross-checked"), std::string::npos);
  const Outcome text = nqcount("--n 12 --cross-check 0.5 --cross-check-seed 9");
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("cross-checked "), std::string::npos) << text.out;
  EXPECT_EQ(nqcount("--n 12 --cross-check 0").out.find("cross-checked"), std::string::npos);
  for (const char* bad : {"-0.1", "1.5", "abc", "nan", "1.0000001"}) {
    const Outcome r = nqcount(std::string("--n 12 --cross-check ") + bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_EQ(r.err.rfind("nqcount: error: --cross-check", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// The address build's preload (tests/support/prefault.cpp), loaded into this test program (an
// address build too): the memory that the leak check reads at exit, this program's writable
// segments, is mapped at once. Read from /proc/self/pagemap (bit 63: present), before and after.
#ifdef NQ_PREFAULT_LIB
double present_share_of_writable_segments() {
  struct Range {
    std::uintptr_t begin, end;
  };
  std::vector<Range> ranges;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& s = info->dlpi_phdr[i];
          if (s.p_type == PT_LOAD && (s.p_flags & PF_W))
            static_cast<std::vector<Range>*>(out)->push_back(
                {info->dlpi_addr + s.p_vaddr, info->dlpi_addr + s.p_vaddr + s.p_memsz});
        }
        return 1;  // the program only
      },
      &ranges);
  const int pagemap = ::open("/proc/self/pagemap", O_RDONLY);
  std::size_t pages = 0, present = 0;
  for (const Range& r : ranges)
    for (std::uintptr_t page = r.begin / 4096; page <= (r.end - 1) / 4096; ++page) {
      std::uint64_t entry = 0;
      if (::pread(pagemap, &entry, sizeof entry, static_cast<off_t>(page * sizeof entry)) !=
          static_cast<ssize_t>(sizeof entry))
        break;
      ++pages;
      present += entry >> 63;
    }
  ::close(pagemap);
  return pages ? static_cast<double>(present) / static_cast<double>(pages) : 0.0;
}
#endif

TEST(Cli, ThePreloadMapsWhatTheLeakCheckReads) {
#ifndef NQ_PREFAULT_LIB
  GTEST_SKIP() << "only the address build has the preload";
#else
  const char* preload = std::getenv("LD_PRELOAD");
  const bool preloaded = preload && std::string(preload).find("nq_prefault") != std::string::npos;
  const double before = present_share_of_writable_segments();
  if (!preloaded) EXPECT_LT(before, 0.9) << "most of it untouched before";
  ::setenv("ASAN_OPTIONS", "detect_leaks=1", 1);
  void* loaded = ::dlopen(NQ_PREFAULT_LIB, RTLD_NOW);
  ASSERT_NE(loaded, nullptr) << ::dlerror();
  EXPECT_GT(present_share_of_writable_segments(), 0.99) << "before: " << before;
#endif
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
    EXPECT_EQ(j["isa"], std::string(k.isa()));
    EXPECT_EQ(j["total"], 724);
    const std::string text = nqcount("--n 10 --kernel " + name).out;
    EXPECT_NE(text.find(k.isa() == k.name ? name + "\n" : name + " (" + std::string(k.isa()) + ")"),
              std::string::npos)
        << text;
  }
}

TEST(Cli, KernelChoicesAndHelpComeFromTheTable) {
  const Outcome help = nqcount("count --help");
  for (const nq::Kernel& k : nq::all_kernels()) {
    EXPECT_NE(help.out.find(std::string(k.name) + " (" + std::string(k.description)),
              std::string::npos)
        << k.name;
  }
  expect_usage_error("--n 9 --kernel nonsense");
}

TEST(Cli, AutoWithASplitDepthSaysWhichKernelItChose) {
  const std::string at = std::to_string(nq::kJoinFromN);
  const Outcome r = nqcount("--n " + at + " --split-depth 1 --json --no-progress");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kernel"], std::string(nq::best_kernel().name));
  EXPECT_NE(r.err.find("nqcount: note: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("instead of join"), std::string::npos) << r.err;
  // Below the join's threshold auto would not have taken the join: nothing to say.
  const Outcome below = nqcount("--n 10 --split-depth 1 --json --no-progress");
  ASSERT_EQ(below.status, 0) << below.err;
  EXPECT_EQ(below.err, "");
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
  // Checked as --kernel's value is, and said as the variable's, not as a --kernel never typed.
  const Outcome r = nqcount("count --n 9");
  EXPECT_EQ(r.err.rfind("nqcount: error: NQ_KERNEL: avx3 ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("--kernel"), std::string::npos) << r.err;
  EXPECT_EQ(nqcount("--n 9 --kernel avx3").err.rfind("nqcount: error: --kernel: avx3 ", 0), 0u);
}

// --kernel wins over a bad NQ_KERNEL, which only count reads: the other commands, and the help,
// are not refused for it.
TEST(Cli, BadNqKernelStopsOnlyACountThatUsesIt) {
  ScopedEnv env("NQ_KERNEL", "bogus");
  const Outcome flag = nqcount("--n 9 --json --kernel reference");
  ASSERT_EQ(flag.status, 0) << flag.err;
  EXPECT_EQ(nlohmann::json::parse(flag.out)["kernel"], "reference");
  EXPECT_EQ(nqcount("table --n 8").status, 0);
  EXPECT_EQ(nqcount("solve --n 8 --seed 1").status, 0);
  for (const char* help : {"--help", "count --help", "--n 9 --help"}) {
    const Outcome h = nqcount(help);
    EXPECT_EQ(h.status, 0) << help << ": " << h.err;
    EXPECT_NE(h.out.find("Usage:"), std::string::npos) << help;
  }
}

TEST(Cli, NqKernelReferenceIsUsedAndAnEmptyOneIsAuto) {
  {
    ScopedEnv env("NQ_KERNEL", "reference");
    const Outcome r = nqcount("--n 9 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["kernel"], "reference");
    EXPECT_EQ(nlohmann::json::parse(nqcount("--n 9 --json --kernel scalar").out)["kernel"],
              "scalar");
    // The variable is no --kernel on the command line: --algo dp, which refuses --kernel, runs.
    EXPECT_EQ(nqcount("--n 8 --algo dp").status, 0);
  }
  ScopedEnv empty("NQ_KERNEL", "");
  EXPECT_EQ(nlohmann::json::parse(nqcount("--n 9 --json").out)["kernel"],
            std::string(nq::best_kernel().name));
}

TEST(Cli, KernelTheCpuCannotRunExitsTwo) {
  // The C library takes these features away from the program, as on a CPU without them (the
  // kernels ask it: kernels/src/isa_targets.hpp, cpu_has).
  ScopedEnv env("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX512F,-AVX2");
  for (const char* args : {"--n 9 --kernel avx512", "--n 9 --kernel avx2"}) {
    const Outcome r = nqcount(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err.rfind("nqcount: error: ", 0), 0u) << args << ": " << r.err;
    EXPECT_NE(r.err.find("cannot run on this CPU"), std::string::npos) << args;
  }
  EXPECT_EQ(nlohmann::json::parse(nqcount("--n 9 --json").out)["kernel"], "scalar");
  EXPECT_EQ(nlohmann::json::parse(nqcount("--n 16 --json").out)["isa"], "scalar");
  // A known name this CPU cannot run, from NQ_KERNEL: the engine's refusal names the variable.
  ScopedEnv kernel("NQ_KERNEL", "avx2");
  const Outcome r = nqcount("--n 9");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("nqcount: error: NQ_KERNEL: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("cannot run on this CPU"), std::string::npos) << r.err;
}

// ---- the join kernel: chosen by n, same counts as the search routes ---------------------

TEST(Cli, AutoPicksTheJoinFromItsThreshold) {
  const std::string below = std::to_string(nq::kJoinFromN - 1), at = std::to_string(nq::kJoinFromN);
  EXPECT_EQ(nlohmann::json::parse(nqcount("--n " + below + " --json").out)["kernel"],
            std::string(nq::best_kernel().name));
  const Outcome r = nqcount("--n " + at + " --json --verify");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kernel"], "join");
  EXPECT_EQ(j["verified"], true);
}

TEST(Cli, JoinAgreesWithTheScalarAndReferenceRoutes) {
  for (int n = 12; n <= 14; ++n) {
    const auto join =
        nlohmann::json::parse(nqcount("--n " + std::to_string(n) + " --json --kernel join").out);
    for (const char* other : {"scalar", "reference"}) {
      const auto j = nlohmann::json::parse(
          nqcount("--n " + std::to_string(n) + " --json --kernel " + other).out);
      EXPECT_EQ(j["total"], join["total"]) << n << " " << other;
      EXPECT_EQ(j["unique"], join["unique"]) << n << " " << other;
      EXPECT_EQ(j["orbits"], join["orbits"]) << n << " " << other;
    }
  }
}

// ---- --memory-limit ---------------------------------------------------------------------

TEST(Cli, MemoryEstimateIsPrinted) {
  const Outcome r = nqcount("--n 12 --json --kernel join");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("memory_estimate_bytes"));
  EXPECT_GT(j["memory_estimate_bytes"].get<std::uint64_t>(), 0u);
  EXPECT_NE(nqcount("--n 12").out.find("memory"), std::string::npos);
}

TEST(Cli, MemoryLimitTooSmallRefusesWithOneLine) {
  for (const char* args : {"--n 12 --memory-limit 1K", "--n 16 --kernel join --memory-limit 2M",
                           "--n 2 --memory-limit 100"}) {
    expect_usage_error(args);
    const std::string err = nqcount(args).err;
    EXPECT_NE(err.find("above the memory limit"), std::string::npos) << args << ": " << err;
  }
  // Just the estimate is enough.
  const auto j = nlohmann::json::parse(nqcount("--n 12 --json").out);
  const std::string exact = std::to_string(j["memory_estimate_bytes"].get<std::uint64_t>());
  EXPECT_EQ(nqcount("--n 12 --memory-limit " + exact).status, 0);
}

TEST(Cli, MemoryLimitAcceptsSizesAndRejectsOthers) {
  for (const char* ok : {"512M", "8G", "8GB", "1.5G", "4000000000", "1T"})
    EXPECT_EQ(nqcount(std::string("--n 8 --memory-limit ") + ok).status, 0) << ok;
  for (const char* bad : {"abc", "-1", "0", "8X", "1.5", "1e9", "99999999999T"}) {
    expect_usage_error(std::string("--n 8 --memory-limit ") + bad);
    EXPECT_NE(nqcount(std::string("--n 8 --memory-limit ") + bad).err.find("--memory-limit"),
              std::string::npos)
        << bad;
  }
  expect_usage_error("--n 8 --memory-limit");
  EXPECT_NE(nqcount("count --help").out.find("--memory-limit"), std::string::npos);
}

}  // namespace
