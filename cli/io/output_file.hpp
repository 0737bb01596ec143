// One writer for every file the commands write (solutions, task stats): the target is decided
// by resolve_output (engine/common/file_io.hpp), so a regular file is replaced atomically, and a
// device, FIFO or standard stream is written straight through and never replaced.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "common/file_io.hpp"

namespace nq::cli {

class OutputFile {
 public:
  // `path` "-" is standard output. `what` names the option in messages ("--output").
  OutputFile(std::string path, std::string what);
  ~OutputFile();  // an uncommitted temporary file is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Opens the temporary file beside the target, or the stream itself. Call it before a long
  // run, so that an unwritable path is reported before the work.
  bool open(std::string* error);
  int fd() const { return fd_; }
  bool is_stdout() const { return path_ == "-"; }
  // The same file through stdio, for formatted writers; open() first.
  std::FILE* stdio();

  bool write(std::string_view text, std::string* error);
  // Flushes what stdio holds, then (a regular file) syncs the temporary file and renames it onto
  // the target. Any write error since open, ENOSPC from a full device included, is reported.
  bool commit(std::string* error);

 private:
  std::string describe_errno() const;
  void note_write_error(int error);  // keeps the first
  void discard();

  std::string path_, what_;
  OutputTarget target_;
  std::string temp_;  // the temporary file while one exists
  int fd_ = -1;
  std::FILE* stdio_ = nullptr;
  bool write_failed_ = false;
  bool reader_gone_ = false;  // a stream's reader went away (EPIPE): the output has ended
  int write_errno_ = 0;
};

}  // namespace nq::cli
