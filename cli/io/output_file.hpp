// One writer for every file the commands write (solutions, task stats): the target is decided
// by resolve_output (base/file_io.hpp), so a regular file is replaced atomically, and a
// device, FIFO or standard stream is written straight through and never replaced.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.hpp"

namespace nq::cli {

// One output option of a run and the path it names ("-": standard output).
struct NamedOutput {
  std::string option;  // "--output", "--task-stats", ...
  std::string path;    // empty: not given
};

// What is wrong with writing `outputs` in one run (empty: nothing), checked before anything is
// written: two that lead to the same file, by any path (a symbolic or hard link, `..`): for an
// existing file its device and inode after following links, for a new one its canonical
// folder and name. Two standard-stream names for one descriptor (`-`, /dev/stdout, /dev/fd/1)
// are the same output too; a character device (/dev/null, a terminal) under its own name is no
// clash. With `json_on_stdout` standard output carries one JSON object, so no output may go
// there as well.
std::string outputs_error(const std::vector<NamedOutput>& outputs, bool json_on_stdout);

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
