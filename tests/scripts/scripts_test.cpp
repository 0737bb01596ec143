// The scripts a user runs by hand (scripts/): here `scripts/bench --frontier`, the figures the
// join's frontier work is judged by. Its arithmetic is checked with stand-in binaries whose
// times are known (shell scripts that print a --json result), its counting with the real one.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/cli_runner.hpp"

namespace {

using namespace nq::test;  // shell, Outcome, read_file, temp_dir, write_executable

// A stand-in for nqcount: logs "name n" to `log`, then prints {"seconds": s} with s from
// `times` (a shell case body such as "8) s=1;; 9) s=3;;"), or fails when `times` is empty.
std::string stand_in(const std::string& dir, const std::string& name, const std::string& times,
                     const std::string& log) {
  const std::string path = dir + "/" + name;
  write_executable(path,
                   "#!/bin/sh\n"
                   "n=\n"
                   "while [ $# -gt 0 ]; do [ \"$1\" = --n ] && n=$2; shift; done\n"
                   "echo \"" +
                       name + " $n\" >>" + log + "\n" +
                       (times.empty() ? "exit 1\n"
                                      : "case $n in " + times +
                                            " esac\n"
                                            "echo \"{\\\"seconds\\\": $s}\"\n"));
  return path;
}

Outcome bench(const std::string& nqcount_bin, const std::string& args) {
  return shell("NQCOUNT=" + nqcount_bin + " " NQ_SOURCE_DIR "/scripts/bench " + args);
}

TEST(BenchFrontier, MediansRatiosAndOddNAgainstTheGeometricMeanOfItsNeighbours) {
  const std::string dir = temp_dir("frontier");
  const std::string log = dir + "/calls";
  const std::string self = stand_in(dir, "self", "8) s=1;; 9) s=3;; 10) s=4;;", log);
  const std::string other = stand_in(dir, "other", "8) s=2;; 9) s=2;; 10) s=8;;", log);
  const Outcome r = bench(self, "--frontier --rounds 2 --against " + other + " 8 9 10");
  ASSERT_EQ(r.status, 0) << r.err;
  // n, this build's median, the other's, their ratio
  EXPECT_NE(r.out.find("\n8        1.0000     2.0000    0.500\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n9        3.0000     2.0000    1.500\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n10       4.0000     8.0000    0.500\n"), std::string::npos) << r.out;
  // 3 / sqrt(1 x 4) and 2 / sqrt(2 x 8); n = 8 and 10 have no two neighbours counted
  EXPECT_NE(r.out.find("# n = 9 (this build): 1.500\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# n = 9 (against): 0.500\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("# n = 8 ("), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("# n = 10 ("), std::string::npos) << r.out;
  // A round counts every n in turn, interleaved: A B in the first round, B A in the second.
  EXPECT_EQ(read_file(log),
            "self 8\nother 8\nself 9\nother 9\nself 10\nother 10\n"
            "other 8\nself 8\nother 9\nself 9\nother 10\nself 10\n");
}

TEST(BenchFrontier, WithoutAgainstOnlyThisBuild) {
  const std::string dir = temp_dir("alone");
  const std::string self = stand_in(dir, "self", "8) s=1;; 9) s=2;; 10) s=1;;", dir + "/calls");
  const Outcome r = bench(self, "--frontier --rounds 3 8 9 10");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\n9        2.0000\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# n = 9 (this build): 2.000\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(against)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("interleaved"), std::string::npos) << r.out;
  // The machine the figures come from: CPU model and family, CPUs (one machine type can come on
  // different CPU generations).
  EXPECT_NE(r.out.find("\n# machine: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" CPUs"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(dir + "/calls"),
            "self 8\nself 9\nself 10\nself 8\nself 9\nself 10\nself 8\nself 9\nself 10\n");
}

// The odd n's ratio is each round's own, then their median: a machine that slows down between
// rounds must not move it. Here n = 9 takes the geometric mean of its neighbours' times in round
// 1 and half of it in rounds 2 and 3 (in round 2 the machine is slow for n = 10, in round 3 for
// n = 8). The medians of the times would give 2 / sqrt(1 x 4) = 1; the rounds' ratios 1, 0.5, 0.5.
TEST(BenchFrontier, OddNIsComparedWithItsNeighboursInTheSameRound) {
  const std::string dir = temp_dir("drift");
  const std::string log = dir + "/calls";
  // The round is the number of times this n was counted before, from the log.
  const std::string self = dir + "/self";
  write_executable(self,
                   "#!/bin/sh\n"
                   "n=\n"
                   "while [ $# -gt 0 ]; do [ \"$1\" = --n ] && n=$2; shift; done\n"
                   "r=$(grep -c \"^self $n\\$\" " +
                       log +
                       " 2>/dev/null)\n"
                       "r=${r:-0}\n"
                       "echo \"self $n\" >>" +
                       log +
                       "\n"
                       "case $n.$r in 8.0|8.1) s=1;; 8.2) s=4;; 9.*) s=2;; 10.0|10.2) s=4;; "
                       "10.1) s=16;; esac\n"
                       "echo \"{\\\"seconds\\\": $s}\"\n");
  const Outcome r = bench(self, "--frontier --rounds 3 8 9 10");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\n8        1.0000\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n10       4.0000\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# n = 9 (this build): 0.500\n"), std::string::npos) << r.out;
}

// The real counts, checked against the known table (--verify) on the way.
TEST(BenchFrontier, CountsTheBoardsWithTheJoin) {
  const Outcome r = bench(NQCOUNT_BIN, "--frontier --rounds 1 --threads 2 --against " +
                                           std::string(NQCOUNT_BIN) + " 8 9 10");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* n : {"\n8 ", "\n9 ", "\n10 ", "# n = 9 (this build): ", "# n = 9 (against): "})
    EXPECT_NE(r.out.find(n), std::string::npos) << n << " in " << r.out;
}

// A bare file name names the file in the current folder, as a path would (not a command on PATH).
TEST(BenchFrontier, AgainstTakesAPathRelativeToTheCurrentFolder) {
  const std::string dir = temp_dir("relative");
  stand_in(dir, "self", "8) s=1;;", dir + "/calls");
  stand_in(dir, "old", "8) s=4;;", dir + "/calls");
  const Outcome r =
      shell("cd " + dir + " && NQCOUNT=" + dir +
            "/self " NQ_SOURCE_DIR "/scripts/bench --frontier --rounds 1 --against old 8");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\n8        1.0000     4.0000    0.250\n"), std::string::npos) << r.out;
}

TEST(BenchFrontier, AFailedCountStopsTheBench) {
  const std::string dir = temp_dir("fails");
  const std::string self = stand_in(dir, "self", "8) s=1;;", dir + "/calls");
  const std::string broken = stand_in(dir, "broken", "", dir + "/calls");
  const Outcome r = bench(self, "--frontier --rounds 1 --against " + broken + " 8");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("nqcount: error: bench: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("failed or counted wrong"), std::string::npos) << r.err;
}

TEST(BenchFrontier, BadOptionsAreOneErrorLine) {
  for (const std::string args :
       {"--frontier --against /nonexistent/nqcount 8", "--against " NQCOUNT_BIN " 8",
        "--frontier --rounds 0 8", "--frontier --against", "--frontier 3"}) {
    const Outcome r = bench(NQCOUNT_BIN, args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err.rfind("nqcount: error: bench: ", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

}  // namespace
