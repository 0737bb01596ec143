#include "common/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

int create_temp_beside(const std::string& target, int& fd, std::string& temp) {
  mode_t mode = 0644;  // a new file gets the usual mode; a replaced one keeps its own
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) mode = st.st_mode & 07777;
  temp = target + ".tmp.XXXXXX";
  fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    temp.clear();
    return errno;
  }
  ::fchmod(fd, mode);
  return 0;
}

int publish_temp(int fd, const std::string& temp, const std::string& target) {
  int failure = ::fsync(fd) == 0 ? 0 : errno;
  if (::close(fd) != 0 && !failure) failure = errno;  // a deferred write error (NFS, quota)
  if (!failure && std::rename(temp.c_str(), target.c_str()) != 0) failure = errno;
  if (failure) ::unlink(temp.c_str());
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
