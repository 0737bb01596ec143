#include "cli/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace nq::cli {
namespace {

// The descriptor a standard-stream name stands for (dup'ed, so that the output continues at
// the stream's own offset), or -1 if `path` is no such name.
int standard_stream_fd(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::size_t k = std::strlen(prefix);
    if (path.rfind(prefix, 0) != 0 || path.size() == k || path.size() > k + 9) continue;
    if (path.find_first_not_of("0123456789", k) != std::string::npos) continue;
    return std::atoi(path.c_str() + k);
  }
  return -1;
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {}

OutputFile::~OutputFile() {
  discard();
}

void OutputFile::discard() {
  if (stdio_)
    std::fclose(stdio_);
  else if (fd_ >= 0)
    ::close(fd_);
  stdio_ = nullptr;
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

std::string OutputFile::describe_errno() const {
  return what_ + " '" + path_ + "': " + std::strerror(errno);
}

bool OutputFile::open(std::string* error) {
  if (const int stream = standard_stream_fd(path_); stream >= 0) {
    target_ = {path_, OutputKind::kStream};
    fd_ = ::fcntl(stream, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) *error = "cannot write " + describe_errno();
    return fd_ >= 0;
  }
  auto target = resolve_output(path_);
  if (!target) {
    *error = what_ + " " + target.error().message;
    return false;
  }
  target_ = *target;
  if (target_.kind == OutputKind::kStream) {
    fd_ = ::open(target_.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) *error = "cannot write " + describe_errno();
    return fd_ >= 0;
  }
  // A new file gets the usual mode; a replaced one keeps its own.
  mode_t mode = 0644;
  struct stat st {};
  if (target_.kind == OutputKind::kRegular && ::stat(target_.path.c_str(), &st) == 0)
    mode = st.st_mode & 07777;
  temp_ = target_.path + ".tmp.XXXXXX";
  fd_ = ::mkostemp(temp_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    temp_.clear();
    *error = "cannot write " + describe_errno();
    return false;
  }
  ::fchmod(fd_, mode);
  return true;
}

std::FILE* OutputFile::stdio() {
  if (!stdio_ && fd_ >= 0) stdio_ = ::fdopen(fd_, "w");
  return stdio_;
}

bool OutputFile::write(std::string_view text, std::string* error) {
  if (fd_ < 0 && !open(error)) return false;
  if (stdio_) {
    if (std::fwrite(text.data(), 1, text.size(), stdio_) == text.size()) return true;
  } else if (write_all(fd_, text.data(), text.size())) {
    return true;
  }
  write_failed_ = true;
  write_errno_ = errno;
  *error = "cannot write " + describe_errno();
  return false;
}

bool OutputFile::commit(std::string* error) {
  if (fd_ < 0 && !open(error)) return false;
  // The first failure decides the message: errno is taken right after the call that failed.
  int failure = write_failed_ ? write_errno_ : 0;
  errno = 0;
  if (!failure && stdio_ && (std::fflush(stdio_) != 0 || std::ferror(stdio_)))
    failure = errno ? errno : EIO;
  if (!failure && target_.kind != OutputKind::kStream && ::fsync(fd_) != 0) failure = errno;
  const int closed = stdio_ ? std::fclose(stdio_) : ::close(fd_);
  if (!failure && closed != 0) failure = errno;  // a deferred write error (NFS, quota)
  stdio_ = nullptr;
  fd_ = -1;
  if (!failure && !temp_.empty() && std::rename(temp_.c_str(), target_.path.c_str()) != 0)
    failure = errno;
  if (failure) {
    errno = failure;
    *error = "cannot write " + describe_errno();
    discard();
    return false;
  }
  temp_.clear();
  return true;
}

}  // namespace nq::cli
