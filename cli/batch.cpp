#include "cli/batch.hpp"

#include "common/read_file.hpp"
#include "solve/solve.hpp"

namespace nq::cli {

bool read_batch(const std::string& path, std::vector<long long>& sizes, std::string& error) {
  const Expected<std::string> text = read_text_file(path, "--batch");
  if (!text.ok()) {
    error = text.error().message;
    return false;
  }
  return parse_batch(*text, path, sizes, error);
}

bool parse_batch(std::string_view text, const std::string& name, std::vector<long long>& sizes,
                 std::string& error) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";  // UTF-8's byte-order mark
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  constexpr std::string_view kBlanks = " \t\r,";
  std::size_t at = 0;
  for (long long number = 1; at < text.size(); ++number) {
    const std::size_t eol = text.find('\n', at);
    std::string_view line =
        text.substr(at, eol == std::string_view::npos ? std::string_view::npos : eol - at);
    at = eol == std::string_view::npos ? text.size() : eol + 1;
    line = line.substr(0, line.find('#'));
    for (std::size_t from = line.find_first_not_of(kBlanks); from != std::string_view::npos;
         from = line.find_first_not_of(kBlanks, from)) {
      const std::string_view word = line.substr(from, line.find_first_of(kBlanks, from) - from);
      from += word.size();
      // Decimal digits only: no sign, no base prefix, no leading zero.
      long long n = 0;
      bool ok = word.size() <= 10 && (word.size() == 1 || word[0] != '0');
      for (const char c : word) {
        if (!ok) break;
        ok = c >= '0' && c <= '9';
        n = n * 10 + (c - '0');
      }
      if (!ok || n < 1 || n > kMaxSolveN) {
        error = name + ":" + std::to_string(number) + ": '" +
                std::string(word.size() <= 40 ? word : word.substr(0, 37)) +
                (word.size() <= 40 ? "" : "...") +
                "' is not a board size; expected integers in 1.." + std::to_string(kMaxSolveN) +
                ", separated by spaces or commas";
        return false;
      }
      sizes.push_back(n);
    }
  }
  if (sizes.empty()) {
    error = "--batch '" + name + "' holds no board size";
    return false;
  }
  return true;
}

}  // namespace nq::cli
