#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace nq::cli {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

ProgressLine::ProgressLine(const Monitor& monitor, bool enabled, std::chrono::milliseconds delay)
    : monitor_(monitor), delay_(delay), start_(std::chrono::steady_clock::now()) {
  if (enabled) thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void ProgressLine::loop() {
  std::unique_lock lock(mu_);
  if (cv_.wait_for(lock, delay_, [this] { return stop_; })) return;
  while (!stop_) {
    draw(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; });
  }
}

void ProgressLine::draw(double elapsed) {
  const auto done = monitor_.subproblems_done.load(std::memory_order_relaxed);
  const auto total = monitor_.subproblems_total.load(std::memory_order_relaxed);
  const double pct = total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 0.0;
  std::fprintf(stderr, "\r\033[K[nqcount] %llu/%llu subproblems (%.1f%%)  %.1f s",
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), pct,
               elapsed);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace nq::cli
