// nqcount-docgen OUT README DOCDIR: writes into the folder OUT the man pages nqcount.1 and
// nqcount-mpi.1 and the bash completion `nqcount` (for both programs), from the data the parsers
// are built from: the command registry (commands()) and the one options table (option_table()),
// so that neither page nor completion can drift from the parser. EXIT STATUS and ENVIRONMENT are
// README's "Exit codes" and "Environment variables" tables, read from README (the one copy of
// them); DOCDIR is where the documentation is installed, under the prefix when relative (FILES).
// Run at build time (cli/CMakeLists.txt), never installed. Exits 0, or 2 with one line on stderr.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "cli/commands/commands.hpp"
#include "cli/options.hpp"

namespace nq::cli {
namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- roff ----

// Text for a roff line: a backslash as \e, a character beyond ASCII as \[uXXXX] (whatever the
// formatter's input encoding), and the hyphens of a word that starts with one (--kernel, -n, -1)
// as \- (a minus: what is typed); a hyphen inside a word (n-queens) stays a hyphen. `code`:
// every hyphen is typed (an option, a value, a file name).
std::string roff(std::string_view text, bool code = false) {
  std::string out;
  bool word_start = true, typed = code;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\n' || c == '\t') {
      out += ' ';
      word_start = true;
      typed = code;
      continue;
    }
    if (word_start && c == '-') typed = true;
    word_start = word_start && std::strchr("([{'\"", c) != nullptr;
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += typed ? "\\-" : "-";
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {  // UTF-8: the code point, as a named glyph
      int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
      unsigned point = c & (0x3F >> extra);
      for (; extra > 0 && i + 1 < text.size(); --extra)
        point = point << 6 | (static_cast<unsigned char>(text[++i]) & 0x3F);
      char name[16];
      std::snprintf(name, sizeof name, "\\[u%04X]", point);
      out += name;
    }
  }
  return out;
}

// The page with a fallback after its .TH line for each \[uXXXX] glyph it uses, for an output
// device without the glyph (man in the C locale renders in ASCII): f\[u2218]g reads f o g there.
std::string with_glyph_fallbacks(const std::string& page) {
  static const std::map<std::string, std::string> ascii{
      {"u2218", "o"}, {"u00D7", "x"}, {"u2264", "<="}, {"u2265", ">="}, {"u2026", "..."}};
  std::set<std::string> used;
  for (auto at = page.find("\\[u"); at != std::string::npos; at = page.find("\\[u", at + 1))
    used.insert(page.substr(at + 2, page.find(']', at) - at - 2));
  std::string lines;
  for (const std::string& glyph : used) {
    const auto known = ascii.find(glyph);
    lines += ".if !c\\[" + glyph + "] .char \\[" + glyph + "] " +
             (known == ascii.end() ? "?" : known->second) + "\n";
  }
  const auto th = page.find("\n.TH ");
  const auto after = th == std::string::npos ? 0 : page.find('\n', th + 1) + 1;
  return page.substr(0, after) + lines + page.substr(after);
}

// A text line: one starting with a dot or an apostrophe would be read as a request.
std::string text_line(const std::string& roffed) {
  return (!roffed.empty() && (roffed[0] == '.' || roffed[0] == '\'') ? "\\&" : "") + roffed;
}

// One cell of a README table: `code` in bold, [text](link) as its text, the rest as roff().
std::string markdown(std::string_view cell) {
  std::string out, plain;
  bool in_code = false;
  for (std::size_t i = 0; i <= cell.size(); ++i) {
    if (i < cell.size() && cell[i] != '`') {
      plain += cell[i];
      continue;
    }
    if (in_code) {
      out += "\\fB" + roff(plain, true) + "\\fR";
    } else {  // [text](link): the text
      std::string text;
      for (std::size_t j = 0; j < plain.size(); ++j) {
        const auto close = plain.find("](", j);
        if (plain[j] == '[' && close != std::string::npos) {
          const auto end = plain.find(')', close);
          if (end != std::string::npos) {
            text += plain.substr(j + 1, close - j - 1);
            j = end;
            continue;
          }
        }
        text += plain[j];
      }
      out += roff(text);
    }
    plain.clear();
    in_code = !in_code;
  }
  return out;
}

// ---- the table ----

bool positional(const OptionRow& row) {
  return row.flags[0] != '-';
}

std::vector<std::string> spellings(const OptionRow& row) {
  std::vector<std::string> out;
  std::stringstream all(row.flags);
  for (std::string one; std::getline(all, one, ',');) out.push_back(one);
  return out;
}

bool takes_value(const OptionRow& row) {
  return !std::holds_alternative<bool*>(row.target);
}

// The value's name, as CLI11's --help writes it.
const char* value_name(const OptionRow& row) {
  return std::visit(
      [](auto* target) {
        using T = std::remove_pointer_t<decltype(target)>;
        if constexpr (std::is_same_v<T, std::string>) return "TEXT";
        if constexpr (std::is_same_v<T, std::vector<std::string>>) return "TEXT ...";
        if constexpr (std::is_floating_point_v<T>) return "FLOAT";
        return "INT";
      },
      row.target);
}

// The value the option has when it is not given, if that is a value it could be given (a number
// in its range, a word among its choices, any other word but the empty one): others (0 or -1 for
// "not given", an empty path) are stand-ins whose meaning the help text gives.
std::optional<std::string> default_value(const OptionRow& row) {
  if (row.required) return std::nullopt;
  return std::visit(
      [&](auto* target) -> std::optional<std::string> {
        using T = std::remove_pointer_t<decltype(target)>;
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::vector<std::string>>) {
          return std::nullopt;
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (target->empty()) return std::nullopt;
          if (!row.choices.empty() &&
              std::find(row.choices.begin(), row.choices.end(), *target) == row.choices.end())
            return std::nullopt;
          return *target;
        } else {
          if (row.range && (*target < static_cast<T>(row.range->first) ||
                            *target > static_cast<T>(row.range->second)))
            return std::nullopt;
          std::ostringstream text;
          text << *target;
          return text.str();
        }
      },
      row.target);
}

// The option as a man page's tag: "-t, --threads INT", "--order {rows|fewest}", "STATS".
std::string option_tag(const OptionRow& row) {
  if (positional(row)) return "\\fI" + roff(row.flags, true) + "\\fR";
  std::string tag;
  for (const std::string& flag : spellings(row)) {
    if (!tag.empty()) tag += ", ";
    tag.append("\\fB").append(roff(flag, true)).append("\\fR");
  }
  if (!takes_value(row)) return tag;
  if (row.choices.empty()) return tag + " \\fI" + value_name(row) + "\\fR";
  std::string words;
  for (const std::string& word : row.choices) {
    if (!words.empty()) words += '|';
    words.append("\\fB").append(roff(word, true)).append("\\fR");
  }
  return tag + " {" + words + "}";
}

// The paragraph under the tag: the help, then the range, the default (unless the help gives it)
// and "Required.".
std::string option_text(const OptionRow& row) {
  std::string text = roff(row.help);
  if (!text.empty() && text.back() != '.') text += '.';
  if (row.range)
    text += " Range: " + roff(std::to_string(row.range->first), true) + " to " +
            roff(std::to_string(row.range->second), true) + ".";
  // A help that speaks of its default has said it (and what "not given" means).
  std::string lower = row.help;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (const auto value = default_value(row); value && lower.find("default") == std::string::npos)
    text += " Default: \\fB" + roff(*value, true) + "\\fR.";
  if (row.required) text += " Required.";
  return text;
}

// "-n INT" for a synopsis: the required options of `command`.
std::string required_options(const std::vector<OptionRow>& rows, const std::string& command) {
  std::string out;
  for (const OptionRow& row : rows) {
    if (command != row.command || !row.required) continue;
    if (positional(row)) {
      out += " \\fI" + roff(row.flags, true) + "\\fR";
      continue;
    }
    out += " \\fB" + roff(spellings(row).front(), true) + "\\fR";
    if (takes_value(row)) out += " \\fI" + std::string(value_name(row)) + "\\fR";
  }
  return out;
}

void write_options(std::ostream& out, const std::vector<OptionRow>& rows,
                   const std::string& command) {
  for (const OptionRow& row : rows) {
    if (command != row.command) continue;
    out << ".TP\n" << text_line(option_tag(row)) << "\n" << text_line(option_text(row)) << "\n";
  }
}

// The options every program has from its parser rather than from the table.
void write_parser_options(std::ostream& out, const char* help) {
  out << ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\n"
      << text_line(roff(help)) << "\n"
      << ".TP\n\\fB\\-\\-version\\fR\nprint the version and exit.\n";
}

// ---- README ----

// The rows of the table under README's heading `## heading` (its header and rule skipped), each
// as its cells in roff.
std::vector<std::vector<std::string>> readme_table(const std::string& readme,
                                                   const std::string& heading) {
  std::ifstream in(readme);
  if (!in) throw Failure("cannot read " + readme);
  std::vector<std::vector<std::string>> rows;
  bool under = false;
  int seen = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) {
      if (under) break;
      under = line == "## " + heading;
      continue;
    }
    if (!under) continue;
    if (line.rfind("|", 0) != 0) {
      if (seen > 0) break;  // the table ended
      continue;
    }
    if (++seen <= 2) continue;  // the header and the |---| rule
    std::vector<std::string> cells;
    std::size_t start = 1;
    for (std::size_t bar; (bar = line.find(" |", start)) != std::string::npos; start = bar + 2) {
      std::string cell = line.substr(start, bar - start);
      while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
      cells.push_back(markdown(cell));
    }
    if (cells.size() != 2) throw Failure(readme + ": a row of \"" + heading + "\" has not 2 cells");
    rows.push_back(std::move(cells));
  }
  if (rows.empty()) throw Failure(readme + " has no table under \"## " + heading + "\"");
  return rows;
}

struct Common {  // what both pages say alike
  std::vector<std::vector<std::string>> exit_codes, environment;
  std::string docdir, version;
};

void write_tail(std::ostream& out, const Common& common, const std::string& see_also) {
  out << ".SH \"EXIT STATUS\"\n";
  for (const auto& row : common.exit_codes)
    out << ".TP\n" << text_line("\\fB" + row[0] + "\\fR") << "\n" << text_line(row[1]) << "\n";
  out << ".SH ENVIRONMENT\n";
  for (const auto& row : common.environment)
    out << ".TP\n" << text_line(row[0]) << "\n" << text_line(row[1]) << "\n";
  // The documentation's folder under the prefix the install is given (cmake --install --prefix,
  // /usr in the Debian package), unless it was configured as an absolute path.
  const bool absolute = !common.docdir.empty() && common.docdir[0] == '/';
  const std::string doc =
      std::string(absolute ? "\\fI" : "\\fIPREFIX\\fR/\\fI") + roff(common.docdir, true);
  out << ".SH FILES\n"
      << ".TP\n"
      << doc << "/README.md\\fR\n"
      << "the guide: commands, output, exit codes, limits.\n"
      << ".TP\n"
      << doc << "/docs/\\fR\n"
      << "the design pages: counting, the frontier, clusters, testing.\n"
      << ".TP\n"
      << doc << "/queens.csv\\fR\n"
      << "the known values of Q(n) and unique(n) that \\fB\\-\\-verify\\fR checks.\n"
      << (absolute ? ""
                   : ".PP\n\\fIPREFIX\\fR is the installation prefix: /usr/local unless "
                     "configured otherwise, /usr in the Debian package.\n")
      << ".SH \"SEE ALSO\"\n"
      << see_also << "\n";
}

void write_nqcount_page(std::ostream& out, const std::vector<OptionRow>& rows,
                        const Common& common) {
  out << ".\\\" Written by nqcount-docgen from nqcount's options table; do not edit.\n"
      << ".TH NQCOUNT 1 \"\" \"nqcount " << common.version << "\" \"User Commands\"\n"
      << ".SH NAME\nnqcount \\- " << roff(kNqcountAbout) << "\n"
      << ".SH SYNOPSIS\n";
  for (const Command& c : commands())
    out << ".br\n\\fBnqcount " << c.name << "\\fR" << required_options(rows, c.name)
        << " [\\fIOPTIONS\\fR]\n";
  out << ".br\n\\fBnqcount\\fR [\\fICOMMAND\\fR] \\fB\\-\\-help\\fR\n"
      << ".br\n\\fBnqcount \\-\\-version\\fR\n"
      << ".SH DESCRIPTION\n"
      << "\\fBnqcount\\fR counts the solutions of the n-queens problem exactly: the total, and "
         "the unique count (orbits under the eight symmetries of the square). It also finds "
         "single solutions for large n by local search, and offers the D4 algebra of "
         "solutions.\n"
      << ".PP\n"
      << "The first word names the command; \\fBcount\\fR is the default: \\fBnqcount \\-\\-n "
         "12\\fR means \\fBnqcount count \\-\\-n 12\\fR. A number is written in decimal; an "
         "option of another command is refused.\n"
      << ".SH OPTIONS\n";
  write_parser_options(out, "print the commands (with a command: its options) and exit.");
  out << ".SH COMMANDS\n";
  for (const Command& c : commands()) {
    out << ".SS " << c.name << "\n" << text_line(roff(c.help)) << "\n";
    write_options(out, rows, c.name);
  }
  write_tail(out, common, ".BR nqcount\\-mpi (1),\n.BR lstopo (1)");
}

void write_mpi_page(std::ostream& out, const std::vector<OptionRow>& rows, const Common& common) {
  out << ".\\\" Written by nqcount-docgen from nqcount's options table; do not edit.\n"
      << ".TH NQCOUNT\\-MPI 1 \"\" \"nqcount " << common.version << "\" \"User Commands\"\n"
      << ".SH NAME\nnqcount\\-mpi \\- " << roff(kNqcountMpiAbout) << "\n"
      << ".SH SYNOPSIS\n"
      << "\\fBmpirun\\fR [\\fIMPIRUN OPTIONS\\fR] \\fBnqcount\\-mpi\\fR [\\fB" << kMpiCommand
      << "\\fR]" << required_options(rows, kMpiCommand) << " [\\fIOPTIONS\\fR]\n"
      << ".SH DESCRIPTION\n"
      << text_line(roff("nqcount-mpi runs 'nqcount " + std::string(kMpiCommand) +
                        "' across MPI ranks. " + kNqcountMpiDetail))
      << "\n"
      << ".PP\n"
      << "Its options are those of \\fBnqcount " << kMpiCommand
      << "\\fR; a checkpoint journal of either program resumes under the other.\n"
      << ".SH OPTIONS\n";
  write_parser_options(out, "print the options and exit.");
  write_options(out, rows, kMpiCommand);
  write_tail(out, common, ".BR nqcount (1),\n.BR mpirun (1)");
}

// ---- bash completion ----

// A word the script holds unquoted: letters, digits and _ . , + - only.
const std::string& shell_word(const std::string& word) {
  if (word.empty() || word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789_.,+-") != std::string::npos)
    throw Failure("'" + word + "' cannot be a word of the completion script");
  return word;
}

std::string join(const std::vector<std::string>& words, const char* between = " ") {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += between;
    out += shell_word(w);
  }
  return out;
}

void write_completion(std::ostream& out, const std::vector<OptionRow>& rows) {
  std::vector<std::string> names;
  for (const Command& c : commands()) names.emplace_back(c.name);
  out << "# bash completion for nqcount and nqcount-mpi: commands, options and the values of\n"
         "# enumerated options. Written by nqcount-docgen from nqcount's options table; do not\n"
         "# edit. Plain bash (complete -F): it works sourced on its own or loaded by\n"
         "# bash-completion.\n\n"
         "# _nqcount_options COMMAND: the options of COMMAND, and the parser's own (every command\n"
         "# takes --help and --version).\n"
         "_nqcount_options() {\n"
         "  case $1 in\n";
  std::vector<std::string> with_argument;  // commands that take a positional argument (a file)
  for (const std::string& name : names) {
    std::vector<std::string> flags;
    for (const OptionRow& row : rows)
      if (name == row.command && !positional(row))
        for (const std::string& f : spellings(row)) flags.push_back(f);
      else if (name == row.command &&
               std::find(with_argument.begin(), with_argument.end(), name) == with_argument.end())
        with_argument.push_back(name);
    out << "    " << shell_word(name) << ") echo \"" << join(flags) << " --help --version\" ;;\n";
  }
  out << "  esac\n}\n\n"
         "# _nqcount_value COMMAND OPTION WORD: fills COMPREPLY with the values of OPTION that\n"
         "# start with WORD (an enumerated option: its words; a file: file names; a number or any\n"
         "# other text: none, or the words the table suggests); 1 if OPTION takes no value.\n"
         "_nqcount_value() {\n"
         "  case \"$1 $2\" in\n";
  std::vector<std::string> numbers, texts;
  for (const OptionRow& row : rows) {
    if (positional(row) || !takes_value(row)) continue;
    std::vector<std::string> cases;
    for (const std::string& f : spellings(row))
      cases.push_back("\"" + shell_word(row.command) + " " + shell_word(f) + "\"");
    std::string pattern;
    for (const std::string& c : cases) {
      if (!pattern.empty()) pattern += " | ";
      pattern += c;
    }
    if (!row.choices.empty() || !row.hints.empty())
      out << "    " << pattern << ")\n      mapfile -t COMPREPLY < <(compgen -W \""
          << join(row.choices.empty() ? row.hints : row.choices) << "\" -- \"$3\") ;;\n";
    else
      (row.file ? texts : numbers).push_back(pattern);
  }
  auto alternatives = [](const std::vector<std::string>& patterns) {
    std::string all;
    for (const std::string& p : patterns) {
      if (!all.empty()) all += " | \\\n    ";
      all += p;
    }
    return all;
  };
  out << "    " << alternatives(numbers) << ")\n      COMPREPLY=() ;;\n"
      << "    " << alternatives(texts) << ")\n"
      << "      mapfile -t COMPREPLY < <(compgen -f -- \"$3\")\n"
         "      compopt -o filenames 2>/dev/null\n      return 0 ;;\n"
         "    *) return 1 ;;\n"
         "  esac\n}\n\n"
         "# _nqcount_complete COMMAND [WORDS]: fills COMPREPLY for the word being completed: an\n"
         "# option's value, else COMMAND's options and WORDS (a command's file argument: file\n"
         "# names).\n"
         "_nqcount_complete() {\n"
         "  local cmd=$1 extra=${2:-} cur=${COMP_WORDS[COMP_CWORD]} prev=\n"
         "  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
         "  # --option=value: bash splits the word at the '='.\n"
         "  if [[ $cur == = ]]; then\n"
         "    cur=\n"
         "  elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
         "    prev=${COMP_WORDS[COMP_CWORD - 2]}\n"
         "  fi\n"
         "  if [[ $prev == -* ]] && _nqcount_value \"$cmd\" \"$prev\" \"$cur\"; then return 0; fi\n"
      << (with_argument.empty() ? std::string()
                                : "  case $cmd in\n    " + join(with_argument, " | ") +
                                      ")\n"
                                      "      if [[ $cur != -* ]]; then\n"
                                      "        mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
                                      "        compopt -o filenames 2>/dev/null\n"
                                      "        return 0\n"
                                      "      fi ;;\n"
                                      "  esac\n")
      << "  mapfile -t COMPREPLY < <(compgen -W \"$(_nqcount_options \"$cmd\") $extra\" -- "
         "\"$cur\")\n"
         "  return 0\n"
         "}\n\n"
         "# nqcount [COMMAND] [OPTIONS]: the first word is a command, or one of count's options.\n"
         "_nqcount() {\n"
         "  COMPREPLY=()\n"
         "  if ((COMP_CWORD == 1)) && [[ ${COMP_WORDS[1]} != -* ]]; then\n"
         "    mapfile -t COMPREPLY < <(compgen -W \""
      << join(names)
      << "\" -- \"${COMP_WORDS[1]}\")\n"
         "    return 0\n"
         "  fi\n"
         "  case ${COMP_WORDS[1]} in\n"
         "    "
      << join(names, " | ")
      << ") _nqcount_complete \"${COMP_WORDS[1]}\" ;;\n"
         "    *) _nqcount_complete count ;;\n"
         "  esac\n"
         "}\n\n"
         "# nqcount-mpi ["
      << shell_word(kMpiCommand) << "] [OPTIONS]: count's options, and first the word "
      << shell_word(kMpiCommand)
      << " too.\n"
         "_nqcount_mpi() {\n"
         "  COMPREPLY=()\n"
         "  if ((COMP_CWORD == 1)); then\n"
         "    _nqcount_complete "
      << kMpiCommand << " " << kMpiCommand
      << "\n"
         "  else\n"
         "    _nqcount_complete "
      << kMpiCommand
      << "\n"
         "  fi\n"
         "}\n\n"
         "complete -F _nqcount nqcount\n"
         "complete -F _nqcount_mpi nqcount-mpi\n";
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Failure("cannot write " + path.string());
}

int run(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: nqcount-docgen OUT README DOCDIR\n";
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  const Common common{readme_table(argv[2], "Exit codes"),
                      readme_table(argv[2], "Environment variables"), argv[3], NQ_VERSION};
  Args args;  // the defaults the pages show
  const std::vector<OptionRow> rows = option_table(args);
  std::ostringstream nqcount, mpi, completion;
  write_nqcount_page(nqcount, rows, common);
  write_mpi_page(mpi, rows, common);
  write_completion(completion, rows);
  std::filesystem::create_directories(folder);
  write_file(folder / "nqcount.1", with_glyph_fallbacks(nqcount.str()));
  write_file(folder / "nqcount-mpi.1", with_glyph_fallbacks(mpi.str()));
  write_file(folder / "nqcount", completion.str());
  return 0;
}

}  // namespace
}  // namespace nq::cli

int main(int argc, char** argv) {
  try {
    return nq::cli::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "nqcount-docgen: error: " << e.what() << "\n";
    return 2;
  }
}
