// The progress line on stderr, drawn by its own thread from the engine's Monitor counters.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "base/types.hpp"

namespace nq::cli {

// Whether stderr is a terminal.
bool stderr_is_terminal();

class ProgressLine {
 public:
  // Draws nothing during the first `delay`, so that short runs stay quiet. On a terminal the
  // line is redrawn in place (carriage return and erase-line) four times a second; anywhere
  // else (a file, a pipe) it is a plain text line every `plain_every`, no escape codes.
  ProgressLine(const Monitor& monitor, bool enabled,
               std::chrono::milliseconds delay = std::chrono::milliseconds(1000),
               bool terminal = stderr_is_terminal(),
               std::chrono::milliseconds plain_every = std::chrono::milliseconds(5000));
  // The same for any phase that is not a count (writing a large file): `text` makes the line
  // from the seconds elapsed, on the line's own thread.
  ProgressLine(std::function<std::string(double elapsed)> text, bool enabled,
               std::chrono::milliseconds delay = std::chrono::milliseconds(1000),
               bool terminal = stderr_is_terminal(),
               std::chrono::milliseconds plain_every = std::chrono::milliseconds(5000));
  ~ProgressLine();  // stops the thread and clears the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void loop();
  void draw(double elapsed);

  std::function<std::string(double)> text_;
  std::chrono::milliseconds delay_;
  bool terminal_;
  std::chrono::milliseconds every_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

// What the progress line shows, from one reading of the Monitor: percent done weighted by the
// estimated cost of each subproblem (engine/count/src/cost.hpp), subproblems done/total, elapsed
// time, ETA (from this run's own pace: work a resumed run found done is not counted in it) and the
// rate in nodes/s. A pure function, so that it is tested without a terminal.
struct ProgressReading {
  std::uint64_t subproblems_done = 0, subproblems_total = 0;
  std::uint64_t cost_done = 0, cost_total = 0, cost_resumed = 0;
  std::uint64_t nodes_done = 0;
};
std::string progress_text(const ProgressReading& p, double elapsed_seconds);
// The line of a phase that writes `total` items (a solution's columns, a matrix's ones), `done`
// of them so far: "[nqcount] writing the solution  42.0%  420000000/1000000000 columns  elapsed
// 12s  ETA 17s".
std::string writing_text(const std::string& what, const char* items, std::uint64_t done,
                         std::uint64_t total, double elapsed_seconds);
std::string format_duration(double seconds);  // "42s", "3m07s", "2h05m", "3d04h"

}  // namespace nq::cli
