// nqcount: parse, validate, call the engine, print. Nothing else lives here.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "cli/io/stdout_stream.hpp"
#include "cli/options.hpp"

namespace {

constexpr const char* kVersion = NQ_VERSION;  // project(VERSION) in CMakeLists.txt

bool is_command(const char* word) {
  for (const auto& c : nq::cli::commands())
    if (std::strcmp(word, c.name) == 0) return true;
  return false;
}

// The command the parser saw, run.
int run_command(const nq::cli::Args& args, std::map<std::string, CLI::App*>& subs) {
  for (const auto& c : nq::cli::commands())
    if (subs[c.name]->parsed()) return c.run(args);
  return 2;
}

// The message for arguments that no option took (CLI11 lists them in reverse): an option of
// another command is named as not applying to this one ("--threads does not apply to table"),
// anything else is listed in the order typed.
std::string extras_message(const CLI::App& app, const std::map<std::string, CLI::App*>& subs,
                           const std::vector<nq::cli::OptionRow>& rows,
                           const std::vector<std::string>& typed) {
  std::multiset<std::string> left;
  for (const std::string& word : app.remaining(true)) left.insert(word);
  std::vector<std::string> extras;  // in the order typed
  for (const std::string& word : typed)
    if (const auto it = left.find(word); it != left.end()) {
      extras.push_back(word);
      left.erase(it);
    }
  std::string command;
  for (const auto& [name, sub] : subs)
    if (sub->parsed()) command = name;
  if (!extras.empty() && !command.empty()) {
    const std::string& first = extras.front();
    const std::string option = first.substr(0, first.find('='));
    for (const nq::cli::OptionRow& row : rows)
      if (option.size() > 1 && option[0] == '-' && row.command != command &&
          (option == nq::cli::long_flag(row.flags) ||
           ("," + std::string(row.flags) + ",").find("," + option + ",") != std::string::npos))
        return option + " does not apply to " + command + " (see 'nqcount " + command + " --help')";
  }
  std::string message = extras.size() > 1 ? "The following arguments were not expected:"
                                          : "The following argument was not expected:";
  for (const std::string& word : extras) message += " " + word;
  return message;
}

// What a command printed must have reached standard output, by any writer (stdio, std::cout,
// a StdoutStream), the help and the version included: a full disk or device (ENOSPC) is an
// error, exit 2, never a silent 0. A reader that went away (EPIPE: `nqcount ... | head`)
// ends the output quietly (main ignores SIGPIPE).
int check_standard_output(int status) {
  // A command that returns 2 has said what went wrong (list and orbits report their own
  // stream's errors); one that did not still fails here.
  if (const int error = nq::cli::stdout_stream_error(); error != 0 && status != 2) {
    std::fprintf(stderr, "nqcount: error: cannot write to standard output: %s\n",
                 std::strerror(error));
    return 2;
  }
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout) return status;
  if (errno == EPIPE) return status;
  std::fprintf(stderr, "nqcount: error: cannot write to standard output: %s\n",
               errno ? std::strerror(errno) : "write error");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // A reader that goes away (`nqcount list | head`) ends the output: every writer sees EPIPE and
  // stops quietly, instead of the process dying of SIGPIPE half way through a write.
  std::signal(SIGPIPE, SIG_IGN);
  nq::cli::Args args;
  CLI::App app{std::string("nqcount: ") + nq::cli::kNqcountAbout +
                   ".\nRun 'nqcount COMMAND --help' for a command's options.",
               "nqcount"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  std::map<std::string, CLI::App*> subs;
  for (const auto& c : nq::cli::commands()) subs[c.name] = app.add_subcommand(c.name, c.help);
  const std::vector<nq::cli::OptionRow> rows = nq::cli::option_table(args);
  for (const auto& row : rows) nq::cli::add_option_row(*subs.at(row.command), row);

  // `count` is the default command: `nqcount --n 18` means `nqcount count --n 18`.
  std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    std::cerr << "nqcount: error: no arguments; try 'nqcount --n 12' or 'nqcount --help'\n";
    return 2;
  }
  const std::string& first = words.front();
  if (!is_command(first.c_str()) && first != "-h" && first != "--help" && first != "--version")
    words.insert(words.begin(), "count");
  const std::vector<std::string> typed = words;
  std::reverse(words.begin(), words.end());  // CLI11 takes a vector in reverse order

  // Fully buffered into a pipe or a file: what a command prints (the help and the version
  // too) goes out at the end in one write, whose error (and errno) check_standard_output then
  // sees.
  if (!::isatty(STDOUT_FILENO)) std::setvbuf(stdout, nullptr, _IOFBF, std::size_t{1} << 20);
  try {
    app.parse(words);
  } catch (const CLI::CallForHelp& e) {
    return check_standard_output(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return check_standard_output(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    // Printed here, not by app.exit (whose std::endl flushes early and loses the errno).
    std::printf("%s\n", e.what());
    return check_standard_output(0);
  } catch (const CLI::ExtrasError&) {
    nq::cli::print_error(extras_message(app, subs, rows, typed));
    return 2;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
    nq::cli::print_error(what);  // one line: what the user typed may hold control characters
    return 2;
  }
  args.count.argv.assign(argv, argv + argc);  // for the "resume with" hint
  args.count.given = nq::cli::given_options(*subs["count"], rows, "count");
  args.solve.given = nq::cli::given_options(*subs["solve"], rows, "solve");
  return check_standard_output(run_command(args, subs));
}
