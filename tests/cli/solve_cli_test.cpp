// `nqcount solve` run as a user runs it: formats, files, exit codes, one-line errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "solve/solve.hpp"
#include "tests/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

using namespace nq::test;  // nqcount, shell, Outcome, read_file, temp_path, ...

// 1-based rows, checked with one counter per row and diagonal.
bool is_solution(const std::vector<long long>& p, bool modular = false) {
  const long long n = static_cast<long long>(p.size());
  std::vector<int> counts(5 * n + 1, 0);
  for (long long i = 0; i < n; ++i) {
    const long long r = p[i] - 1;
    if (r < 0 || r >= n) return false;
    const long long s = modular ? (i + r) % n : i + r;
    const long long d = modular ? (i - r + n) % n : i - r + n;
    if (++counts[r] > 1 || ++counts[n + s] > 1 || ++counts[3 * n + d] > 1) return false;
  }
  return true;
}

std::vector<long long> numbers(const std::string& line) {
  std::istringstream in(line);
  std::vector<long long> v;
  for (long long x; in >> x;) v.push_back(x);
  return v;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return {(std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()};
}

TEST(SolveCli, BadInputExitsTwoWithOneLine) {
  const fs::path dir = temp_dir("bad");
  for (const std::string& a : std::vector<std::string>{
           "solve",
           "solve --n 0",
           "solve --n -4",
           "solve --n abc",
           "solve --n 3000000000",
           "solve --n 8 --threads 0",
           "solve --n 8 --method nope",
           "solve --n 8 --format nope",
           "solve --n 8 --seed -2",
           "solve --n 8 --bogus",
           "solve --n 8 --solutions 0",
           "solve --n 300 --format board",
           "solve --n 1000000 --format board --output " + (dir / "b.txt").string(),
           "solve --n 20000",
           "solve --n 12 --modular",
           "solve --n 9 --modular",
           "solve --n 8 --max-tries 10",
           "solve --n 8 --time-limit -1",
           "solve --n 8 --time-limit x",
           "solve --n 8 --batch " + (dir / "missing.txt").string(),
           "solve --n 8 --solutions 2 --format matrix",
           "solve --n 8 --output " + (dir / "no" / "such" / "dir.txt").string()})
    expect_usage_error(a);
  EXPECT_TRUE(fs::is_empty(dir));  // nothing partial left behind
}

TEST(SolveCli, PrintsAVerifiedPermutation) {
  for (int n : {4, 5, 8, 31, 200, 1000}) {
    const Outcome r = nqcount("solve --n " + std::to_string(n) + " --threads 2");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
    const auto p = numbers(r.out);
    ASSERT_EQ(p.size(), static_cast<std::size_t>(n));
    EXPECT_TRUE(is_solution(p)) << r.out;
  }
  const std::string help = nqcount("solve --help").out;
  for (const nq::SolveMethodInfo& info : nq::solve_methods()) {
    const std::string m = info.name;
    const Outcome r = nqcount("solve --n 64 --json --method " + m);
    ASSERT_EQ(r.status, 0) << m << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["method"], m);
    EXPECT_TRUE(is_solution(j["solution"].get<std::vector<long long>>())) << m;
    EXPECT_NE(help.find(m + " (" + info.description), std::string::npos) << m;
  }
  expect_usage_error("solve --n 64 --method qs5");
  EXPECT_EQ(nqcount("solve --n 40 --method swap --max-tries 5000").status, 0);
}

TEST(SolveCli, OneTwoAndThree) {
  EXPECT_EQ(nqcount("solve --n 1").out, "1\n");
  for (const char* n : {"2", "3"}) {
    const Outcome r = nqcount(std::string("solve --n ") + n);
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("has no solution"), std::string::npos) << r.err;
  }
}

// A single run's JSON record with no solution says so as a batch record does ("status": "no
// solution", no "verified"); other failures name theirs.
TEST(SolveCli, JsonRecordOfAFailedRunHasAStatus) {
  for (const char* n : {"2", "3"}) {
    const Outcome r = nqcount(std::string("solve --json --seed 1 --n ") + n);
    EXPECT_EQ(r.status, 1);
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["status"], "no solution") << r.out;
    EXPECT_FALSE(j.contains("verified")) << r.out;
    EXPECT_FALSE(j.contains("solution")) << r.out;
    EXPECT_EQ(j["n"], std::stoi(n));
  }
  const std::string batch = temp_path("three.txt");
  std::ofstream(batch) << "3\n";
  const auto b = nlohmann::json::parse(nqcount("solve --json --seed 1 --batch " + batch).out);
  const auto one = nlohmann::json::parse(nqcount("solve --json --seed 1 --n 3").out);
  EXPECT_EQ(b["runs"][0]["status"], one["status"]);
  const Outcome few = nqcount("solve --n 4 --solutions 3 --json --seed 1");
  EXPECT_EQ(few.status, 1);
  EXPECT_EQ(nlohmann::json::parse(few.out)["status"], "exhausted") << few.out;
}

TEST(SolveCli, SameSeedAndThreadsGiveTheSameSolution) {
  for (const char* a : {"solve --n 500 --seed 77 --threads 2", "solve --n 9 --seed 3 --threads 3",
                        "solve --n 150000 --seed 5 --threads 2 --output -"}) {
    const Outcome x = nqcount(a), y = nqcount(a);
    ASSERT_EQ(x.status, 0) << x.err;
    EXPECT_EQ(x.out, y.out) << a;
  }
  EXPECT_NE(nqcount("solve --n 500 --seed 1").out, nqcount("solve --n 500 --seed 2").out);
}

TEST(SolveCli, JsonRunRecord) {
  const Outcome r = nqcount("solve --n 20 --json --seed 9 --threads 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* f :
       {"n", "method", "seed", "threads", "restarts", "seconds", "verified", "solution"})
    EXPECT_TRUE(j.contains(f)) << f;
  EXPECT_EQ(j["n"], 20);
  EXPECT_EQ(j["method"], "qs4");
  EXPECT_EQ(j["seed"], 9);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["verified"], true);
  EXPECT_TRUE(is_solution(j["solution"].get<std::vector<long long>>()));
  // Without --seed one is drawn, and the record says which: rerunning with it repeats the run.
  const auto drawn = nlohmann::json::parse(nqcount("solve --n 300 --json --threads 2").out);
  const auto again = nlohmann::json::parse(
      nqcount("solve --n 300 --json --threads 2 --seed " + drawn["seed"].dump()).out);
  EXPECT_EQ(drawn["solution"], again["solution"]);
  // Large n: the record has no solution, the file has it.
  const fs::path dir = temp_dir("json");
  const Outcome big = nqcount("solve --n 200000 --json --output " + (dir / "big.txt").string());
  ASSERT_EQ(big.status, 0) << big.err;
  const auto jb = nlohmann::json::parse(big.out);
  EXPECT_FALSE(jb.contains("solution"));
  EXPECT_EQ(jb["output"], (dir / "big.txt").string());
  EXPECT_TRUE(is_solution(numbers(read(dir / "big.txt"))));
}

TEST(SolveCli, FormatsBoardJsonMatrix) {
  const Outcome board = nqcount("solve --n 8 --format board --seed 4");
  ASSERT_EQ(board.status, 0);
  std::istringstream lines(board.out);
  std::vector<long long> p(8, 0);
  int row = 0;
  for (std::string line; std::getline(lines, line); ++row) {
    ASSERT_EQ(line.size(), 8u);
    ASSERT_EQ(std::count(line.begin(), line.end(), 'Q'), 1);
    p[line.find('Q')] = row + 1;
  }
  EXPECT_EQ(row, 8);
  EXPECT_TRUE(is_solution(p));
  // The board and the permutation of the same seed are the same solution.
  EXPECT_EQ(numbers(nqcount("solve --n 8 --seed 4").out), p);

  const auto one = nlohmann::json::parse(nqcount("solve --n 12 --format json").out);
  EXPECT_EQ(one["n"], 12);
  EXPECT_TRUE(is_solution(one["solution"].get<std::vector<long long>>()));

  const Outcome many = nqcount("solve --n 10 --solutions 5 --format json --seed 2");
  ASSERT_EQ(many.status, 0) << many.err;
  const auto jm = nlohmann::json::parse(many.out);
  std::set<std::vector<long long>> distinct;
  for (const auto& s : jm["solutions"]) {
    EXPECT_TRUE(is_solution(s.get<std::vector<long long>>()));
    distinct.insert(s.get<std::vector<long long>>());
  }
  EXPECT_EQ(distinct.size(), 5u);

  const Outcome m = nqcount("solve --n 11 --modular --format matrix --seed 1");
  ASSERT_EQ(m.status, 0) << m.err;
  std::istringstream mm(m.out);
  std::string header;
  std::getline(mm, header);
  EXPECT_EQ(header, "%%MatrixMarket matrix coordinate pattern general");
  std::string line;
  while (std::getline(mm, line) && line[0] == '%') {
  }
  EXPECT_EQ(line, "11 11 11");
  std::vector<long long> q(11, 0);
  for (long long r, c; mm >> r >> c;) q.at(c - 1) = r;
  EXPECT_TRUE(is_solution(q, true));
}

TEST(SolveCli, ModularSolutionsSurviveEveryCyclicShift) {
  for (int n : {5, 13, 35, 1009}) {
    const Outcome r = nqcount("solve --n " + std::to_string(n) + " --modular --seed 8");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto p = numbers(r.out);
    for (int s = 0; s < n; ++s) {
      std::vector<long long> shifted(n);
      for (int i = 0; i < n; ++i) shifted[i] = p[(i + s) % n];
      ASSERT_TRUE(is_solution(shifted)) << n << " shift " << s;
    }
  }
}

TEST(SolveCli, OutputFileIsWrittenAtomically) {
  const fs::path dir = temp_dir("out");
  const fs::path file = dir / "sol.txt";
  const Outcome r = nqcount("solve --n 50000 --output " + file.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(is_solution(numbers(read(file))));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
  // A run that fails (time limit) leaves the old file alone and no temporary behind.
  const std::string before = read(file);
  const Outcome slow =
      nqcount("solve --n 200000 --method swap --time-limit 0.2 --output " + file.string());
  EXPECT_EQ(slow.status, 1);
  EXPECT_NE(slow.err.find("time limit"), std::string::npos) << slow.err;
  EXPECT_EQ(read(file), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
  // --output - sends a large solution to stdout on purpose.
  const Outcome dash = nqcount("solve --n 12000 --output -");
  ASSERT_EQ(dash.status, 0);
  EXPECT_EQ(numbers(dash.out).size(), 12000u);
}

TEST(SolveCli, LargeSolutionFilesMatchStdout) {
  // From n = 2^20 on, a solution file is formatted in parallel chunks and written in large
  // (O_DIRECT where allowed) writes; its text must be exactly what stdout gets, chunk
  // boundaries included.
  const fs::path dir = temp_dir("large");
  const std::string n = std::to_string((1 << 20) + (1 << 18) + 12345);
  for (const std::string format : {"perm", "json", "matrix"}) {
    const fs::path file = dir / ("sol." + format);
    const std::string common = "solve --n " + n + " --seed 3 --threads 2 --format " + format;
    const Outcome to_file = nqcount(common + " --output " + file.string());
    ASSERT_EQ(to_file.status, 0) << to_file.err;
    const Outcome to_stdout = nqcount(common + " --output -");
    ASSERT_EQ(to_stdout.status, 0) << to_stdout.err;
    const std::string text = read(file);
    EXPECT_EQ(text.size(), to_stdout.out.size()) << format;
    EXPECT_TRUE(text == to_stdout.out) << format;
    if (format == "perm") {
      EXPECT_TRUE(is_solution(numbers(text)));
    }
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 3);
}

TEST(SolveCli, BatchWritesOneLinePerN) {
  const fs::path dir = temp_dir("batch");
  {
    std::ofstream b(dir / "sizes.txt");
    b << "# board sizes\n8\n\n  1  \n100   # a comment\n4\n";
  }
  const fs::path out = dir / "out.txt";
  const Outcome r = nqcount("solve --batch " + (dir / "sizes.txt").string() + " --output " +
                            out.string() + " --seed 3");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(read(out));
  std::vector<std::size_t> sizes;
  for (std::string line; std::getline(lines, line);) {
    const auto p = numbers(line);
    EXPECT_TRUE(is_solution(p)) << line;
    sizes.push_back(p.size());
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{8, 1, 100, 4}));
  // To stdout, the same lines.
  EXPECT_EQ(nqcount("solve --batch " + (dir / "sizes.txt").string() + " --seed 3").out, read(out));

  // A bad line: its number in the message, exit 2, and no output file.
  {
    std::ofstream b(dir / "bad.txt");
    b << "8\n# fine\n12x\n10\n";
  }
  const fs::path none = dir / "none.txt";
  const Outcome bad =
      nqcount("solve --batch " + (dir / "bad.txt").string() + " --output " + none.string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("bad.txt:3:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("12x"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(none));
  // A size with no solution is a "no solution" line; the batch goes on.
  {
    std::ofstream b(dir / "three.txt");
    b << "8\n3\n5\n";
  }
  const fs::path three_out = dir / "three_out.txt";
  const Outcome three =
      nqcount("solve --batch " + (dir / "three.txt").string() + " --output " + three_out.string());
  EXPECT_EQ(three.status, 0) << three.err;
  std::istringstream three_lines(read(three_out));
  std::vector<std::string> got;
  for (std::string line; std::getline(three_lines, line);) got.push_back(line);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(is_solution(numbers(got[0])));
  EXPECT_EQ(got[1], "no solution");
  EXPECT_TRUE(is_solution(numbers(got[2])));
  EXPECT_FALSE(fs::exists(none));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 5);
}

TEST(SolveCli, TooFewDistinctSolutionsExitOne) {
  const Outcome r = nqcount("solve --n 4 --solutions 3");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("found only 2"), std::string::npos) << r.err;
}

}  // namespace
