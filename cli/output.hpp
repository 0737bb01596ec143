// Small helpers for what the commands print.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "common/types.hpp"

namespace nq::cli {

// A count as a JSON number while it fits in 64 bits, else as a decimal string.
nlohmann::json json_count(u128 v);

// One line on stderr: "nqcount: error: <message>".
void print_error(const std::string& message);
void print_warning(const std::string& message);

// A file written all at once or not at all: the text goes to a temporary name beside `path`,
// which is renamed over `path` when complete, so an interrupted run leaves no partial file.
// `open` creates the temporary file (call it before a long run, to fail early); `commit`
// writes and renames; the destructor removes the temporary file if `commit` never ran.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  bool open(std::string* error);
  bool commit(const std::string& text, std::string* error);

 private:
  std::string path_, temp_;
  int fd_ = -1;
};

}  // namespace nq::cli
