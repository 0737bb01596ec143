// Small helpers for what the commands print.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "base/types.hpp"

namespace nq::cli {

// `v` with `digits` digits after the point ("%.*f").
std::string fixed(double v, int digits);
// Seconds as the user typed them, as short as reads back exactly: in plain decimals
// (1000000000.5, not 1e+09) up to 16 characters, else in the shortest form (1e-320, not 323
// digits).
std::string seconds_text(double s);

// A count as a JSON number while it fits in 64 bits, else as a decimal string.
nlohmann::json json_count(u128 v);

// The header of a MatrixMarket coordinate pattern matrix: the banner, one comment line, and
// "rows columns entries". Every matrix nqcount writes (Q-matrices, LDPC parity checks) uses it.
std::string matrix_market_header(std::uint64_t rows, std::uint64_t columns, std::uint64_t entries,
                                 const std::string& comment);

// `text` safe to print as one line: every control byte (below 0x20, and 0x7f: a newline, an
// escape sequence, a vertical tab that user input may carry) written as \xHH.
std::string one_line(std::string_view text);

// `text` with every byte outside printable ASCII written as \xHH, for echoing a word the user
// gave where an invisible character (a byte-order mark, a non-breaking space) would otherwise
// make the quote look right: '\xef\xbb\xbf5', not '5'.
std::string printable(std::string_view text);

// One line on stderr: "nqcount: error: <message>", the message through one_line.
void print_error(const std::string& message);
void print_warning(const std::string& message);
void print_note(const std::string& message);

// A result as text: one "key  value" line each, the values aligned in one column.
class TextLines {
 public:
  void line(const char* key, const std::string& value);
  void seconds(double s);  // "seconds", to the millisecond
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// The warning of every command that takes --threads, when it asks for more than the hardware.
void warn_if_oversubscribed(int threads);

}  // namespace nq::cli
