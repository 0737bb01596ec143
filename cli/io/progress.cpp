#include "cli/io/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace nq::cli {

bool stderr_is_terminal() {
  return isatty(STDERR_FILENO) == 1;
}

ProgressLine::ProgressLine(const Monitor& monitor, bool enabled, std::chrono::milliseconds delay,
                           bool terminal, std::chrono::milliseconds plain_every)
    : monitor_(monitor),
      delay_(delay),
      terminal_(terminal),
      every_(terminal ? std::chrono::milliseconds(250) : plain_every),
      start_(std::chrono::steady_clock::now()) {
  if (enabled) thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (drawn_ && terminal_) std::fputs("\r\033[K", stderr);
}

void ProgressLine::loop() {
  std::unique_lock lock(mu_);
  if (cv_.wait_for(lock, delay_, [this] { return stop_; })) return;
  while (!stop_) {
    draw(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    cv_.wait_for(lock, every_, [this] { return stop_; });
  }
}

void ProgressLine::draw(double elapsed) {
  ProgressReading p;
  p.subproblems_done = monitor_.subproblems_done.load(std::memory_order_relaxed);
  p.subproblems_total = monitor_.subproblems_total.load(std::memory_order_relaxed);
  p.cost_done = monitor_.cost_done.load(std::memory_order_relaxed);
  p.cost_total = monitor_.cost_total.load(std::memory_order_relaxed);
  p.cost_resumed = monitor_.cost_resumed.load(std::memory_order_relaxed);
  p.nodes_done = monitor_.nodes_done.load(std::memory_order_relaxed);
  if (terminal_)
    std::fprintf(stderr, "\r\033[K%s", progress_text(p, elapsed).c_str());
  else
    std::fprintf(stderr, "%s\n", progress_text(p, elapsed).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e15) return "?";
  char buf[32];
  if (seconds >= 365.25 * 86400) {  // a frontier board on a few cores: years
    std::snprintf(buf, sizeof buf, "%.3gy", seconds / (365.25 * 86400));
    return buf;
  }
  const auto s = static_cast<unsigned long long>(seconds + 0.5);
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%llus", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%llum%02llus", s / 60, s % 60);
  else if (s < 86400)
    std::snprintf(buf, sizeof buf, "%lluh%02llum", s / 3600, s / 60 % 60);
  else
    std::snprintf(buf, sizeof buf, "%llud%02lluh", s / 86400, s / 3600 % 24);
  return buf;
}

std::string progress_text(const ProgressReading& p, double elapsed) {
  // Weighted by estimated cost when the engine gave costs, else by subproblem count.
  const bool by_cost = p.cost_total > 0;
  const double done = static_cast<double>(by_cost ? p.cost_done : p.subproblems_done);
  const double total = static_cast<double>(by_cost ? p.cost_total : p.subproblems_total);
  const double before = by_cost ? static_cast<double>(p.cost_resumed) : 0.0;
  const double pct = total > 0 ? 100.0 * std::min(done, total) / total : 0.0;
  std::string eta = "?";
  if (done > before && elapsed > 0)  // this run's pace over what is left
    eta = format_duration(elapsed * (total - std::min(done, total)) / (done - before));
  const double rate = elapsed > 0 ? static_cast<double>(p.nodes_done) / elapsed : 0.0;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "[nqcount] %5.1f%%  %llu/%llu subproblems  elapsed %s  ETA %s  %.3g nodes/s", pct,
                static_cast<unsigned long long>(p.subproblems_done),
                static_cast<unsigned long long>(p.subproblems_total),
                format_duration(elapsed).c_str(), eta.c_str(), rate);
  return buf;
}

}  // namespace nq::cli
