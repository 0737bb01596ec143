#include "cli/io/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>

#include "base/threads.hpp"

namespace nq::cli {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string seconds_text(double s) {
  char text[400];
  const auto end = std::to_chars(text, text + sizeof text, s, std::chars_format::fixed).ptr;
  if (end - text <= 16) return std::string(text, end);
  // 1e-320 is 323 digits in plain decimals: there the shortest form that reads back exactly.
  return std::string(text, std::to_chars(text, text + sizeof text, s).ptr);
}

nlohmann::json json_count(u128 v) {
  if (v <= std::numeric_limits<std::uint64_t>::max()) return static_cast<std::uint64_t>(v);
  return to_string(v);
}

namespace {

// `text` with the bytes `escape` picks written as \xHH.
std::string escaped(std::string_view text, bool (*escape)(unsigned char)) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (escape(byte)) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string one_line(std::string_view text) {
  return escaped(text, [](unsigned char byte) { return byte < 0x20 || byte == 0x7f; });
}

std::string printable(std::string_view text) {
  return escaped(text, [](unsigned char byte) { return byte < 0x20 || byte >= 0x7f; });
}

void print_error(const std::string& message) {
  std::cerr << "nqcount: error: " << one_line(message) << "\n";
}
void print_warning(const std::string& message) {
  std::cerr << "nqcount: warning: " << one_line(message) << "\n";
}
void TextLines::line(const char* key, const std::string& value) {
  constexpr std::size_t kKeyWidth = 13;
  text_ += key;
  text_.append(kKeyWidth > std::strlen(key) ? kKeyWidth - std::strlen(key) : 1, ' ');
  text_ += value;
  text_ += '\n';
}

void TextLines::seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  line("seconds", buf);
}

void print_note(const std::string& message) {
  std::cerr << "nqcount: note: " << one_line(message) << "\n";
}

void warn_if_oversubscribed(int threads) {
  const int hw = hardware_threads();
  if (threads > hw)
    print_warning("--threads " + std::to_string(threads) + " is more than the " +
                  std::to_string(hw) + " hardware threads; running anyway");
}

std::string matrix_market_header(std::uint64_t rows, std::uint64_t columns, std::uint64_t entries,
                                 const std::string& comment) {
  return "%%MatrixMarket matrix coordinate pattern general\n% " + comment + "\n" +
         std::to_string(rows) + " " + std::to_string(columns) + " " + std::to_string(entries) +
         "\n";
}

}  // namespace nq::cli
