// Reading a whole input file (simulate's --task-stats file, solve's --batch), with a reason a
// person can act on when it cannot be read: the system's own (No such file or directory,
// Permission denied), or what the path is instead of a file (a directory, a socket).
#pragma once

#include <string>

#include "base/types.hpp"

namespace nq {

// The text of the file at `path`, or an Error "cannot read WHAT 'PATH': REASON".
Expected<std::string> read_text_file(const std::string& path, const std::string& what);

}  // namespace nq
