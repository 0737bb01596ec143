#include "common/read_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return refused(errno != 0 ? std::strerror(errno) : "it cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return refused(errno != 0 ? std::strerror(errno) : "a read failed");
  return text.str();
}

}  // namespace nq
