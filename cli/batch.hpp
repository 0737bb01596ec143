// The --batch file of `nqcount solve`: board sizes in decimal, separated by blanks or commas, any
// number per line; blank lines and # comments allowed, a UTF-8 byte-order mark at the start
// skipped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nq::cli {

// Reads the file at `path` into `sizes`; false with a message naming the line otherwise.
bool read_batch(const std::string& path, std::vector<long long>& sizes, std::string& error);
// The same on the file's text; `name` is what the messages call it.
bool parse_batch(std::string_view text, const std::string& name, std::vector<long long>& sizes,
                 std::string& error);

}  // namespace nq::cli
