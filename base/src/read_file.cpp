#include "base/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nq {

Expected<std::string> read_text_file(const std::string& path, const std::string& what) {
  auto refused = [&](const std::string& reason) {
    return Error{"cannot read " + what + " '" + path + "': " + reason};
  };
  // What the path is, first: a directory opens as a stream that reads nothing, and a socket
  // fails with ENXIO, "No such device or address", which names neither.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return refused(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return refused("it is a directory");
  if (S_ISSOCK(st.st_mode)) return refused("it is a socket, not a file");
  // read(2) itself, not a stream: a stream's read error ends the text early and says nothing
  // (a file that fails with EIO read as empty).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return refused(std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int failed = errno;
      ::close(fd);
      return refused(std::strerror(failed));
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

}  // namespace nq
