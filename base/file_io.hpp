// Writing files safely: every output path of nqcount (solutions, task stats, checkpoints) goes
// through resolve_output, so one rule decides what may be replaced.
//
// The rule:
//   - a regular file, or a path that does not exist yet: written to a temporary file beside it
//     and renamed onto it when complete (an interrupted run leaves the old file, or nothing);
//   - a symbolic link: followed to its target, to which the same rule applies; the link itself
//     stays (the rename goes onto the target, never onto the link). A link to nothing is refused;
//   - a character device, FIFO or socket (/dev/null, a terminal, a pipe), and /dev/stdout,
//     /dev/stderr, /dev/fd/N, /proc/self/fd/N: written straight through, never renamed over,
//     so a device file is never replaced by a regular one;
//   - anything else (a directory, a block device): refused.
#pragma once

#include <cstddef>
#include <string>

#include "base/types.hpp"

namespace nq {

// Writes all `size` bytes to `fd`, retrying after EINTR and short writes. False on an error,
// with errno saying which (ENOSPC, EPIPE, ...); `written`, where given, says how many bytes went
// out before it.
bool write_all(int fd, const void* data, std::size_t size, std::size_t* written = nullptr);

enum class OutputKind : unsigned char {
  kNew,      // nothing there yet: create it (atomically)
  kRegular,  // a regular file: replace it atomically
  kStream,   // a device, FIFO, socket or standard stream: write straight through
};

struct OutputTarget {
  std::string path;  // what to open or rename onto: a symbolic link's target, else the path
  OutputKind kind = OutputKind::kNew;
};

// The atomic half of the rule, for a regular or new target: a temporary file beside it (a short
// hidden name, .nq.XXXXXX in the target's folder, so that a target name of up to the file
// system's limit still works), with the target's own mode when it is a regular file, else 0666
// less the umask; and its publication: fsync, close, rename onto the target. Both return 0 or the
// errno of the first failure; publish_temp closes `fd` and removes the temporary file whatever
// happens. The temporary file is open for reading and writing (a new journal is read back).
// Until it is published or removed, the process keeps each temporary file's name
// (remove_unpublished_temps).
int create_temp_beside(const std::string& target, int& fd, std::string& temp);
int publish_temp(int fd, const std::string& temp, const std::string& target);
// A temporary file of create_temp_beside given up (removed), or given a name of its caller's
// (renamed: forgotten only).
void remove_temp(const std::string& temp);
void forget_temp(const std::string& temp);
// Removes every temporary file of this process not yet published or removed: for a program
// that ends without unwinding (std::terminate, a second signal), so that no temporary file
// outlives it. Async-signal-safe.
void remove_unpublished_temps() noexcept;

// Where writing `path` leads, by the rule above; an Error (naming `path`) if it is refused.
Expected<OutputTarget> resolve_output(const std::string& path);

}  // namespace nq
