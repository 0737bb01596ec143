// The --batch file of `nqcount solve`: board sizes, each a whole number (cli/io/numbers.hpp: digits
// only, no sign, no leading zero) in 1..kMaxSolveN, separated by blanks or commas, any number
// per line. Forgiving where nothing is lost: blank lines are skipped, '#' starts a comment that
// runs to the end of its line, a UTF-8 byte-order mark at the start is skipped, and a line may
// end in CRLF (a carriage return is a blank). Every other entry that is not a board size is a
// bad entry: it is reported with its line, and the good entries are solved all the same.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nq::cli {

struct BatchEntryError {
  std::size_t line = 0;  // 1-based
  std::string message;   // "FILE:LINE: 'abc' is not a board size: ..."
};

struct Batch {
  std::vector<long long> sizes;         // the good entries, in the file's order
  std::vector<BatchEntryError> errors;  // the bad ones, in the file's order
};

// Reads the file at `path` into `batch`. False, with `error`, only when the file as a whole is
// unusable: it cannot be read (missing, a directory, a read error) or holds no entry at all.
bool read_batch(const std::string& path, Batch& batch, std::string& error);
// The same on the file's text; `name` is what the messages call it.
bool parse_batch(std::string_view text, const std::string& name, Batch& batch, std::string& error);

}  // namespace nq::cli
