// nqcount: parse, validate, call the engine, print. Nothing else lives here.
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "cli/io/signal_scope.hpp"
#include "cli/io/stdout_stream.hpp"
#include "cli/options.hpp"

namespace {

constexpr const char* kVersion = NQ_VERSION;  // project(VERSION) in CMakeLists.txt

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
  // Fully buffered into a pipe or a file: what a command prints (the help and the version
  // too) goes out at the end in one write, whose error (and errno) check_standard_output then
  // sees. (The buffer is given: with none, glibc ignores the size and writes every 4 KB, so a
  // longer help met the error half way and its errno was gone by the end.)
  static char stdout_buffer[std::size_t{1} << 20];
  if (!::isatty(STDOUT_FILENO)) std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
  nq::cli::end_on_uncaught_exceptions();
  try {
    nq::cli::Args args;
    const nq::cli::CommandLine line = nq::cli::read_command_line(argc, argv, kVersion, args);
    if (!line.command.empty()) {
      const auto thread_cap = nq::cli::program_thread_cap(line.threads);
      for (const auto& c : nq::cli::commands())
        if (line.command == c.name) return check_standard_output(c.run(args));
    }
    return check_standard_output(line.status);
  } catch (...) {  // out of memory or threads: unwound, so every file is closed or removed
    nq::cli::print_error(nq::cli::describe_escaped(std::current_exception()));
    return check_standard_output(2);
  }
}
