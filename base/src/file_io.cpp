#include "base/file_io.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace nq {

bool write_all(int fd, const void* data, std::size_t size, std::size_t* written) {
  const auto* p = static_cast<const char*>(data);
  std::size_t done = 0;
  bool ok = true;
  while (done < size) {
    const ssize_t k = ::write(fd, p + done, size - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = EIO;  // no progress and no error: give up rather than spin
      ok = false;
      break;
    }
    done += static_cast<std::size_t>(k);
  }
  if (written) *written = done;
  return ok;
}

namespace {

// Six letters or digits for a temporary name, from the kernel's random source (or, where that
// fails, the clock and the process id: O_EXCL below makes any name safe, only retried).
std::string random_suffix() {
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[6];
  if (::getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bytes)) {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    std::uint64_t x = static_cast<std::uint64_t>(now.tv_nsec) ^
                      (static_cast<std::uint64_t>(::getpid()) << 32) ^
                      static_cast<std::uint64_t>(now.tv_sec);
    for (unsigned char& b : bytes) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      b = static_cast<unsigned char>(x >> 56);
    }
  }
  std::string s;
  for (unsigned char b : bytes) s.push_back(kAlphabet[b % (sizeof kAlphabet - 1)]);
  return s;
}

// The names of the temporary files not yet published or removed. Fixed slots of owned C
// strings, so that remove_unpublished_temps can read them from a signal handler; a process has
// a few at once (an output, a journal), and one past the slots is simply not kept.
constexpr std::size_t kTempSlots = 64;
std::atomic<char*> g_temps[kTempSlots];

void keep_temp(const std::string& temp) {
  char* name = ::strdup(temp.c_str());
  if (!name) return;
  for (std::atomic<char*>& slot : g_temps) {
    char* empty = nullptr;
    if (slot.compare_exchange_strong(empty, name)) return;
  }
  std::free(name);
}

}  // namespace

void forget_temp(const std::string& temp) {
  for (std::atomic<char*>& slot : g_temps) {
    char* name = slot.load();
    if (name && temp == name && slot.compare_exchange_strong(name, nullptr)) {
      std::free(name);
      return;
    }
  }
}

void remove_temp(const std::string& temp) {
  ::unlink(temp.c_str());
  forget_temp(temp);
}

void remove_unpublished_temps() noexcept {
  for (std::atomic<char*>& slot : g_temps)
    if (const char* name = slot.load()) ::unlink(name);
}

int create_temp_beside(const std::string& target, int& fd, std::string& temp) {
  // A short hidden name in the target's folder (the rename must stay on one file system), so
  // that any name the file system accepts for the target fits (a suffix on a 250-byte name
  // would not). A new file is created 0666 and the umask applies, as for any program's output;
  // a replaced regular file keeps its own mode (fchmod is not masked).
  struct stat st {};
  const bool replacing = ::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const std::size_t slash = target.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp = folder + ".nq." + random_suffix();
    fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
                replacing ? 0600 : 0666);
    if (fd >= 0) {
      keep_temp(temp);
      // Best effort, as before: a file system without modes (FAT) refuses it harmlessly.
      if (replacing) (void)::fchmod(fd, st.st_mode & 07777);
      return 0;
    }
    if (errno != EEXIST) break;
  }
  const int failed = errno;
  fd = -1;
  temp.clear();
  return failed;
}

int publish_temp(int fd, const std::string& temp, const std::string& target) {
  int failure = ::fsync(fd) == 0 ? 0 : errno;
  if (::close(fd) != 0 && !failure) failure = errno;  // a deferred write error (NFS, quota)
  if (!failure && std::rename(temp.c_str(), target.c_str()) != 0) failure = errno;
  if (failure)
    remove_temp(temp);
  else
    forget_temp(temp);
  return failure;
}

namespace {

// The names of the process's own standard streams, which may lead to a regular file that the
// shell holds open (`nqcount ... --output /dev/stdout > out.txt`): renaming onto that file
// would leave the shell's descriptor on the old one, so these are always written through.
bool names_a_standard_stream(const std::string& path) {
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"})
    if (path.rfind(prefix, 0) == 0) return true;
  return path == "/dev/stdout" || path == "/dev/stderr";
}

std::string refused(const std::string& path, const std::string& why) {
  return "'" + path + "' " + why;
}

}  // namespace

Expected<OutputTarget> resolve_output(const std::string& path) {
  if (path.empty()) return Error{"an empty path"};
  if (names_a_standard_stream(path)) return OutputTarget{path, OutputKind::kStream};
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno == ENOENT) return OutputTarget{path, OutputKind::kNew};
    return Error{refused(path, std::string("cannot be examined: ") + std::strerror(errno))};
  }
  std::string target = path;
  if (S_ISLNK(link.st_mode)) {
    char resolved[PATH_MAX];
    if (!::realpath(path.c_str(), resolved))
      return Error{refused(path, std::string("is a symbolic link that cannot be followed: ") +
                                     std::strerror(errno))};
    target = resolved;
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0)
    return Error{refused(path, std::string("cannot be examined: ") + std::strerror(errno))};
  if (S_ISREG(st.st_mode)) return OutputTarget{target, OutputKind::kRegular};
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
    return OutputTarget{target, OutputKind::kStream};
  if (S_ISDIR(st.st_mode)) return Error{refused(path, "is a directory")};
  return Error{refused(path, "is not a regular file, character device or FIFO")};
}

}  // namespace nq
