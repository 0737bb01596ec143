// The algebra commands (`orbit`, `edit`, `orbits`, `list`, `count --algo dp`) run as a user
// runs them: exit codes, stderr, JSON, and `list` into a closed pipe.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/count/known.hpp"
#include "tests/cli_runner.hpp"

namespace {

using namespace nq::test;  // nqcount, shell, Outcome, read_file, temp_path, ...

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<int> parse_row(const std::string& line) {
  std::vector<int> v;
  std::istringstream in(line);
  for (int x; in >> x;) v.push_back(x);  // list writes the perm format: "2 4 1 3"
  return v;
}

bool valid_solution(const std::vector<int>& p) {
  const int n = static_cast<int>(p.size());
  std::vector<int> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i)
    if (sorted[i] != i + 1) return false;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (std::abs(p[i] - p[j]) == j - i) return false;
  return true;
}

TEST(AlgebraCli, OrbitShowsImagesCanonicalSizeSymmetryAndSignature) {
  const Outcome r = nqcount("orbit --perm 2,4,1,3");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s :
       {"po1", "po2", "po3", "po4", "po5", "po6", "po7", "po8", "identity", "rotation by 90°",
        "rotation by 180°", "reflection", "canonical    2,4,1,3", "orbit size   2",
        "symmetry     90°", "signature x  (5,5,10) (10,5,5)", "signature y"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;

  const Outcome j = nqcount("orbit --perm 1,5,8,6,3,7,2,4 --json");
  ASSERT_EQ(j.status, 0);
  const auto o = nlohmann::json::parse(j.out);
  EXPECT_EQ(o["is_solution"], true);
  EXPECT_EQ(o["orbit_size"], 8);
  EXPECT_EQ(o["symmetry"], "none");
  ASSERT_EQ(o["images"].size(), 8u);
  EXPECT_EQ(o["images"][3]["operation"], "Cmpl");
  EXPECT_EQ(o["images"][3]["perm"], nlohmann::json({8, 4, 1, 3, 6, 2, 7, 5}));
  EXPECT_EQ(o["signature"]["x"].size(), 6u);
  std::set<std::vector<int>> images;
  for (const auto& img : o["images"]) images.insert(img["perm"].get<std::vector<int>>());
  EXPECT_EQ(images.size(), 8u);
  EXPECT_EQ(*images.begin(), o["canonical"].get<std::vector<int>>());
}

TEST(AlgebraCli, OrbitOfANonSolutionSaysSo) {
  const Outcome r = nqcount("orbit --perm 1,2,3,4");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("not a solution"), std::string::npos);
  const auto j = nlohmann::json::parse(nqcount("orbit --perm 1,2,3,4 --json").out);
  EXPECT_EQ(j["is_solution"], false);
  EXPECT_EQ(j["images"].size(), 8u);
}

TEST(AlgebraCli, EditAppliesIncDelMov) {
  const auto inc = nlohmann::json::parse(nqcount("edit --perm 2,4,1,3 --inc 0.5,0.5 --json").out);
  EXPECT_EQ(inc["result"], nlohmann::json({1, 3, 5, 2, 4}));
  EXPECT_EQ(inc["is_solution"], true);
  const auto del = nlohmann::json::parse(nqcount("edit --perm 1,3,5,2,4 --del 1,1 --json").out);
  EXPECT_EQ(del["result"], nlohmann::json({2, 4, 1, 3}));
  const auto mov =
      nlohmann::json::parse(nqcount("edit --perm 2,4,1,3 --mov 4,2,0.5,0.5 --json").out);
  EXPECT_EQ(mov["result"], nlohmann::json({1, 3, 2, 4}));
  EXPECT_EQ(mov["is_solution"], false);
  const Outcome text = nqcount("edit --perm 2,4,1,3 --inc 0.5,0.5");
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("1,3,5,2,4"), std::string::npos);
  EXPECT_NE(text.out.find("a solution"), std::string::npos);
}

// Issue #47 item 4: --inc, --del and --mov take every notation --perm takes (one parser):
// commas, commas with blanks, blanks alone, parentheses, brackets, and ".5" for 0.5.
TEST(AlgebraCli, EditPositionsTakeEveryNotationOfPerm) {
  struct Notation {
    std::string perm, inc, del, mov;
  };
  const std::vector<Notation> notations{
      {"2,4,1,3", "0.5,0.5", "1,1", "4,2,0.5,0.5"},
      {"'2, 4, 1, 3'", "'0.5, 0.5'", "'1, 1'", "'4, 2, 0.5, 0.5'"},
      {"'2 4 1 3'", "'0.5 0.5'", "'1 1'", "'4 2 0.5 0.5'"},
      {"'  2\t4  1 3 '", "'  0.5\t0.5 '", "' 1\t 1 '", "' 4 2\t0.5  0.5 '"},
      {"'(2, 4, 1, 3)'", "'(0.5, 0.5)'", "'(1, 1)'", "'(4, 2, 0.5, 0.5)'"},
      {"'(2 4 1 3)'", "'(0.5 0.5)'", "'(1 1)'", "'(4 2 0.5 0.5)'"},
      {"'[2,4,1,3]'", "'[0.5,0.5]'", "'[1,1]'", "'[4,2,0.5,0.5]'"},
      {"'[ 2, 4, 1, 3 ]'", "'[ .5, .5 ]'", "'[ 1, 1 ]'", "'[ 4, 2, .5, .5 ]'"},
      {"2,4,1,3", ".5,.5", "1,1", "4,2,.5,.5"},
  };
  for (const Notation& n : notations) {
    // --perm takes it (the reference), and each operator the same notation.
    const Outcome perm = nqcount("orbit --perm " + n.perm + " --json");
    ASSERT_EQ(perm.status, 0) << n.perm << ": " << perm.err;
    const Outcome inc = nqcount("edit --perm " + n.perm + " --inc " + n.inc + " --json");
    ASSERT_EQ(inc.status, 0) << n.inc << ": " << inc.err;
    EXPECT_EQ(nlohmann::json::parse(inc.out)["result"], nlohmann::json({1, 3, 5, 2, 4})) << n.inc;
    EXPECT_EQ(nlohmann::json::parse(inc.out)["operation"], "Inc(0.5, 0.5)") << n.inc;
    const Outcome del = nqcount("edit --perm '(1 3 5 2 4)' --del " + n.del + " --json");
    ASSERT_EQ(del.status, 0) << n.del << ": " << del.err;
    EXPECT_EQ(nlohmann::json::parse(del.out)["result"], nlohmann::json({2, 4, 1, 3})) << n.del;
    const Outcome mov = nqcount("edit --perm " + n.perm + " --mov " + n.mov + " --json");
    ASSERT_EQ(mov.status, 0) << n.mov << ": " << mov.err;
    EXPECT_EQ(nlohmann::json::parse(mov.out)["result"], nlohmann::json({1, 3, 2, 4})) << n.mov;
  }
  // What --perm refuses, the positions refuse too: mixed separators inside an entry, an empty
  // entry, unmatched brackets, leading zeros, signs; and a position is a whole number or one
  // ending in .5, nothing else.
  for (const char* bad : {"'0.5, 0.5 0.5'", "0.5,,0.5", "'(0.5, 0.5]'", "'(0.5, 0.5'", "01,0.5",
                          "00.5,0.5", "-0.5,0.5", "+0.5,0.5", "0.50,0.5", "0.5.5,0.5", ".,0.5",
                          "'0.5 0.5 0.5'", "'()'", "'[]'"}) {
    const std::string args = std::string("edit --perm 2,4,1,3 --inc ") + bad;
    expect_usage_error(args);
    EXPECT_NE(nqcount(args).err.find("--inc"), std::string::npos) << args;
  }
  for (const char* p : {"'2, 4 1 3'", "'(2,4,1,3]'", "'[2,4,1,3'", "02,4,1,3"})
    expect_usage_error(std::string("orbit --perm ") + p);
}

TEST(AlgebraCli, OrbitsListsEveryOrbit) {
  for (int n = 1; n <= 10; ++n) {
    const Outcome r = nqcount("orbits --n " + std::to_string(n) + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["count"], nq::known_value(n)->unique);
    EXPECT_EQ(j["orbits"].size(), j["count"].get<std::size_t>());
    std::uint64_t total = 0;
    for (const auto& o : j["orbits"]) total += o["size"].get<std::uint64_t>();
    EXPECT_EQ(total, nq::known_value(n)->total);
    EXPECT_EQ(j["signatures"]["separates_orbits"], true);
  }
  const Outcome text = nqcount("orbits --n 8");
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("3,5,2,8,1,7,4,6 4"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("no counterexample"), std::string::npos);
}

TEST(AlgebraCli, AlgebraicOrbitsReportStepsAndMatch) {
  const Outcome r = nqcount("orbits --n 9 --method algebraic --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["count"], nq::known_value(9)->unique);
  EXPECT_EQ(j["matches_enumerate"], true);
  EXPECT_GT(j["inc_steps"].get<std::uint64_t>(), 0u);
  EXPECT_GT(j["mov_steps"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["seeds"], nq::known_value(8)->unique);
  const Outcome text = nqcount("orbits --n 7 --method algebraic");
  EXPECT_NE(text.out.find("matches enumerate: yes"), std::string::npos) << text.out;
}

// The header counts the orbits by size as count does, U1 included (1 at n = 1 only).
TEST(AlgebraCli, OrbitsHeaderCountsU1AsCountDoes) {
  for (const char* method : {"enumerate", "algebraic"}) {
    const Outcome one = nqcount(std::string("orbits --n 1 --method ") + method);
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_NE(one.out.find("1 orbits (U1=1 U2=0 U4=0 U8=0), 1 solutions"), std::string::npos)
        << one.out;
    const Outcome eight = nqcount(std::string("orbits --n 8 --method ") + method);
    EXPECT_NE(eight.out.find("(U1=0 U2=0 U4=1 U8=11)"), std::string::npos) << eight.out;
  }
  EXPECT_NE(nqcount("count --n 1").out.find("U1=1 U2=0 U4=0 U8=0"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(nqcount("orbits --n 1 --json").out)["sizes"]["1"], 1);
}

TEST(AlgebraCli, DpCountsAndRefusesLargeN) {
  const Outcome r = nqcount("count --n 10 --algo dp --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["total"], nq::known_value(10)->total);
  EXPECT_EQ(j["algo"], "dp");
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(nqcount("--n 9 --algo dp --verify").status, 0);
  expect_usage_error("count --n 16 --algo dp");
  expect_usage_error("count --n 8 --algo magic");
  const Outcome help = nqcount("count --help");
  EXPECT_NE(help.out.find("n <= 15"), std::string::npos);
}

// --threads splits the programme's states across tasks: the table's totals at 1 and 2
// threads, the same peak and merges, and the thread count in the record.
TEST(AlgebraCli, DpUsesTheThreads) {
  for (int n = 1; n <= 12; ++n)
    for (const int threads : {1, 2}) {
      const std::string args = "count --n " + std::to_string(n) + " --algo dp --json --threads " +
                               std::to_string(threads);
      const Outcome r = nqcount(args);
      ASSERT_EQ(r.status, 0) << args << ": " << r.err;
      const auto j = nlohmann::json::parse(r.out);
      EXPECT_EQ(j["total"], nq::known_value(n)->total) << args;
      EXPECT_EQ(j["threads"], threads) << args;
      EXPECT_EQ(j["verified"], true) << args;
    }
  const auto one = nlohmann::json::parse(nqcount("count --n 11 --algo dp --json -t 1").out);
  const auto two = nlohmann::json::parse(nqcount("count --n 11 --algo dp --json -t 2").out);
  EXPECT_EQ(one["peak_states"], two["peak_states"]);
  EXPECT_EQ(one["merges"], two["merges"]);
  const Outcome text = nqcount("count --n 8 --algo dp --threads 2 --verify");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("threads      2"), std::string::npos) << text.out;
}

TEST(AlgebraCli, ListPrintsEverySolutionOnceInOrder) {
  for (int n = 1; n <= 12; ++n) {
    for (const bool unique : {false, true}) {
      const Outcome r = nqcount("list --n " + std::to_string(n) + (unique ? " --unique" : ""));
      ASSERT_EQ(r.status, 0) << r.err;
      const std::vector<std::string> rows = lines(r.out);
      const auto known = nq::known_value(n);
      EXPECT_EQ(rows.size(), unique ? known->unique : known->total) << n;
      std::vector<std::vector<int>> perms;
      for (const std::string& row : rows) {
        perms.push_back(parse_row(row));
        ASSERT_EQ(perms.back().size(), static_cast<std::size_t>(n)) << row;
        ASSERT_TRUE(valid_solution(perms.back())) << row;
      }
      // Strictly increasing, so also distinct.
      EXPECT_EQ(std::adjacent_find(perms.begin(), perms.end(),
                                   [](const auto& a, const auto& b) { return !(a < b); }),
                perms.end());
    }
  }
}

TEST(AlgebraCli, ListLimitAndBoard) {
  EXPECT_EQ(lines(nqcount("list --n 10 --limit 7").out).size(), 7u);
  const Outcome b = nqcount("list --n 6 --format board");
  ASSERT_EQ(b.status, 0);
  const auto rows = lines(b.out);
  EXPECT_EQ(rows.size(), 4u * 6u + 3u);  // Q(6) = 4 boards of 6 rows, blank lines between
  EXPECT_EQ(rows[0].size(), 6u);
  EXPECT_EQ(std::count(rows[0].begin(), rows[0].end(), 'Q'), 1);
}

TEST(AlgebraCli, ListStopsCleanlyOnAClosedPipe) {
  const std::string dir = temp_path("pipe") + ".";
  const std::string cmd = "( " + std::string(NQCOUNT_BIN) + " list --n 14 2>" + dir +
                          "nq_pipe_err.txt; echo $? >" + dir + "nq_pipe_status.txt ) | head -n 2";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t k = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), k);
  pclose(p);
  EXPECT_EQ(lines(out).size(), 2u);
  EXPECT_EQ(read_file(dir + "nq_pipe_status.txt"), "0\n");
  EXPECT_EQ(read_file(dir + "nq_pipe_err.txt"), "");
}

TEST(AlgebraCli, MalformedInputExitsTwoWithOneLine) {
  for (const char* a : {"orbit",
                        "orbit --perm",
                        "orbit --perm ''",
                        "orbit --perm 1,1",
                        "orbit --perm 0,1",
                        "orbit --perm 1,2,4",
                        "orbit --perm a,b",
                        "orbit --perm 2,,1",
                        "orbit --perm 1.5,2",
                        "orbit --perm -1,2",
                        "orbit --perm 99999999999,1",
                        "orbit --perm 2,4,1,3 --bogus",
                        "edit --perm 2,4,1,3",
                        "edit --perm 2,4,1,3 --inc 0.5,0.5 --del 2,1",
                        "edit --perm 2,4,1,3 --inc 1,1",
                        "edit --perm 2,4,1,3 --inc 5.5,0.5",
                        "edit --perm 2,4,1,3 --inc 0.5",
                        "edit --perm 2,4,1,3 --inc x,y",
                        "edit --perm 2,4,1,3 --inc 0.25,0.5",
                        "edit --perm 2,4,1,3 --del 1,1",
                        "edit --perm 2,4,1,3 --del 0.5,1",
                        "edit --perm 2,4,1,3 --del 9,9",
                        "edit --perm 2,4,1,3 --mov 2,1,1,1",
                        "edit --perm 2,4,1,3 --mov 2,1,0.5",
                        "edit --perm 2,2 --del 2,1",
                        "orbits",
                        "orbits --n 0",
                        "orbits --n 17",
                        "orbits --n 8 --method guess",
                        "orbits --n 13 --method algebraic",
                        "list",
                        "list --n 0",
                        "list --n 33",
                        "list --n 8 --limit 0",
                        "list --n 8 --format svg",
                        "list --n x"})
    expect_usage_error(a);
}

}  // namespace
