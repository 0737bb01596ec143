// Ctrl-C and the scheduler's SIGTERM, for every command that runs long (count, solve, the MPI
// root): while a SignalScope lives, the first SIGINT/SIGTERM sets the monitor's cancel flag,
// so the engine stops at its next check and the command saves what it has (a checkpoint stays
// valid: only whole records are ever appended); a second signal exits at once.
// And how a program ends when something escapes its commands (end_on_uncaught_exceptions).
#pragma once

#include <exception>
#include <string>

#include "base/types.hpp"

namespace nq::cli {

class SignalScope {
 public:
  explicit SignalScope(Monitor& monitor);
  ~SignalScope();
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;
  // The signal that arrived (SIGINT, SIGTERM), or 0.
  static int received();
  // The exit status for an interrupted run: 128 + the signal (130 for SIGINT, 143 for SIGTERM).
  static int exit_status();
};

// An exception that escaped a command, as the one line the program says: a resource that ran
// out (nq::resource_error: memory, threads), else "internal error: ...".
std::string describe_escaped(std::exception_ptr thrown);

// From now on, an exception that no one catches, in any thread, ends the program with
// describe_escaped's line on stderr and exit status 2, after removing its unpublished
// temporary files (nq::remove_unpublished_temps), instead of std::terminate's abort and core.
void end_on_uncaught_exceptions();

}  // namespace nq::cli
