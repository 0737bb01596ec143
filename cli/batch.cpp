#include "cli/batch.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "solve/solve.hpp"

namespace nq::cli {

bool read_batch(const std::string& path, std::vector<long long>& sizes, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read --batch '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    error = "cannot read --batch '" + path + "'";
    return false;
  }
  return parse_batch(text.str(), path, sizes, error);
}

bool parse_batch(std::string_view text, const std::string& name, std::vector<long long>& sizes,
                 std::string& error) {
  std::size_t at = 0;
  for (long long number = 1; at < text.size(); ++number) {
    const std::size_t eol = text.find('\n', at);
    std::string_view line =
        text.substr(at, eol == std::string_view::npos ? std::string_view::npos : eol - at);
    at = eol == std::string_view::npos ? text.size() : eol + 1;
    line = line.substr(0, line.find('#'));
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    // Decimal digits only: no sign, no base prefix, no leading zero.
    long long n = 0;
    bool ok = line.size() <= 10 && (line.size() == 1 || line[0] != '0');
    for (const char c : line) {
      if (!ok) break;
      ok = c >= '0' && c <= '9';
      n = n * 10 + (c - '0');
    }
    if (!ok || n < 1 || n > kMaxSolveN) {
      error = name + ":" + std::to_string(number) + ": '" + std::string(line) +
              "' is not a board size; expected one integer in 1.." + std::to_string(kMaxSolveN) +
              " per line";
      return false;
    }
    sizes.push_back(n);
  }
  if (sizes.empty()) {
    error = "--batch '" + name + "' holds no board size";
    return false;
  }
  return true;
}

}  // namespace nq::cli
