#include "cli/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <set>

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

// The identities of where `path` leads, for outputs_error: two outputs clash when they share one.
// "fd:N" for a standard stream; "file:DEV:INO" for an existing file that is not a character
// device; "new:FOLDER/NAME" for a path that does not exist yet. A file that standard output or
// standard error already leads to (`> out.txt`) is that stream too.
std::set<std::string> identities(const std::string& path) {
  std::set<std::string> ids;
  auto file_id = [](const struct stat& st) {
    return "file:" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  };
  struct stat st {};
  if (const int stream = standard_stream_fd(path); stream >= 0) {
    ids.insert("fd:" + std::to_string(stream));
    if (::fstat(stream, &st) == 0 && !S_ISCHR(st.st_mode)) ids.insert(file_id(st));
    return ids;
  }
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode)) return ids;  // /dev/null, a terminal: no file to clash over
    ids.insert(file_id(st));
    for (const int stream : {STDOUT_FILENO, STDERR_FILENO}) {
      struct stat s {};
      if (::fstat(stream, &s) == 0 && s.st_dev == st.st_dev && s.st_ino == st.st_ino)
        ids.insert("fd:" + std::to_string(stream));
    }
    return ids;
  }
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0) {  // a link to nothing (refused when it is opened)
    ids.insert(file_id(link));
    return ids;
  }
  // A new file: its folder as the kernel resolves it, and its name.
  const std::size_t slash = path.rfind('/');
  const std::string folder =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char resolved[PATH_MAX];
  ids.insert("new:" + (::realpath(folder.c_str(), resolved) ? std::string(resolved) : folder) +
             "/" + name);
  return ids;
}

bool writes_to_stdout(const std::set<std::string>& ids) {
  return ids.count("fd:1") > 0;
}

}  // namespace

std::string outputs_error(const std::vector<NamedOutput>& outputs, bool json_on_stdout) {
  std::vector<std::pair<const NamedOutput*, std::set<std::string>>> seen;
  for (const NamedOutput& output : outputs) {
    if (output.path.empty()) continue;
    std::set<std::string> ids = identities(output.path);
    if (json_on_stdout && writes_to_stdout(ids))
      return output.option + " '" + output.path +
             "' writes to standard output, which carries the JSON record of --json: the two "
             "would mix; write it to a file, or drop --json";
    for (const auto& [other, other_ids] : seen)
      for (const std::string& id : ids)
        if (other_ids.count(id)) {
          const bool stream = id.rfind("fd:", 0) == 0;
          return other->option + " '" + other->path + "' and " + output.option + " '" +
                 output.path + "' lead to the same " + (stream ? "stream" : "file") +
                 ", and one would overwrite or mix with the other; give each output a file of "
                 "its own";
        }
    seen.emplace_back(&output, std::move(ids));
  }
  return "";
}

OutputFile::OutputFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {}

OutputFile::~OutputFile() {
  discard();
}

void OutputFile::discard() {
  if (stdio_) std::fclose(stdio_);
  if (fd_ >= 0) ::close(fd_);
  stdio_ = nullptr;
  fd_ = -1;
  if (!temp_.empty()) remove_temp(temp_);
  temp_.clear();
}

std::string OutputFile::describe_errno() const {
  if (is_stdout()) return std::string("to standard output: ") + std::strerror(errno);
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
    // Non-blocking to open, so that a FIFO nobody reads is an error (ENXIO) instead of a hang;
    // blocking again for the writes.
    fd_ = ::open(target_.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd_ < 0) {
      // ENXIO: a FIFO nobody reads, or a socket, which open() cannot write at all.
      if (errno == ENXIO) {
        struct stat st {};
        const bool socket = ::stat(target_.path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
        *error = "cannot write " + what_ + " '" + path_ + "': " +
                 (socket ? "it is a socket, not a file" : "a FIFO that no process is reading");
      } else {
        *error = "cannot write " + describe_errno();
      }
      return false;
    }
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    return true;
  }
  if (const int failed = create_temp_beside(target_.path, fd_, temp_)) {
    errno = failed;
    *error = "cannot write " + describe_errno();
    return false;
  }
  return true;
}

// A stdio stream over fd_ whose writes go through write_all and keep the first failure's errno
// (stdio itself only keeps an error flag, and errno is long overwritten by the time the writer
// checks it). Closing it leaves fd_ open: discard() and commit() close that.
std::FILE* OutputFile::stdio() {
  if (stdio_ || fd_ < 0) return stdio_;
  cookie_io_functions_t io{};
  io.write = [](void* cookie, const char* data, std::size_t size) -> ssize_t {
    auto* self = static_cast<OutputFile*>(cookie);
    if (self->reader_gone_ || write_all(self->fd_, data, size)) return static_cast<ssize_t>(size);
    self->note_write_error(errno);
    return self->reader_gone_ ? static_cast<ssize_t>(size) : -1;
  };
  stdio_ = ::fopencookie(this, "w", io);
  return stdio_;
}

void OutputFile::note_write_error(int error) {
  // A pipe or FIFO whose reader went away (`nqcount solve ... | head`): the output just ends,
  // as for standard output (the CLI ignores SIGPIPE); what follows is dropped.
  if (error == EPIPE && target_.kind == OutputKind::kStream) {
    reader_gone_ = true;
    return;
  }
  if (!write_failed_) write_errno_ = error;
  write_failed_ = true;
}

bool OutputFile::write(std::string_view text, std::string* error) {
  if (fd_ < 0 && !open(error)) return false;
  // What the command printed on standard output before goes first (the stream may be it).
  if (target_.kind == OutputKind::kStream) std::fflush(stdout);
  if (reader_gone_) return true;
  if (stdio_) {
    if (std::fwrite(text.data(), 1, text.size(), stdio_) == text.size()) return true;
  } else if (write_all(fd_, text.data(), text.size())) {
    return true;
  }
  note_write_error(errno);
  if (reader_gone_) return true;
  *error = "cannot write " + describe_errno();
  return false;
}

bool OutputFile::commit(std::string* error) {
  if (fd_ < 0 && !open(error)) return false;
  // The first failure decides the message: errno is taken right after the call that failed.
  if (stdio_) {
    std::fflush(stdio_);  // a failure is noted by the stream's write (note_write_error)
    if (std::ferror(stdio_)) note_write_error(EIO);
    std::fclose(stdio_);
    stdio_ = nullptr;
  }
  int failure = write_failed_ ? write_errno_ : 0;
  if (!failure) {
    if (temp_.empty()) {
      failure = ::close(fd_) == 0 ? 0 : errno;  // a stream: a deferred write error
    } else {
      failure = publish_temp(fd_, temp_, target_.path);  // removes the temporary file on failure
      temp_.clear();
    }
    fd_ = -1;
  }
  if (failure) {  // discard() closes and removes what is still open
    errno = failure;
    *error = "cannot write " + describe_errno();
    discard();
    return false;
  }
  return true;
}

}  // namespace nq::cli
