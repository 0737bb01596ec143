// The man pages and the bash completion that nqcount-docgen writes at build time
// (cli/docgen.cpp), checked against what they are written from: every command and every row of
// the options table is in the page, under its command, and in the completion, with its values;
// the pages render without a warning; the completion completes as a shell user would see it.
// man, groff and bash must be installed (scripts/test installs them): a missing one fails.
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "cli/commands/commands.hpp"
#include "cli/options.hpp"
#include "kernels/kernels.hpp"
#include "tests/cli_runner.hpp"

namespace nq::test {
namespace {

const std::string kDocs = NQ_DOCS_DIR;  // the build's generated files
const std::string kCompletion = kDocs + "/nqcount";

void require_tool(const std::string& tool) {
  ASSERT_EQ(shell("command -v " + tool + " >/dev/null").status, 0)
      << tool << " is not installed: run scripts/test (it installs man-db and groff-base), or "
      << "apt-get install man-db groff-base";
}

std::vector<cli::OptionRow> rows() {
  static cli::Args args;
  return cli::option_table(args);
}

std::vector<std::string> spellings(const cli::OptionRow& row) {
  std::vector<std::string> out;
  std::stringstream all(row.flags);
  for (std::string one; std::getline(all, one, ',');) out.push_back(one);
  return out;
}

bool positional(const cli::OptionRow& row) {
  return row.flags[0] != '-';
}

// A word as the pages write what is typed: every hyphen a \-.
std::string typed(const std::string& word) {
  std::string out;
  for (char c : word) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

// The lines of `page` from the request `.SS name` or `.SH name` to the next of the same level or
// above; empty if there is none.
std::string section(const std::string& page, const std::string& request) {
  const std::string start = "\n" + request + "\n";
  const auto from = page.find(start);
  if (from == std::string::npos) return "";
  const bool sub = request.rfind(".SS", 0) == 0;
  std::size_t end = page.size();
  for (const char* next : {"\n.SH ", "\n.SS "}) {
    if (!sub && std::string(next) == "\n.SS ") continue;
    end = std::min(end, page.find(next, from + 1));
  }
  return page.substr(from, end - from);
}

// The words `function` (_nqcount, _nqcount_mpi) offers for the last of `words` (COMP_WORDS,
// the last the word being completed), the script sourced on its own in a plain bash, in an empty
// folder but for the file `a-file`.
std::set<std::string> complete(const std::string& function, const std::vector<std::string>& words) {
  const std::string folder = temp_dir("completion");
  std::ofstream(folder + "/a-file") << "";
  std::string list;
  for (const std::string& w : words) list += " '" + w + "'";
  const std::string script = temp_path("complete.sh");
  std::ofstream(script) << "set -u\ncd '" << folder << "'\nsource '" << kCompletion << "'\n"
                        << "COMP_WORDS=(" << list << ")\nCOMP_CWORD=" << words.size() - 1 << "\n"
                        << function << "\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
  const Outcome r = shell("bash --norc --noprofile '" + script + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::set<std::string> offered;
  std::stringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) offered.insert(line);
  return offered;
}

// A command's options as the completion offers them: its rows, --help and --version.
std::set<std::string> options_of(const std::string& command) {
  std::set<std::string> words{"--help", "--version"};
  for (const cli::OptionRow& row : rows())
    if (command == row.command && !positional(row))
      for (const std::string& f : spellings(row)) words.insert(f);
  return words;
}

TEST(Docs, PagesRenderWithoutWarnings) {
  require_tool("man");
  require_tool("groff");
  for (const char* page : {"nqcount.1", "nqcount-mpi.1"}) {
    const std::string path = kDocs + "/" + page;
    const Outcome man = shell("MANWIDTH=80 man --warnings -l '" + path + "'");
    EXPECT_EQ(man.status, 0) << page;
    EXPECT_EQ(man.err, "") << page;
    EXPECT_NE(man.out.find("EXIT STATUS"), std::string::npos) << page << ":\n" << man.out;
    // Every warning groff has, and none of them.
    const Outcome groff = shell("groff -man -ww -z '" + path + "'");
    EXPECT_EQ(groff.status, 0) << page;
    EXPECT_EQ(groff.err, "") << page;
  }
}

TEST(Docs, EveryOptionIsUnderItsCommand) {
  const std::string page = read_file(kDocs + "/nqcount.1");
  ASSERT_FALSE(page.empty());
  std::size_t checked = 0;
  for (const cli::Command& c : cli::commands()) {
    const std::string text = section(page, std::string(".SS ") + c.name);
    ASSERT_FALSE(text.empty()) << "no section for " << c.name;
    for (const cli::OptionRow& row : rows()) {
      if (c.name != std::string(row.command)) continue;
      if (positional(row)) {
        EXPECT_NE(text.find("\\fI" + typed(row.flags) + "\\fR"), std::string::npos) << row.flags;
      }
      for (const std::string& flag : positional(row) ? std::vector<std::string>{} : spellings(row))
        EXPECT_NE(text.find("\\fB" + typed(flag) + "\\fR"), std::string::npos)
            << c.name << " " << flag;
      for (const std::string& word : row.choices)
        EXPECT_NE(text.find("\\fB" + typed(word) + "\\fR"), std::string::npos)
            << c.name << " " << row.flags << " " << word;
      if (row.range) {
        EXPECT_NE(text.find("Range: " + typed(std::to_string(row.range->first)) + " to " +
                            typed(std::to_string(row.range->second))),
                  std::string::npos)
            << c.name << " " << row.flags;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, rows().size());  // every row belongs to a command the page has
  // A default the table holds, which the help does not give: count --order rows.
  EXPECT_NE(section(page, ".SS count").find("Default: \\fBrows\\fR"), std::string::npos);
}

TEST(Docs, MpiPageHasCountsOptionsOnly) {
  const std::string page = read_file(kDocs + "/nqcount-mpi.1");
  const std::string text = section(page, ".SH OPTIONS");
  ASSERT_FALSE(text.empty());
  for (const cli::OptionRow& row : rows())
    for (const std::string& flag : spellings(row)) {
      const bool there = text.find("\\fB" + typed(flag) + "\\fR") != std::string::npos;
      if (row.command == std::string(cli::kMpiCommand)) {
        EXPECT_TRUE(there) << flag;
      } else if (options_of(cli::kMpiCommand).count(flag) == 0) {
        EXPECT_FALSE(there) << flag << " of " << row.command;
      }
    }
}

// EXIT STATUS and ENVIRONMENT hold every row of README's tables.
TEST(Docs, ExitStatusAndEnvironmentAreReadmes) {
  std::ifstream readme(std::string(NQ_SOURCE_DIR) + "/README.md");
  std::vector<std::string> codes, variables;
  std::string heading;
  for (std::string line; std::getline(readme, line);) {
    if (line.rfind("## ", 0) == 0) heading = line;
    if (line.rfind("| ", 0) != 0 || line.rfind("|---", 0) == 0) continue;
    const std::string first = line.substr(2, line.find(" |") - 2);
    if (heading == "## Exit codes" && first != "code") codes.push_back(first);
    if (heading == "## Environment variables" && first != "variable")
      for (std::size_t at = first.find('`'); at != std::string::npos;) {
        const auto end = first.find('`', at + 1);
        variables.push_back(first.substr(at + 1, end - at - 1));
        at = first.find('`', end + 1);
      }
  }
  EXPECT_EQ(codes, (std::vector<std::string>{"0", "1", "2", "130", "143"}));
  EXPECT_TRUE(std::find(variables.begin(), variables.end(), "NQ_KERNEL") != variables.end());
  for (const char* name : {"nqcount.1", "nqcount-mpi.1"}) {
    const std::string page = read_file(kDocs + "/" + name);
    const std::string status = section(page, ".SH \"EXIT STATUS\"");
    for (const std::string& code : codes)
      EXPECT_NE(status.find(".TP\n\\fB" + code + "\\fR\n"), std::string::npos) << name << code;
    const std::string environment = section(page, ".SH ENVIRONMENT");
    for (const std::string& variable : variables)
      EXPECT_NE(environment.find("\\fB" + variable + "\\fR"), std::string::npos)
          << name << " " << variable;
  }
}

// The pages' EXIT STATUS and ENVIRONMENT have no other source: a README without those tables
// stops the build, naming what is missing, instead of pages without them.
TEST(Docs, GeneratorRefusesAReadmeWithoutItsTables) {
  const std::string readme = temp_path("README.md");
  std::ofstream(readme) << "# nqcount\n\n## Exit codes\n\n| code | meaning |\n|---|---|\n| 0 | "
                           "success |\n\n## Environment\n\nnone\n";
  const std::string out = temp_path("out");
  const Outcome r = shell(std::string(NQ_DOCGEN_BIN) + " '" + out + "' '" + readme + "' d");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "nqcount-docgen: error: " + readme +
                       " has no table under \"## Environment variables\"\n");
  EXPECT_FALSE(std::filesystem::exists(out + "/nqcount.1"));
}

TEST(Completion, ScriptIsBashAndRegistersBothPrograms) {
  require_tool("bash");
  const Outcome syntax = shell("bash -n '" + kCompletion + "'");
  EXPECT_EQ(syntax.status, 0) << syntax.err;
  EXPECT_EQ(syntax.err, "");
  const Outcome registered =
      shell("bash --norc --noprofile -c \"source '" + kCompletion + "' && complete -p\"");
  EXPECT_NE(registered.out.find("complete -F _nqcount nqcount\n"), std::string::npos)
      << registered.out;
  EXPECT_NE(registered.out.find("complete -F _nqcount_mpi nqcount-mpi\n"), std::string::npos)
      << registered.out;
}

TEST(Completion, CompletesAnOption) {
  require_tool("bash");
  EXPECT_EQ(complete("_nqcount", {"nqcount", "--ker"}), std::set<std::string>{"--kernel"});
  EXPECT_EQ(complete("_nqcount", {"nqcount", "--vers"}), std::set<std::string>{"--version"});
  EXPECT_EQ(complete("_nqcount_mpi", {"nqcount-mpi", "--vers"}),
            std::set<std::string>{"--version"});
  EXPECT_EQ(complete("_nqcount", {"nqcount", "solve", "--mod"}),
            std::set<std::string>{"--modular"});
  EXPECT_EQ(complete("_nqcount_mpi", {"nqcount-mpi", "--ker"}), std::set<std::string>{"--kernel"});
}

TEST(Completion, CompletesACommand) {
  require_tool("bash");
  EXPECT_EQ(complete("_nqcount", {"nqcount", "so"}), std::set<std::string>{"solve"});
  std::set<std::string> all;
  for (const cli::Command& c : cli::commands()) all.insert(c.name);
  EXPECT_EQ(complete("_nqcount", {"nqcount", ""}), all);
}

TEST(Completion, CompletesTheKernels) {
  require_tool("bash");
  std::set<std::string> kernels{"auto"}, starting_a{"auto"};
  for (const Kernel& k : all_kernels()) {
    kernels.emplace(k.name);
    if (k.name[0] == 'a') starting_a.emplace(k.name);
  }
  EXPECT_EQ(complete("_nqcount", {"nqcount", "count", "--kernel", ""}), kernels);
  EXPECT_EQ(complete("_nqcount", {"nqcount", "--kernel", ""}), kernels);  // count by default
  EXPECT_EQ(complete("_nqcount_mpi", {"nqcount-mpi", "--kernel", ""}), kernels);
  // --kernel=a: bash splits the word at '='.
  EXPECT_EQ(complete("_nqcount", {"nqcount", "--kernel", "=", "a"}), starting_a);
}

// Every command's options, and every enumerated option's words, exactly as the table has them.
TEST(Completion, EveryOptionAndEveryValueOfTheTable) {
  require_tool("bash");
  for (const cli::Command& c : cli::commands()) {
    EXPECT_EQ(complete("_nqcount", {"nqcount", c.name, "-"}), options_of(c.name)) << c.name;
    for (const cli::OptionRow& row : rows()) {
      if (c.name != std::string(row.command) || row.choices.empty()) continue;
      const std::set<std::string> words(row.choices.begin(), row.choices.end());
      for (const std::string& flag : spellings(row))
        EXPECT_EQ(complete("_nqcount", {"nqcount", c.name, flag, ""}), words)
            << c.name << " " << flag;
    }
  }
  EXPECT_EQ(complete("_nqcount_mpi", {"nqcount-mpi", "-"}), options_of(cli::kMpiCommand));
  EXPECT_EQ(complete("_nqcount_mpi", {"nqcount-mpi", "count", "-"}), options_of(cli::kMpiCommand));
}

// --version is offered where the parser takes it, and the parser takes it where it is offered:
// after every command, and among count's options where the command is left out.
TEST(Completion, VersionWhereverTheParserTakesIt) {
  require_tool("bash");
  const std::string version = nqcount("--version").out;
  ASSERT_FALSE(version.empty());
  for (const cli::Command& c : cli::commands()) {
    EXPECT_EQ(complete("_nqcount", {"nqcount", c.name, "--vers"}),
              std::set<std::string>{"--version"})
        << c.name;
    const Outcome r = nqcount(std::string(c.name) + " --version");
    EXPECT_EQ(r.status, 0) << c.name << ": " << r.err;
    EXPECT_EQ(r.out, version) << c.name;
  }
  EXPECT_EQ(complete("_nqcount", {"nqcount", "-"}), options_of("count"));
  EXPECT_EQ(nqcount("--n 8 --version").out, version);
}

// A word that is no option's value, after a command without a file argument, is one of its
// options, never a file name; nqcount-mpi's first word is its command or an option.
TEST(Completion, PlainWordsAreOptionsUnlessTheCommandTakesAFile) {
  require_tool("bash");
  const std::vector<cli::OptionRow> table = rows();
  for (const cli::Command& c : cli::commands()) {
    const std::set<std::string> offered = complete("_nqcount", {"nqcount", c.name, ""});
    const bool takes_file = std::any_of(table.begin(), table.end(), [&](const cli::OptionRow& r) {
      return c.name == std::string(r.command) && positional(r);
    });
    EXPECT_EQ(offered, takes_file ? std::set<std::string>{"a-file"} : options_of(c.name)) << c.name;
  }
  std::set<std::string> mpi = options_of(cli::kMpiCommand);
  mpi.insert(cli::kMpiCommand);
  EXPECT_EQ(complete("_nqcount_mpi", {"nqcount-mpi", ""}), mpi);
  EXPECT_EQ(complete("_nqcount_mpi", {"nqcount-mpi", "c"}), std::set<std::string>{"count"});
}

// A text value completes to the table's hints (--budget: n2, 3n), to file names where the row
// takes a file, and to nothing else (--perm, --memory-limit: no file names).
TEST(Completion, TextValuesOfferTheirHintsOrFilesOnly) {
  require_tool("bash");
  EXPECT_EQ(complete("_nqcount", {"nqcount", "solve", "--budget", ""}),
            (std::set<std::string>{"n2", "3n"}));
  EXPECT_EQ(complete("_nqcount", {"nqcount", "solve", "--budget", "=", "3"}),
            (std::set<std::string>{"3n"}));
  std::size_t texts = 0;
  for (const cli::OptionRow& row : rows()) {
    if (positional(row) || !std::holds_alternative<std::string*>(row.target) ||
        !row.choices.empty())
      continue;
    ++texts;
    std::set<std::string> want(row.hints.begin(), row.hints.end());
    if (row.file) want.insert("a-file");
    for (const std::string& flag : spellings(row))
      EXPECT_EQ(complete("_nqcount", {"nqcount", row.command, flag, ""}), want)
          << row.command << " " << flag;
  }
  EXPECT_GT(texts, 5u);
}

// A number takes no file name; a text without words to choose from does (--output FILE).
TEST(Completion, FileNamesOnlyWhereATextIsTaken) {
  require_tool("bash");
  EXPECT_EQ(complete("_nqcount", {"nqcount", "count", "--threads", ""}), std::set<std::string>{});
  EXPECT_EQ(complete("_nqcount", {"nqcount", "solve", "--output", "a-"}),
            std::set<std::string>{"a-file"});
}

}  // namespace
}  // namespace nq::test
