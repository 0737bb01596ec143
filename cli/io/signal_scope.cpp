#include "cli/io/signal_scope.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace nq::cli {
namespace {

std::atomic<bool>* g_cancel = nullptr;
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) {
  if (g_signal != 0) _exit(128 + sig);
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

}  // namespace nq::cli
