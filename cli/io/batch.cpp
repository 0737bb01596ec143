#include "cli/io/batch.hpp"

#include <cstdint>

#include "base/read_file.hpp"
#include "cli/io/numbers.hpp"
#include "cli/io/output.hpp"
#include "engine/solve/solve.hpp"

namespace nq::cli {

bool read_batch(const std::string& path, Batch& batch, std::string& error) {
  const Expected<std::string> text = read_text_file(path, "--batch");
  if (!text.ok()) {
    error = text.error().message;
    return false;
  }
  return parse_batch(*text, path, batch, error);
}

bool parse_batch(std::string_view text, const std::string& name, Batch& batch, std::string& error) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";  // UTF-8's byte-order mark
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  constexpr std::string_view kBlanks = " \t\r,";
  std::size_t at = 0;
  for (std::size_t number = 1; at < text.size(); ++number) {
    const std::size_t eol = text.find('\n', at);
    std::string_view line =
        text.substr(at, eol == std::string_view::npos ? std::string_view::npos : eol - at);
    at = eol == std::string_view::npos ? text.size() : eol + 1;
    line = line.substr(0, line.find('#'));
    for (std::size_t from = line.find_first_not_of(kBlanks); from != std::string_view::npos;
         from = line.find_first_not_of(kBlanks, from)) {
      const std::string_view word = line.substr(from, line.find_first_of(kBlanks, from) - from);
      from += word.size();
      std::uint64_t n = 0;
      const WholeNumber read = read_whole(word, n, static_cast<std::uint64_t>(kMaxSolveN));
      if (read == WholeNumber::ok && n >= 1) {
        batch.sizes.push_back(static_cast<long long>(n));
        continue;
      }
      const std::string range = "board sizes are 1.." + std::to_string(kMaxSolveN);
      batch.errors.push_back(
          {number, name + ":" + std::to_string(number) + ": '" +
                       printable(word.size() <= 40 ? word : word.substr(0, 37)) +
                       (word.size() <= 40 ? "" : "...") + "' is not a board size: " +
                       (read == WholeNumber::not_decimal
                            ? std::string("not a whole decimal number (") + kWholeNumberRule + ")"
                            : "out of range; " + range)});
    }
  }
  if (batch.sizes.empty() && batch.errors.empty()) {
    error = "--batch '" + name + "' holds no board size";
    return false;
  }
  return true;
}

}  // namespace nq::cli
