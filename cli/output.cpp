#include "cli/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>

namespace nq::cli {

nlohmann::json json_count(u128 v) {
  if (v <= std::numeric_limits<std::uint64_t>::max()) return static_cast<std::uint64_t>(v);
  return to_string(v);
}

void print_error(const std::string& message) {
  std::cerr << "nqcount: error: " << message << "\n";
}
void print_warning(const std::string& message) {
  std::cerr << "nqcount: warning: " << message << "\n";
}

AtomicFile::AtomicFile(std::string path)
    : path_(std::move(path)), temp_(path_ + ".tmp." + std::to_string(getpid())) {}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_.c_str());
  }
}

bool AtomicFile::open(std::string* error) {
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) *error = "cannot write '" + path_ + "': " + std::strerror(errno);
  return fd_ >= 0;
}

bool AtomicFile::commit(const std::string& text, std::string* error) {
  if (fd_ < 0 && !open(error)) return false;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t k = ::write(fd_, text.data() + done, text.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      *error = "cannot write '" + path_ + "': " + std::strerror(errno);
      return false;  // the destructor removes the temporary file
    }
    done += static_cast<std::size_t>(k);
  }
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    fd_ = -1;
    ::unlink(temp_.c_str());
    *error = "cannot write '" + path_ + "': " + std::strerror(errno);
    return false;
  }
  fd_ = -1;
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    ::unlink(temp_.c_str());
    *error = "cannot rename onto '" + path_ + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace nq::cli
