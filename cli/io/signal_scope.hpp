// Ctrl-C and the scheduler's SIGTERM, for every command that runs long (count, solve, the MPI
// root): while a SignalScope lives, the first SIGINT/SIGTERM sets the monitor's cancel flag,
// so the engine stops at its next check and the command saves what it has (a checkpoint stays
// valid: only whole records are ever appended); a second signal exits at once.
#pragma once

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

}  // namespace nq::cli
