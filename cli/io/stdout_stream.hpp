// Buffered output to stdout for commands that stream many lines (`list`, `orbits`). Output is
// written with write(2) in large blocks, and a reader that goes away (`nqcount list | head`)
// ends the stream quietly: SIGPIPE is ignored while the writer lives, and EPIPE turns into
// `closed()`, which the producer checks to stop early. On a terminal it flushes every line.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>
#include <string>
#include <string_view>

#include "base/file_io.hpp"

namespace nq::cli {

// The first write error other than EPIPE that any StdoutStream met: main's final check of
// standard output reports it (exit 2) for a command that did not report it itself.
inline int& stdout_stream_error() {
  static int error = 0;
  return error;
}

class StdoutStream {
 public:
  StdoutStream() : line_buffered_(::isatty(STDOUT_FILENO) == 1) {
    previous_ = std::signal(SIGPIPE, SIG_IGN);
  }
  ~StdoutStream() {
    flush();
    std::signal(SIGPIPE, previous_);
  }
  StdoutStream(const StdoutStream&) = delete;
  StdoutStream& operator=(const StdoutStream&) = delete;

  void put(std::string_view s) {
    buffer_.append(s);
    if (buffer_.size() >= kBlock) flush();
  }
  void put(char c) {
    buffer_.push_back(c);
    if (buffer_.size() >= kBlock || (c == '\n' && line_buffered_)) flush();
  }
  // Appends the decimal digits of v (faster than streams: `list` prints millions).
  void put_int(int v) {
    char digits[12];  // "-2147483648"
    buffer_.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
  }

  // Writes what is buffered. After a closed pipe or another write error, drops everything.
  void flush() {
    if (!failed_ && !buffer_.empty() && !write_all(STDOUT_FILENO, buffer_.data(), buffer_.size())) {
      failed_ = true;
      error_ = errno;
      if (error_ != EPIPE && stdout_stream_error() == 0) stdout_stream_error() = error_;
    }
    buffer_.clear();
  }

  bool failed() const { return failed_; }
  // The reader went away: not an error, the stream just ends.
  bool closed() const { return failed_ && error_ == EPIPE; }
  std::string error_text() const { return std::strerror(error_); }

 private:
  static constexpr std::size_t kBlock = 1 << 16;
  std::string buffer_;
  bool line_buffered_;  // a terminal sees each line as soon as it is complete
  bool failed_ = false;
  int error_ = 0;
  void (*previous_)(int) = SIG_DFL;
};

}  // namespace nq::cli
