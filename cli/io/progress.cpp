#include "cli/io/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

namespace nq::cli {

bool stderr_is_terminal() {
  return isatty(STDERR_FILENO) == 1;
}

namespace {

ProgressReading read_monitor(const Monitor& monitor) {
  ProgressReading p;
  p.subproblems_done = monitor.subproblems_done.load(std::memory_order_relaxed);
  p.subproblems_total = monitor.subproblems_total.load(std::memory_order_relaxed);
  p.cost_done = monitor.cost_done.load(std::memory_order_relaxed);
  p.cost_total = monitor.cost_total.load(std::memory_order_relaxed);
  p.cost_resumed = monitor.cost_resumed.load(std::memory_order_relaxed);
  p.nodes_done = monitor.nodes_done.load(std::memory_order_relaxed);
  return p;
}

}  // namespace

ProgressLine::ProgressLine(const Monitor& monitor, bool enabled, std::chrono::milliseconds delay,
                           bool terminal, std::chrono::milliseconds plain_every)
    : ProgressLine(
          [&monitor](double elapsed) { return progress_text(read_monitor(monitor), elapsed); },
          enabled, delay, terminal, plain_every) {}

ProgressLine::ProgressLine(std::function<std::string(double)> text, bool enabled,
                           std::chrono::milliseconds delay, bool terminal,
                           std::chrono::milliseconds plain_every)
    : text_(std::move(text)),
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
  const std::string line = text_(elapsed);
  if (terminal_)
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  else
    std::fprintf(stderr, "%s\n", line.c_str());
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

std::string writing_text(const std::string& what, const char* items, std::uint64_t done,
                         std::uint64_t total, double elapsed) {
  const double fraction =
      total > 0 ? static_cast<double>(std::min(done, total)) / static_cast<double>(total) : 0.0;
  const std::string eta =
      done > 0 && elapsed > 0 ? format_duration(elapsed * (1 - fraction) / fraction) : "?";
  char buf[240];
  std::snprintf(buf, sizeof buf, "[nqcount] writing %s  %5.1f%%  %llu/%llu %s  elapsed %s  ETA %s",
                what.c_str(), 100 * fraction, static_cast<unsigned long long>(done),
                static_cast<unsigned long long>(total), items, format_duration(elapsed).c_str(),
                eta.c_str());
  return buf;
}

}  // namespace nq::cli
