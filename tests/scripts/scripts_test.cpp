// The scripts a user runs by hand (scripts/): here `scripts/bench --frontier`, the figures the
// join's frontier work is judged by, and `scripts/doc-examples`, the documentation's checker. Its
// arithmetic is checked with stand-in binaries whose times are known (shell scripts that print a
// --json result), its counting with the real one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
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

// scripts/mpi-replay-check refuses bad cases and options with one line and exit 2, before it
// runs anything.
TEST(MpiReplayCheck, BadOptionsAreOneErrorLine) {
  for (const std::string args : {"", "20", "20:0", "x:8", "20:8x", "--bogus 20:8", "--cores 0 20:2",
                                 "--threads two 20:2", "20:2 --samples"}) {
    const Outcome r =
        shell("NQCOUNT=" NQCOUNT_BIN " " NQ_SOURCE_DIR "/scripts/mpi-replay-check " + args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err.rfind("nqcount: error: mpi-replay-check: ", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

// scripts/estimate-coverage: one row a board, the misses of the interval over the seeds (a
// function of the seed alone), and bad options as one line, exit 2.
TEST(EstimateCoverage, OneRowABoardAndBadOptionsAreOneErrorLine) {
  const Outcome r =
      shell("NQCOUNT=" NQCOUNT_BIN " " NQ_SOURCE_DIR "/scripts/estimate-coverage --seeds 3 10");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line, last;
  while (std::getline(lines, line)) last = line;
  EXPECT_EQ(last.rfind("10  3      ", 0), 0u) << r.out;
  for (const std::string args : {"", "--seeds 0 10", "--bogus 10", "28", "--seeds"}) {
    const Outcome bad =
        shell("NQCOUNT=" NQCOUNT_BIN " " NQ_SOURCE_DIR "/scripts/estimate-coverage " + args);
    EXPECT_EQ(bad.status, 2) << args;
    EXPECT_EQ(bad.err.rfind("nqcount: error: estimate-coverage: ", 0), 0u)
        << args << ": " << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << args << ": " << bad.err;
  }
}

// scripts/solve-stop-check refuses bad options with one line and exit 2, before it runs anything
// (the check itself takes a minute and gigabytes: it is run by hand, docs/solve.md).
TEST(SolveStopCheck, BadOptionsAreOneErrorLine) {
  for (const std::string args : {"--bogus", "--methods qs5", "--threads 0", "--threads two",
                                 "--delay", "--delay x", "--limit -1", "--slack 1s"}) {
    const Outcome r =
        shell("NQCOUNT=" NQCOUNT_BIN " " NQ_SOURCE_DIR "/scripts/solve-stop-check " + args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err.rfind("nqcount: error: solve-stop-check: ", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

// scripts/doc-examples on a small repository of its own: a README.md, a docs/ page and a source
// file whose comment names a section.
std::string doc_fixture(const std::string& name, const std::string& readme,
                        const std::string& source_comment = "docs/a.md, \"First section\"") {
  const std::string root = temp_dir(name);
  std::filesystem::create_directories(root + "/docs");
  std::ofstream(root + "/README.md") << readme;
  std::ofstream(root + "/docs/a.md") << "# A page\n\n## First section\n\n"
                                        "## Second, with `code` (and more)\n";
  std::ofstream(root + "/main.cpp") << "// See " << source_comment << ".\n";
  return root;
}

Outcome doc_examples(const std::string& root, const std::string& args = "") {
  return shell("NQCOUNT=" NQCOUNT_BIN " " NQ_SOURCE_DIR "/scripts/doc-examples --root " + root +
               " " + args);
}

const std::string kGoodReadme =
    "# Tool\n\n[a page](docs/a.md), [its section](docs/a.md#second-with-code-and-more), "
    "[here](#tool)\n\n"
    "```sh\nnqcount --n 6 --threads 1 > out.txt   # a comment\nnqcount --n 6 --threads 1 "
    "--json\n```\n\n"
    "<!-- doc-test: --n 99 => --n 5 -->\n```console\n$ nqcount --n 99 --threads 1\n```\n\n"
    "<!-- doc-test: exit 2 -->\n```\nnqcount --n abc\n```\n\n"
    "| command | example |\n|---|---|\n| count | `nqcount --n 4 --verify` |\n"
    "| bad | `nqcount --n 0x` <!-- doc-test: exit 2 --> |\n";

TEST(DocExamples, DocumentedExamplesAndLinksPass) {
  const Outcome r = doc_examples(doc_fixture("docs-good", kGoodReadme));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("6 examples run, 0 skipped"), std::string::npos) << r.err;
}

TEST(DocExamples, AnExampleThatExitsOtherwiseThanDocumentedFails) {
  const std::string readme =
      "# Tool\n\n```sh\nnqcount --n abc\nnqcount --n 4\n```\n\n"
      "| x | `nqcount --n 4` <!-- doc-test: exit 2 --> |\n";
  const Outcome r = doc_examples(doc_fixture("docs-exit", readme), "--examples-only");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("nqcount: error: README.md:4: `nqcount --n abc` exited 2, documented 0"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nqcount: error: README.md:8: `nqcount --n 4` exited 0, documented 2"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 3) << r.err;  // the summary, 2 errors
}

TEST(DocExamples, ABrokenLinkOrSectionReferenceFails) {
  const std::string readme =
      "# Tool\n\n[gone](docs/b.md) and [no such section](docs/a.md#third-section)\n"
      "[nor here](#usage)\n";
  const Outcome r =
      doc_examples(doc_fixture("docs-links", readme, "the README's\n// \"Usage\""), "--links-only");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("README.md:3: link to a missing file: docs/b.md"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("README.md:3: link to a missing section: docs/a.md#third-section"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("README.md:4: link to a missing section: #usage"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("main.cpp:1: reference to a missing section: README, \"Usage\""),
            std::string::npos)
      << r.err;
}

TEST(DocExamples, BadOptionsAreOneErrorLine) {
  const std::string root = doc_fixture("docs-usage", "# Tool\n");
  for (const std::string args : {"--bogus", "--timeout", "--timeout x",
                                 "--links-only --examples-only", "--root /nonexistent"}) {
    const Outcome r = shell(NQ_SOURCE_DIR "/scripts/doc-examples " +
                            (args.rfind("--root", 0) == 0 ? args : "--root " + root + " " + args));
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err.rfind("nqcount: error: ", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

// scripts/check-layers on small trees of its own: a clean tree passes; an include of a floor
// above (the kernels reaching into the engine) and an include loop each fail with the file and
// line; this repository itself passes.
void write_source(const std::string& root, const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(root + "/" + path).parent_path());
  std::ofstream(root + "/" + path) << text;
}

Outcome check_layers(const std::string& root) {
  return shell(NQ_SOURCE_DIR "/scripts/check-layers " + root);
}

TEST(CheckLayers, FloorsAndLoopsAreChecked) {
  const std::string root = temp_dir("layers");
  write_source(root, "base/types.hpp", "#pragma once\n");
  write_source(root, "kernels/k.hpp", "#include \"base/types.hpp\"\n");
  write_source(root, "engine/count/c.hpp", "#include \"kernels/k.hpp\"\n");
  write_source(root, "cli/main.cpp", "#include \"engine/count/c.hpp\"\n#include <vector>\n");
  const Outcome clean = check_layers(root);
  EXPECT_EQ(clean.status, 0) << clean.err;

  write_source(root, "kernels/k.hpp",
               "#include \"base/types.hpp\"\n#include \"engine/count/c.hpp\"\n");
  const Outcome up = check_layers(root);
  EXPECT_EQ(up.status, 1);
  EXPECT_NE(up.err.find("nqcount: error: kernels/k.hpp:2: includes engine/count/c.hpp, a floor "
                        "above kernels/"),
            std::string::npos)
      << up.err;
  EXPECT_NE(up.err.find("include loop"), std::string::npos) << up.err;  // c.hpp -> k.hpp -> c.hpp

  write_source(root, "kernels/k.hpp", "#include \"base/types.hpp\"\n");
  write_source(root, "engine/count/a.hpp", "#include \"engine/count/b.hpp\"\n");
  write_source(root, "engine/count/b.hpp", "#include \"engine/count/a.hpp\"\n");
  const Outcome loop = check_layers(root);
  EXPECT_EQ(loop.status, 1);
  EXPECT_NE(loop.err.find("closes an include loop"), std::string::npos) << loop.err;
  EXPECT_EQ(loop.err.find("a floor above"), std::string::npos) << loop.err;
}

// A library's face (nq_public_headers in its CMakeLists.txt): the programs and the benchmarks
// include only its public headers, and its other headers hide their names in `detail`.
TEST(CheckLayers, ConsumersSeeOnlyTheFacesAndInternalsHideInDetail) {
  const std::string root = temp_dir("faces");
  write_source(root, "base/types.hpp", "#pragma once\n");
  write_source(root, "engine/count/CMakeLists.txt",
               "add_library(nq_count STATIC count.cpp)\n"
               "# nq_public_headers(nq_count ignored.hpp) in a comment is no declaration\n"
               "nq_public_headers(nq_count count.hpp\n                  plan.hpp)\n");
  write_source(root, "engine/count/count.hpp",
               "#include \"engine/count/src/cost.hpp\"\nnamespace nq {\n}\n");
  write_source(root, "engine/count/plan.hpp", "namespace nq {\n}\n");
  write_source(root, "engine/count/src/cost.hpp", "namespace nq::detail {\n}\n");
  write_source(root, "cli/main.cpp", "#include \"engine/count/count.hpp\"\n");
  write_source(root, "perf/bench.cpp", "#include \"engine/count/plan.hpp\"\n");
  const Outcome clean = check_layers(root);
  EXPECT_EQ(clean.status, 0) << clean.err;
  EXPECT_NE(clean.err.find("1 libraries seen only through their faces"), std::string::npos)
      << clean.err;

  write_source(root, "perf/bench.cpp", "#include \"engine/count/src/cost.hpp\"\n");
  const Outcome reach = check_layers(root);
  EXPECT_EQ(reach.status, 1);
  EXPECT_NE(
      reach.err.find("nqcount: error: perf/bench.cpp:1: includes engine/count/src/cost.hpp, not "
                     "a public header of nq_count (its face: count.hpp plan.hpp)"),
      std::string::npos)
      << reach.err;

  write_source(root, "perf/bench.cpp", "#include \"engine/count/plan.hpp\"\n");
  write_source(root, "engine/count/src/cost.hpp", "#pragma once\nnamespace nq {\n}\n");
  const Outcome bare = check_layers(root);
  EXPECT_EQ(bare.status, 1);
  EXPECT_NE(
      bare.err.find("nqcount: error: engine/count/src/cost.hpp:2: declares in namespace nq, but "
                    "is not a public header of nq_count"),
      std::string::npos)
      << bare.err;

  write_source(root, "engine/count/src/cost.hpp", "namespace nq::detail {\n}\n");
  std::filesystem::remove(root + "/engine/count/plan.hpp");
  write_source(root, "perf/bench.cpp", "\n");
  const Outcome missing = check_layers(root);
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("public header engine/count/plan.hpp does not exist"),
            std::string::npos)
      << missing.err;
}

// The tree shows each face: a library's public headers are the headers at the top of its folder,
// the rest (sources and its own headers) under its src/, which no other library reaches into.
TEST(CheckLayers, TheTreeShowsEachFaceAndNoLibraryReachesIntoAnothersSource) {
  const std::string root = temp_dir("tree");
  write_source(root, "base/types.hpp", "#pragma once\n");
  write_source(root, "kernels/CMakeLists.txt", "nq_public_headers(nq_kernels kernels.hpp)\n");
  write_source(root, "kernels/kernels.hpp", "namespace nq {\n}\n");
  write_source(root, "kernels/src/limits.hpp", "namespace nq::detail {\n}\n");
  write_source(root, "kernels/src/kernels.cpp", "#include \"kernels/src/limits.hpp\"\n");
  write_source(root, "engine/count/CMakeLists.txt", "nq_public_headers(nq_count count.hpp)\n");
  write_source(root, "engine/count/count.hpp", "#include \"kernels/kernels.hpp\"\n");
  write_source(root, "engine/count/src/memory.cpp", "#include \"engine/count/count.hpp\"\n");
  const Outcome clean = check_layers(root);
  EXPECT_EQ(clean.status, 0) << clean.err;

  write_source(root, "engine/count/src/memory.cpp", "#include \"kernels/src/limits.hpp\"\n");
  const Outcome reach = check_layers(root);
  EXPECT_EQ(reach.status, 1);
  EXPECT_NE(reach.err.find("nqcount: error: engine/count/src/memory.cpp:1: includes "
                           "kernels/src/limits.hpp, inside nq_kernels (kernels/src/)"),
            std::string::npos)
      << reach.err;

  write_source(root, "engine/count/src/memory.cpp", "#include \"engine/count/count.hpp\"\n");
  write_source(root, "engine/count/cost.hpp", "namespace nq::detail {\n}\n");
  write_source(root, "engine/count/run.cpp", "\n");
  const Outcome shown = check_layers(root);
  EXPECT_EQ(shown.status, 1);
  EXPECT_NE(shown.err.find("engine/count/cost.hpp: at the top of engine/count/ but not a public "
                           "header of nq_count"),
            std::string::npos)
      << shown.err;
  EXPECT_NE(shown.err.find("engine/count/run.cpp: a source of nq_count outside engine/count/src/"),
            std::string::npos)
      << shown.err;
}

TEST(CheckLayers, ThisRepositoryPasses) {
  const Outcome r = shell(NQ_SOURCE_DIR "/scripts/check-layers");
  EXPECT_EQ(r.status, 0) << r.err;
}

}  // namespace
