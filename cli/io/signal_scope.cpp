#include "cli/io/signal_scope.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "base/file_io.hpp"
#include "cli/io/output.hpp"

namespace nq::cli {
namespace {

std::atomic<bool>* g_cancel = nullptr;
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) {
  if (g_signal != 0) {
    remove_unpublished_temps();
    _exit(128 + sig);
  }
  g_signal = sig;
  if (g_cancel) g_cancel->store(true, std::memory_order_relaxed);
}

}  // namespace

SignalScope::SignalScope(Monitor& monitor) {
  g_cancel = &monitor.cancel;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

SignalScope::~SignalScope() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_cancel = nullptr;
}

int SignalScope::received() {
  return g_signal;
}

int SignalScope::exit_status() {
  return 128 + (g_signal ? g_signal : SIGINT);
}

std::string describe_escaped(std::exception_ptr thrown) {
  try {
    return resource_error(thrown).message;
  } catch (const std::exception& e) {
    return std::string("internal error: ") + e.what();
  } catch (...) {
    return "internal error: an unknown exception";
  }
}

void end_on_uncaught_exceptions() {
  std::set_terminate([] {
    const std::exception_ptr thrown = std::current_exception();
    remove_unpublished_temps();
    print_error(thrown ? describe_escaped(thrown) : "internal error: the program was terminated");
    std::fflush(stderr);
    _exit(2);
  });
}

}  // namespace nq::cli
