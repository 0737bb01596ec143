// The bad-input table: every command, every option with a value, given a missing, empty,
// negative, huge, non-numeric (or unknown word) and duplicated value. Each case must end with
// exit 2, exactly one line "nqcount: error: ..." on stderr, nothing on stdout, no crash, and
// nothing written: it runs in an empty folder, which must stay empty. The cases are generated
// from the table below; a check against each command's --help keeps the table complete. (Under
// a sanitizer options of one kind share their cases in turn: cases_taken.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.hpp"
#include "tests/support/sanitized.hpp"

namespace {

using nq::test::kRefusedStart;
using nq::test::nqcount;
using nq::test::Outcome;
using nq::test::shell;
using nq::test::temp_dir;
using nq::test::temp_path;

enum class Kind {
  integer,  // an int option: 2^31 is too large
  wide,     // a long long option
  real,     // a decimal number
  word,     // one of a list of words
  path,     // a file name
  text,     // free text parsed by the command (sizes, budgets): no blanks
  perm,     // a list written as a permutation is, where blanks separate entries ('2 4 1 3',
            // '(2, 4, 1, 3)'): --perm and edit's positions
  flag,     // no value: listed only to keep the table complete
};

struct Opt {
  std::string flag;  // "" for the positional argument
  Kind kind;
  std::string valid;  // a value the command accepts (duplicated in the duplicate case)
  bool required = false;
  // Other options without which this one does not apply (and would be refused for that
  // instead of for its value): --budget needs --method blnq.
  std::string with = "";
};

struct Cmd {
  std::string name;
  std::vector<Opt> options;
};

// The stats file simulate reads: outside the folder the cases run in.
const std::string& stats_file() {
  static const std::string path = [] {
    const std::string p = temp_path("bad_input_stats.csv");
    std::ofstream(p) << "id,nodes,seconds,estimate,plan_order\n0,10,0.5,7,0\n1,20,0.25,9,0\n";
    return p;
  }();
  return path;
}

// A journal of n = 8 that merge, status and audit read: outside the folder the cases run in.
const std::string& journal_file() {
  static const std::string path = [] {
    const std::string p = temp_path("bad_input_journal.ckpt");
    nq::test::nqcount("--n 8 --checkpoint " + p);
    return p;
  }();
  return path;
}

const std::vector<Cmd>& table() {
  static const std::vector<Cmd> commands{
      {"count",
       {{"--n", Kind::integer, "8", true},
        {"--threads", Kind::integer, "1"},
        {"--kernel", Kind::word, "scalar"},
        {"--split-depth", Kind::integer, "2"},
        {"--algo", Kind::word, "search"},
        {"--checkpoint", Kind::path, "ck.bin"},
        {"--checkpoint-every", Kind::integer, "5"},
        {"--numa", Kind::word, "off"},
        {"--task-stats", Kind::path, "stats.csv"},
        {"--memory-limit", Kind::text, "1G"},
        {"--cross-check", Kind::real, "0.5"},
        {"--cross-check-seed", Kind::wide, "7"},
        {"--tasks", Kind::wide, "100"},
        {"--shard", Kind::text, "0/2", false, "--checkpoint " + temp_path("bad_input_shard.ckpt")},
        {"--json", Kind::flag, ""},
        {"--verify", Kind::flag, ""},
        {"--progress", Kind::flag, ""},
        {"--no-progress", Kind::flag, ""},
        {"--order", Kind::word, "rows"},
        {"--lookahead", Kind::flag, ""}}},
      {"solve",
       {{"--n", Kind::integer, "13", true},  // 13: --modular takes it
        {"--threads", Kind::integer, "1"},
        {"--seed", Kind::wide, "7"},
        {"--method", Kind::word, "qs4"},
        {"--solutions", Kind::integer, "2"},
        {"--format", Kind::word, "perm"},
        {"--output", Kind::path, "out.txt"},
        {"--max-tries", Kind::wide, "100"},
        {"--max-restarts", Kind::wide, "100"},
        {"--time-limit", Kind::real, "5"},
        {"--memory-limit", Kind::text, "1G"},
        {"--batch", Kind::path, "sizes.txt"},
        {"--modular", Kind::flag, ""},
        {"--ldpc", Kind::text, "1,2", false, "--modular"},
        {"--ldpc-layout", Kind::word, "paper", false, "--modular --ldpc 3,5"},
        {"--budget", Kind::text, "n2", false, "--method blnq"},
        {"--budget-rule", Kind::word, "total", false, "--method blnq"},
        {"--runs", Kind::integer, "2", false, "--method blnq"},
        {"--json", Kind::flag, ""}}},
      {"table", {{"--n", Kind::integer, "8"}, {"--json", Kind::flag, ""}}},
      {"orbit", {{"--perm", Kind::perm, "2,4,1,3", true}, {"--json", Kind::flag, ""}}},
      {"edit",
       {{"--perm", Kind::perm, "2,4,1,3", true},
        {"--inc", Kind::perm, "0.5,0.5"},
        {"--del", Kind::perm, "1,2"},
        {"--mov", Kind::perm, "1,2,0.5,0.5"},
        {"--json", Kind::flag, ""}}},
      {"orbits",
       {{"--n", Kind::integer, "6", true},
        {"--threads", Kind::integer, "1"},
        {"--method", Kind::word, "enumerate"},
        {"--graph", Kind::path, "growth.dot"},
        {"--json", Kind::flag, ""}}},
      {"list",
       {{"--n", Kind::integer, "6", true},
        {"--format", Kind::word, "perm"},
        {"--limit", Kind::integer, "2"},
        {"--unique", Kind::flag, ""},
        {"--json", Kind::flag, ""}}},
      {"group", {{"--json", Kind::flag, ""}, {"--orientation", Kind::word, "paper"}}},
      {"estimate",
       {{"--n", Kind::integer, "8", true},
        {"--samples", Kind::integer, "4"},
        {"--pieces", Kind::integer, "2"},
        {"--check", Kind::integer, "1"},
        {"--check-rows", Kind::integer, "1", false, "--check 1"},
        {"--seconds", Kind::real, "1"},
        {"--spread", Kind::real, "0.5"},
        {"--seed", Kind::wide, "7"},
        {"--procs", Kind::integer, "2"},
        {"--node-cores", Kind::integer, "2"},
        {"--threads", Kind::integer, "1"},
        {"--ranks", Kind::integer, "2"},
        {"--root-seconds", Kind::real, "0.001", false, "--ranks 2"},
        {"--cores", Kind::integer, "2", false, "--ranks 2"},
        {"--tasks", Kind::wide, "100", false, "--ranks 2"},
        {"--json", Kind::flag, ""}}},
      {"topology",
       {{"--threads", Kind::integer, "2"},
        {"--numa", Kind::word, "off"},
        {"--json", Kind::flag, ""}}},
      {"simulate",
       {{"", Kind::path, stats_file(), true},
        {"--procs", Kind::integer, "2", true},
        {"--node-cores", Kind::integer, "2"},
        {"--serial-seconds", Kind::real, "0.5"},
        {"--ranks", Kind::integer, "2"},
        {"--root-seconds", Kind::real, "0.001", false, "--ranks 2"},
        {"--cost", Kind::word, "nodes"},
        {"--order", Kind::word, "plan"},
        {"--json", Kind::flag, ""}}},
      {"merge",
       {{"", Kind::path, journal_file(), true},
        {"--json", Kind::flag, ""},
        {"--verify", Kind::flag, ""}}},
      {"status", {{"", Kind::path, journal_file(), true}, {"--json", Kind::flag, ""}}},
      {"audit",
       {{"", Kind::path, journal_file(), true},
        {"--fraction", Kind::real, "0.5"},
        {"--seed", Kind::wide, "7"},
        {"--threads", Kind::integer, "1"},
        {"--json", Kind::flag, ""}}},
  };
  return commands;
}

std::string quoted(const std::string& word) {
  return "'" + word + "'";
}

// The command's required options with valid values, all but `except`.
std::string base(const Cmd& c, const Opt* except) {
  std::string line = c.name;
  for (const Opt& o : c.options) {
    if (!o.required || &o == except) continue;
    line.append(" ");
    if (!o.flag.empty()) line.append(o.flag).append(" ");
    line.append(o.valid);
  }
  return line;
}

// Every bad case of one option: the arguments after the command's name and base.
std::vector<std::string> bad_values(const Opt& o) {
  const std::string f = o.flag.empty() ? "" : o.flag + " ";
  std::vector<std::string> cases;
  if (o.kind == Kind::flag) return cases;
  if (!o.flag.empty()) cases.push_back(o.flag);  // missing value (last on the line)
  cases.push_back(f + "''");                     // empty
  switch (o.kind) {
    case Kind::integer:
      cases.push_back(f + "2147483648");  // above int
      [[fallthrough]];
    case Kind::wide:
      for (const char* v : {"-1", "-0", "99999999999999999999", "abc", "1.5", "1e3", "0x10", "010",
                            "' 8'", "+8", "8abc"})
        cases.push_back(f + v);
      break;
    case Kind::real:
      for (const std::string& v :
           {std::string("-1"), std::string("-0.5"), std::string(400, '9'), std::string("abc"),
            std::string("nan"), std::string("inf"), std::string("1e"), std::string("0x10"),
            std::string(" 1"), std::string("+1")})
        cases.push_back(f + quoted(v));
      break;
    case Kind::word:
      for (const char* v : {"nonsense", "-1", "99999999999999999999"}) cases.push_back(f + v);
      break;
    case Kind::text:
    case Kind::perm:
      for (const char* v : {"-1", "abc", "99999999999999999999", "-1,2", "a,b", "010", "01,2"})
        cases.push_back(f + v);
      if (o.kind == Kind::text) cases.push_back(f + "' 1,2'");  // padded
      break;
    case Kind::path:
    case Kind::flag:
      break;
  }
  if (!o.flag.empty()) cases.push_back(f + o.valid + " " + f + o.valid);  // duplicated
  return cases;
}

// The bad cases that option `o` takes, the `rank`-th option of its kind (and with a flag or
// positional, as it is) among `kin` such options of its command. The Release build takes them
// all. Under a sanitizer a start of nqcount costs 40 to 90 ms (the runtime's set-up and its leak
// check at exit) and the table's cases start it about 900 times; there an option of a kind that
// three or more options of the command share takes every third case, the options in turn, so
// that every option still meets bad values (its own check) and every bad value of the kind is
// still given (each branch of the parser it shares).
std::vector<std::string> cases_taken(const Opt& o, std::size_t rank, std::size_t kin) {
  std::vector<std::string> all = bad_values(o);
  constexpr std::size_t stride = nq::test_support::sized<std::size_t>(1, 3);
  if (kin < stride) return all;
  std::vector<std::string> some;
  for (std::size_t j = rank % stride; j < all.size(); j += stride) some.push_back(all[j]);
  return some;
}

void expect_refused(const std::string& args) {
  const std::string dir = temp_dir("bad_input_dir");
  const Outcome r =
      shell("cd " + dir + " && " + kRefusedStart + "exec " + std::string(NQCOUNT_BIN) + " " + args);
  EXPECT_EQ(r.status, 2) << args << ": " << r.err;
  EXPECT_EQ(r.err.rfind("nqcount: error: ", 0), 0u) << args << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << args << " wrote into the working folder";
  std::filesystem::remove_all(dir);
}

class BadInput : public ::testing::TestWithParam<std::string> {};

TEST_P(BadInput, EveryBadValueOfEveryOptionIsRefusedCleanly) {
  const auto& commands = table();
  const auto it = std::find_if(commands.begin(), commands.end(),
                               [&](const Cmd& c) { return c.name == GetParam(); });
  ASSERT_NE(it, commands.end());
  expect_refused(base(*it, nullptr) + " --no-such-option");  // an unknown option
  std::size_t cases = 1;
  // Options alike for the parser: the same kind, both with a flag or both positional.
  const auto alike = [](const Opt& a, const Opt& b) {
    return a.kind == b.kind && a.flag.empty() == b.flag.empty();
  };
  for (const Opt& o : it->options) {
    const auto kin = static_cast<std::size_t>(std::count_if(
        it->options.begin(), it->options.end(), [&](const Opt& p) { return alike(o, p); }));
    const auto rank = static_cast<std::size_t>(
        std::count_if(it->options.begin(), it->options.begin() + (&o - it->options.data()),
                      [&](const Opt& p) { return alike(o, p); }));
    if (o.required) {  // the option left out altogether
      expect_refused(base(*it, &o));
      ++cases;
    }
    const std::string with = o.with.empty() ? "" : " " + o.with;
    if (!o.with.empty()) {  // not vacuous: with its context, the valid value is taken
      const Outcome ok = nqcount(base(*it, nullptr) + with + " " + o.flag + " " + o.valid);
      EXPECT_EQ(ok.status, 0) << o.flag << " " << o.valid << with << ": " << ok.err;
    }
    for (const std::string& bad : cases_taken(o, rank, kin)) {
      expect_refused(base(*it, &o) + with + " " + bad);
      ++cases;
    }
  }
  EXPECT_GT(cases, 0u);
}

// The table names every option that the command's --help lists.
TEST_P(BadInput, TableCoversEveryOptionOfTheHelp) {
  const auto& commands = table();
  const auto it = std::find_if(commands.begin(), commands.end(),
                               [&](const Cmd& c) { return c.name == GetParam(); });
  ASSERT_NE(it, commands.end());
  const Outcome help = nqcount(GetParam() + " --help");
  ASSERT_EQ(help.status, 0);
  std::set<std::string> listed;
  for (const Opt& o : it->options) listed.insert(o.flag);
  // An option's line: indented, an optional short flag, then the long one.
  const std::regex flag("^ +(-[a-z],)?(--[a-z][a-z-]*)");
  std::size_t seen = 0;
  std::istringstream lines(help.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, flag)) continue;
    const std::string name = m[2];
    if (name == "--help" || name == "--version") continue;  // every command's, CLI11's own
    ++seen;
    EXPECT_TRUE(listed.count(name)) << GetParam() << ": " << name << " is not in the table";
  }
  EXPECT_GT(seen, 0u) << help.out;
}

INSTANTIATE_TEST_SUITE_P(Commands, BadInput,
                         ::testing::Values("count", "solve", "table", "orbit", "edit", "orbits",
                                           "list", "topology", "simulate", "group", "estimate",
                                           "merge", "status", "audit"));

// With no command word the count is meant: the same checks hold.
TEST(BadInputDefault, TheDefaultCommandRefusesToo) {
  expect_refused("");
  expect_refused("--n");
  expect_refused("--n ''");
  expect_refused("--n 010");
  expect_refused("--n 8 --n 8");
  expect_refused("--no-such-option");
  expect_refused("no-such-command");
}

// An error line that echoes what the user typed or a file held stays one line: control bytes
// (an escape sequence, a vertical tab, a newline, DEL) are written as \xHH, never raw, whichever
// path reports them (the parser's errors, the commands' own).
TEST(BadInputMessages, ControlCharactersAreEscapedInErrors) {
  const std::string dir = temp_dir("control");
  const std::string batch = dir + "/sizes.txt";
  { std::ofstream(batch) << "8\n12\x1b[2J\x7f\n"; }
  const std::string evil = "'\x1b[31mred\x0bnext\nline'";  // single quotes: raw bytes to argv
  struct Case {
    std::string args, echoed;
    long lines = 1;
  };
  for (const Case& c : std::vector<Case>{
           {"--kernel " + evil, "\\x1b[31mred\\x0bnext\\x0aline"},  // the parser (a choice)
           {"table " + evil, "\\x1b[31mred\\x0bnext\\x0aline"},     // the parser (an extra)
           // a bad line of a file: its line, then the batch's summary
           {"solve --batch " + batch, "12\\x1b[2J\\x7f", 2},
           {"orbit --perm " + evil, "\\x1b[31mred"}}) {  // a command's own check
    const Outcome r = nqcount(c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("nqcount: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), c.lines) << r.err;
    EXPECT_EQ(r.err.find_first_of("\x1b\x0b\x7f"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.echoed), std::string::npos) << r.err;
  }
}

// An option of another command is named, in the order typed, as not applying to this one
// (CLI11 alone lists the left-over words in reverse: "not expected: 2 --threads").
TEST(BadInputMessages, TableThreadsMessageNamesTheOption) {
  for (const char* args : {"table --threads 2", "table --threads=2", "table --n 5 --threads 2"}) {
    const Outcome r = nqcount(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err,
              "nqcount: error: --threads does not apply to table (see 'nqcount table "
              "--help')\n")
        << args;
  }
  // An option no command has: the left-over words as typed.
  const Outcome r = nqcount("--n 8 --no-such-option 3 5");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "nqcount: error: The following arguments were not expected: --no-such-option 3 5\n");
}

// A number out of range is echoed as typed, not as the double it became (1e+09).
TEST(BadInputMessages, TimeLimitEchoedAsTyped) {
  for (const char* value : {"1000000000.5", "1000000001", "1e10", "2E9"}) {
    const Outcome r = nqcount(std::string("solve --n 8 --time-limit ") + value);
    EXPECT_EQ(r.status, 2) << value;
    EXPECT_NE(r.err.find(std::string("--time-limit: Value ") + value + " not in range"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("e+"), std::string::npos) << r.err;
  }
  EXPECT_EQ(nqcount("solve --n 8 --seed 1 --time-limit 1000000000").status, 0);
}

}  // namespace
