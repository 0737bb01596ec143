// The progress line on stderr, drawn by its own thread from the engine's Monitor counters.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "types.hpp"

namespace nq::cli {

class ProgressLine {
 public:
  // Draws nothing during the first `delay`, so that short runs stay quiet.
  ProgressLine(const Monitor& monitor, bool enabled,
               std::chrono::milliseconds delay = std::chrono::milliseconds(1000));
  ~ProgressLine();  // stops the thread and clears the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void loop();
  void draw(double elapsed);

  const Monitor& monitor_;
  std::chrono::milliseconds delay_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

// Whether stderr is a terminal.
bool stderr_is_terminal();

}  // namespace nq::cli
