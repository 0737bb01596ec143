// `nqcount solve` run as a user runs it: formats, files, exit codes, one-line errors.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

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

#include "engine/solve/solve.hpp"
#include "tests/cli_runner.hpp"
#include "tests/support/sanitized.hpp"

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

  // A bad line: its number in the message, exit 2, and the good lines written all the same.
  {
    std::ofstream b(dir / "bad.txt");
    b << "8\n# fine\n12x\n10\n";
  }
  const fs::path good = dir / "good.txt";
  const Outcome bad =
      nqcount("solve --batch " + (dir / "bad.txt").string() + " --output " + good.string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("bad.txt:3:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("12x"), std::string::npos) << bad.err;
  std::istringstream good_lines(read(good));
  std::vector<std::size_t> good_sizes;
  for (std::string line; std::getline(good_lines, line);) {
    EXPECT_TRUE(is_solution(numbers(line))) << line;
    good_sizes.push_back(numbers(line).size());
  }
  EXPECT_EQ(good_sizes, (std::vector<std::size_t>{8, 10}));
  const fs::path none = dir / "none.txt";
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
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 6);
}

// The solutions a batch wrote, one line each: the size of each, after checking it is one.
std::vector<std::size_t> solved_sizes(const std::string& text) {
  std::istringstream lines(text);
  std::vector<std::size_t> sizes;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(is_solution(numbers(line))) << line;
    sizes.push_back(numbers(line).size());
  }
  return sizes;
}

std::size_t lines_in(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Issue #47 item 3: a batch solves every good entry, reports every bad one as FILE:LINE: on
// stderr, ends with one summary line and exits 2; to stdout, to --output and in --json alike.
TEST(SolveCli, BatchSolvesEveryGoodEntryAndReportsEveryBadOne) {
  const fs::path dir = temp_dir("batch-bad");
  const std::string file = (dir / "sizes.txt").string();
  std::ofstream(file) << "8\nabc\n6\n-5\n10\n";
  const std::vector<std::size_t> good{8, 6, 10};
  auto expect_report = [&](const Outcome& r) {
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(lines_in(r.err), 3u) << r.err;  // two bad entries and the summary
    EXPECT_EQ(r.err.rfind("nqcount: error: " + file + ":2: 'abc' is not a board size", 0), 0u)
        << r.err;
    EXPECT_NE(r.err.find("nqcount: error: " + file + ":4: '-5' is not a board size"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("2 of 5 entries are not board sizes (lines 2, 4)"), std::string::npos)
        << r.err;
  };
  const Outcome to_stdout = nqcount("solve --batch " + file + " --seed 4");
  expect_report(to_stdout);
  EXPECT_EQ(solved_sizes(to_stdout.out), good);

  const fs::path out = dir / "out.txt";
  const Outcome to_file = nqcount("solve --batch " + file + " --seed 4 --output " + out.string());
  expect_report(to_file);
  EXPECT_TRUE(to_file.out.empty());
  EXPECT_EQ(read(out), to_stdout.out);

  const Outcome json = nqcount("solve --batch " + file + " --seed 4 --json");
  expect_report(json);
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["runs"].size(), 3u);
  for (std::size_t k = 0; k < good.size(); ++k) {
    EXPECT_EQ(j["runs"][k]["n"], good[k]);
    EXPECT_EQ(j["runs"][k]["verified"], true);
    std::vector<long long> p;
    for (const auto& v : j["runs"][k]["solution"]) p.push_back(v.get<long long>());
    EXPECT_TRUE(is_solution(p)) << k;
  }
  ASSERT_EQ(j["bad_entries"].size(), 2u);
  EXPECT_EQ(j["bad_entries"][0]["line"], 2);
  EXPECT_EQ(j["bad_entries"][1]["line"], 4);

  // Nothing but bad entries: every one reported, nothing written, no output file.
  std::ofstream(file) << "x\n\n-1, 0\n";
  const fs::path none = dir / "none.txt";
  const Outcome all_bad = nqcount("solve --batch " + file + " --output " + none.string());
  EXPECT_EQ(all_bad.status, 2);
  EXPECT_EQ(lines_in(all_bad.err), 4u) << all_bad.err;
  EXPECT_NE(all_bad.err.find("none of its 3 entries is a board size (lines 1, 3); nothing written"),
            std::string::npos)
      << all_bad.err;
  EXPECT_TRUE(all_bad.out.empty());
  EXPECT_FALSE(fs::exists(none));
}

// Each kind of bad entry, with its reason; numbers follow --n's rule (010 is refused by both,
// in the same words).
TEST(SolveCli, BatchNamesEachKindOfBadEntry) {
  const std::string file = temp_path("kinds.txt");
  struct Case {
    std::string entry, reason;
  };
  const std::string not_decimal =
      "is not a board size: not a whole decimal number (digits only, no sign, no leading zero)";
  const std::string range = "is not a board size: out of range; board sizes are 1..2000000000";
  for (const Case& c : std::vector<Case>{{"abc", not_decimal},
                                         {"12x", not_decimal},
                                         {"-5", not_decimal},
                                         {"+5", not_decimal},
                                         {"010", not_decimal},
                                         {"0x8", not_decimal},
                                         {"8.0", not_decimal},
                                         {"0", range},
                                         {"2000000001", range},
                                         {"99999999999999999999999", range}}) {
    std::ofstream(file) << "4\n" << c.entry << "\n";
    const Outcome r = nqcount("solve --batch " + file + " --seed 1");
    EXPECT_EQ(r.status, 2) << c.entry;
    EXPECT_EQ(r.err.rfind("nqcount: error: " + file + ":2: '" + c.entry + "' " + c.reason, 0), 0u)
        << r.err;
    EXPECT_EQ(lines_in(r.err), 2u) << r.err;
    EXPECT_EQ(solved_sizes(r.out), std::vector<std::size_t>{4}) << c.entry;
  }
  // --n says the same of 010.
  EXPECT_NE(nqcount("solve --n 010")
                .err.find("not a whole decimal number (digits only, no sign, no leading zero)"),
            std::string::npos);
  // The largest size is a size (not solved here: it is read, and refused for stdout only).
  std::ofstream(file) << "2000000000\n";
  const Outcome top = nqcount("solve --batch " + file);
  EXPECT_EQ(top.status, 2);
  EXPECT_EQ(lines_in(top.err), 1u) << top.err;
  EXPECT_NE(top.err.find("give --output FILE"), std::string::npos) << top.err;
}

// What the reader forgives, and says so in docs/solve.md: empty and blank lines, # comments, a
// UTF-8 byte-order mark at the start, CRLF line ends, commas and blanks between sizes.
TEST(SolveCli, BatchSkipsEmptyLinesCommentsABomAndCrlf) {
  const std::string file = temp_path("forgiving.txt");
  {
    std::ofstream f(file, std::ios::binary);
    f << "\xEF\xBB\xBF# sizes\r\n8\r\n\r\n\n   \t\n6, 5 # two more\r\n#10\n1";
  }
  const Outcome r = nqcount("solve --batch " + file + " --seed 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(solved_sizes(r.out), (std::vector<std::size_t>{8, 6, 5, 1}));
  // A byte-order mark anywhere else is no blank: the entry it starts is bad.
  {
    std::ofstream f(file, std::ios::binary);
    f << "8\n\xEF\xBB\xBF"
         "6\n";
  }
  const Outcome mid = nqcount("solve --batch " + file + " --seed 2");
  EXPECT_EQ(mid.status, 2);
  EXPECT_NE(mid.err.find(file + ":2: "), std::string::npos) << mid.err;
  // Quoted visibly: an invisible mark in the quote would read '6' is not a board size.
  EXPECT_NE(mid.err.find("'\\xef\\xbb\\xbf6' is not a board size"), std::string::npos) << mid.err;
  EXPECT_EQ(solved_sizes(mid.out), std::vector<std::size_t>{8});
  // Only comments and blank lines: no board size, one line.
  std::ofstream(file) << "# nothing\n\n";
  const Outcome empty = nqcount("solve --batch " + file);
  EXPECT_EQ(empty.status, 2);
  EXPECT_EQ(lines_in(empty.err), 1u) << empty.err;
  EXPECT_NE(empty.err.find("holds no board size"), std::string::npos) << empty.err;
}

// A batch file that cannot be read at all is one error line, exit 2, nothing written: a
// directory, a file whose read fails (EIO), and a file without read permission.
TEST(SolveCli, BatchFileThatCannotBeReadIsOneLine) {
  const fs::path dir = temp_dir("unreadable");
  const fs::path out = dir / "out.txt";
  struct Case {
    std::string path, reason;
  };
  std::vector<Case> cases{{dir.string(), "it is a directory"},
                          {"/proc/self/mem", "Input/output error"}};
  const std::string locked = (dir / "locked.txt").string();
  std::ofstream(locked) << "8\n";
  fs::permissions(locked, fs::perms::none);
  if (::geteuid() != 0) cases.push_back({locked, "Permission denied"});  // root reads it anyway
  for (const Case& c : cases) {
    const Outcome r = nqcount("solve --batch " + c.path + " --output " + out.string());
    EXPECT_EQ(r.status, 2) << c.path << ": " << r.err;
    EXPECT_EQ(r.err, "nqcount: error: cannot read --batch '" + c.path + "': " + c.reason + "\n");
    EXPECT_TRUE(r.out.empty());
    EXPECT_FALSE(fs::exists(out)) << c.path;
  }
}

TEST(SolveCli, TooFewDistinctSolutionsExitOne) {
  const Outcome r = nqcount("solve --n 4 --solutions 3");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("found only 2"), std::string::npos) << r.err;
}

// A search that cannot succeed ends at the restart limit (1000 restarts in a row by default),
// exit 1 with one line and nothing written; the record says why. It used to restart forever.
TEST(SolveCli, HopelessSettingsGiveUpAtTheRestartLimit) {
  const std::string out = temp_path("hopeless.txt");
  const Outcome r = shell("timeout 60 " + std::string(NQCOUNT_BIN) +
                          " solve --n 50 --method swap --max-tries 1 --seed 1 --output " + out);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(lines_in(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("gave up after 1000 restarts in a row"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  const Outcome j = nqcount("solve --n 50 --method swap --max-tries 1 --max-restarts 7 --json");
  EXPECT_EQ(j.status, 1);
  const auto record = nlohmann::json::parse(j.out);
  EXPECT_EQ(record["status"], "restart limit");
  EXPECT_EQ(record["restarts"], 8);  // attempts 0..7, every one failed
  EXPECT_EQ(record["verified"], false);
}

// A tiny time limit on a large board stops the search at once, in every phase (the textbook
// QS4 polled only its repair: it ran its whole start-up and wrote the file), exit 1, one line,
// nothing written.
TEST(SolveCli, ATinyTimeLimitOnALargeBoardStopsAndWritesNothing) {
  const fs::path dir = temp_dir("tiny_limit");
  for (const std::string& run :
       {std::string("--method qs4-plain --n 3000000"), std::string("--method blnq --n 10000000")}) {
    const Outcome r =
        nqcount("solve " + run + " --time-limit 0.05 --threads 2 --output " + (dir / "F").string());
    EXPECT_EQ(r.status, 1) << run << ": " << r.err;
    EXPECT_EQ(lines_in(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("time limit of 0.05 s reached"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(dir)) << run;  // no output file, no temporary one
  }
}

// A number typed as 1e-320 is written back short, not as its 323 plain decimals.
TEST(SolveCli, TinyTimeLimitsAreWrittenCompactly) {
  const Outcome r = nqcount("solve --n 5 --time-limit 1e-320");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("time limit of 1e-320 s reached"), std::string::npos) << r.err;
  EXPECT_LT(r.err.size(), 160u) << r.err;
}

// A batch that a time limit ends still prints its JSON record (the sizes solved before it, the
// one that ran out, "status"), exits 1, and writes nothing; with bad entries too, it keeps their
// status 2 and says what became of the rest.
TEST(SolveCli, BatchEndedByItsTimeLimitPrintsItsRecordAndKeepsTheBadEntriesStatus) {
  const std::string file = temp_path("limited.txt"), out = temp_path("limited_out.txt");
  std::ofstream(file) << "5 50000000\n";
  const Outcome r =
      nqcount("solve --batch " + file + " --time-limit 0.3 --json --seed 1 --output " + out);
  EXPECT_EQ(r.status, 1) << r.err;
  ASSERT_FALSE(r.out.empty()) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "time limit");
  ASSERT_EQ(j["runs"].size(), 2u) << r.out;
  EXPECT_EQ(j["runs"][0]["n"], 5);
  EXPECT_FALSE(j["runs"][0].contains("solution"));  // nothing is written
  EXPECT_EQ(j["runs"][1]["status"], "time limit");
  EXPECT_FALSE(fs::exists(out));
  std::ofstream(file) << "5 abc 50000000\n";
  const Outcome bad =
      nqcount("solve --batch " + file + " --time-limit 0.3 --json --seed 1 --output " + out);
  EXPECT_EQ(bad.status, 2) << bad.err;
  const auto b = nlohmann::json::parse(bad.out);
  EXPECT_EQ(b["bad_entries"].size(), 1u);
  EXPECT_EQ(b["status"], "time limit");
  EXPECT_NE(bad.err.find("the batch ended before"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(out));
}

// --runs K with the restarting methods: K solves from their own seeds, and how many found a
// solution at their first attempt (Candia & Astudillo's Table 4 counts those for Gu's QS4).
TEST(SolveCli, RunsReportFirstAttemptSuccesses) {
  const Outcome r = nqcount("solve --n 50 --method qs4-plain --runs 6 --seed 3 --json --threads 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs_done"], 6);
  std::uint64_t first = 0;
  for (const auto& run : j["per_run"]) first += run["first_attempt"].get<bool>();
  EXPECT_EQ(j["first_attempt_successes"], first);
  EXPECT_EQ(j["solved"], 6);
  // The same seed, the same runs, at any thread count.
  const auto two = nlohmann::json::parse(
      nqcount("solve --n 50 --method qs4-plain --runs 6 --seed 3 --json --threads 2").out);
  EXPECT_EQ(two["per_run"][5]["restarts"], j["per_run"][5]["restarts"]);
  // Every run of a hopeless setting fails: a result, not an error.
  const auto hopeless = nlohmann::json::parse(
      nqcount("solve --n 50 --method swap --max-tries 1 --max-restarts 3 --runs 2 --json").out);
  EXPECT_EQ(hopeless["solved"], 0);
  EXPECT_EQ(hopeless["per_run"][0]["status"], "restart limit");
  const Outcome text = nqcount("solve --n 8 --runs 3 --seed 1");
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("first-attempt successes "), std::string::npos) << text.out;
  for (const char* refused :
       {"solve --n 8 --runs 3 --output x.txt", "solve --n 8 --runs 3 --solutions 2",
        "solve --n 8 --runs 3 --format json"})
    expect_usage_error(refused);
}

// --memory-limit refuses a run whose estimated peak is above it, before any work: one line,
// exit 2, no file.
TEST(SolveCli, MemoryLimitRefusesBeforeTheWork) {
  const std::string out = temp_path("too_big.txt");
  const Outcome r = nqcount("solve --n 1000000 --memory-limit 1M --output " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lines_in(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("above the memory limit of 1048576 bytes"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  const auto ok = nlohmann::json::parse(nqcount("solve --n 1000 --json --memory-limit 1G").out);
  EXPECT_GT(ok["memory_estimate_bytes"].get<std::uint64_t>(), 0u);
  expect_usage_error("solve --n 8 --memory-limit 12Q");
}

// Out of address space (ulimit -v), whatever the limit: a solution, or one error line and
// exit 2 (memory or a thread the system refused), never an abort, and never a temporary file
// left beside the output.
TEST(SolveCli, OutOfMemoryIsOneErrorLineAndNoFileLeft) {
  if (nq::test_support::kSanitized)
    GTEST_SKIP() << "an address-space limit leaves no room for the sanitizers' shadow memory";
  const fs::path dir = temp_dir("ulimit");
  std::size_t refused = 0;
  // The last limit leaves room for glibc's arena of each thread: between it and the others,
  // malloc retries a failing mmap at every allocation, and a solve that succeeds takes seconds.
  for (const int kb : {16000, 20000, 24000, 200000}) {
    const Outcome r =
        shell("cd " + dir.string() + " && ulimit -v " + std::to_string(kb) + " && exec " +
              std::string(NQCOUNT_BIN) + " solve --n 100000 --threads 2 --output F");
    if (r.status == 0) {
      EXPECT_TRUE(fs::exists(dir / "F")) << kb;
    } else {
      EXPECT_EQ(r.status, 2) << kb << ": " << r.err;
      EXPECT_EQ(r.err.rfind("nqcount: error: ", 0), 0u) << kb << ": " << r.err;
      EXPECT_EQ(lines_in(r.err), 1u) << kb << ": " << r.err;
      ++refused;
    }
    for (const auto& entry : fs::directory_iterator(dir))
      EXPECT_EQ(entry.path().filename(), "F") << kb << ": left " << entry.path();
    fs::remove(dir / "F");
  }
  EXPECT_GT(refused, 0u);  // not vacuous: some limit is too small
}

}  // namespace
