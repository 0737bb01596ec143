#include "cli/io/perm_text.hpp"

#include <string>
#include <utility>
#include <vector>

#include "base/types.hpp"
#include "cli/io/numbers.hpp"
#include "cli/io/output.hpp"

namespace nq::cli {
namespace {

// How a list may be written (split_entries), for the messages that refuse one.
constexpr const char* kListNotations =
    "separated by commas or blanks, optionally in parentheses or brackets";

// The user's text, shortened for an error line.
std::string quoted(const std::string& s) {
  return "'" + (s.size() <= 40 ? s : s.substr(0, 37) + "...") + "'";
}

bool is_blank(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

std::string trimmed(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_blank(s[b])) ++b;
  while (e > b && is_blank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// The entries of a list as typed, a permutation's or an operator's positions alike: "2,4,1,3",
// "2 4 1 3", the paper's "(2, 4, 1, 3)" or the JSON array the commands print, "[2,4,1,3]".
// With a comma anywhere, the commas separate (blanks around an entry are dropped, so "2, 4"
// works and "2,,4" has an empty entry); without one, runs of blanks do.
std::vector<std::string> split_entries(const std::string& text) {
  std::string s = trimmed(text);
  if (s.size() >= 2 &&
      ((s.front() == '(' && s.back() == ')') || (s.front() == '[' && s.back() == ']')))
    s = trimmed(s.substr(1, s.size() - 2));
  std::vector<std::string> parts;
  if (s.find(',') != std::string::npos) {
    std::string part;
    for (char ch : s) {
      if (ch == ',') {
        parts.push_back(trimmed(part));
        part.clear();
      } else {
        part.push_back(ch);
      }
    }
    parts.push_back(trimmed(part));
    return parts;
  }
  std::string part;
  for (char ch : s) {
    if (!is_blank(ch)) {
      part.push_back(ch);
    } else if (!part.empty()) {
      parts.push_back(part);
      part.clear();
    }
  }
  if (!part.empty() || parts.empty()) parts.push_back(part);
  return parts;
}

// A whole number of at most 9 digits (an int), in read_whole's form.
WholeNumber whole(const std::string& s, int& value) {
  std::uint64_t v = 0;
  const WholeNumber read = read_whole(s, v, 999999999);
  if (read == WholeNumber::ok) value = static_cast<int>(v);
  return read;
}

}  // namespace
// "2,4,1,3" -> {1, 3, 0, 2}: 1-based rows in, 0-based out, checked to be a permutation.
Expected<Perm> parse_perm(const std::string& text) {
  const std::string what = "--perm " + quoted(text);
  const std::vector<std::string> parts = split_entries(text);
  if (parts.size() > static_cast<std::size_t>(kMaxPermN))
    return Error{what + ": more than " + std::to_string(kMaxPermN) + " entries"};
  const int n = static_cast<int>(parts.size());
  Perm p(parts.size());
  std::vector<char> seen(parts.size(), 0);
  for (int i = 0; i < n; ++i) {
    int v = 0;
    const WholeNumber read = whole(parts[i], v);
    if (read == WholeNumber::out_of_range)  // too many digits for an int
      return Error{what + ": " + quoted(parts[i]) + " is out of range; the rows are 1.." +
                   std::to_string(n)};
    if (read != WholeNumber::ok)
      return Error{what + ": entry " + std::to_string(i + 1) + " " + quoted(parts[i]) +
                   " is not a whole number (" + kWholeNumberRule + "); expected the rows 1.." +
                   std::to_string(n) + " " + kListNotations +
                   ", e.g. 2,4,1,3 or '2 4 1 3' or '(2, 4, 1, 3)' or [2,4,1,3]"};
    if (v < 1 || v > n)
      return Error{what + ": " + std::to_string(v) + " is out of range; a permutation of " +
                   std::to_string(n) + " entries uses the rows 1.." + std::to_string(n)};
    if (seen[v - 1])
      return Error{what + ": " + std::to_string(v) +
                   " appears twice; a permutation lists each row once"};
    seen[v - 1] = 1;
    p[i] = v - 1;
  }
  return p;
}

// "0.5" (or ".5") -> 1, "3" -> 6: a position in the paper's coordinates, doubled.
Expected<int> parse_position(const std::string& token, const std::string& what) {
  const std::size_t dot = token.find('.');
  const std::string whole_part = token.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : token.substr(dot + 1);
  int value = 0;
  const bool half = dot != std::string::npos && frac == "5";
  const bool ok = (half && whole_part.empty()) ||  // ".5": 0.5
                  (whole_part.size() <= 8 && whole(whole_part, value) == WholeNumber::ok &&
                   (dot == std::string::npos || half));
  if (!ok)
    return Error{what + ": " + quoted(token) +
                 " is not a position; expected a whole number (a queen's row or column; " +
                 kWholeNumberRule + ") or a half-integer (a gap: 0.5 or .5, 1.5, ...)"};
  return 2 * value + (half ? 1 : 0);
}

Expected<std::vector<int>> parse_positions(const std::string& text, std::size_t count,
                                           const std::string& flag) {
  const std::string what = flag + " " + quoted(text);
  const std::vector<std::string> parts = split_entries(text);
  if (parts.size() != count)
    return Error{what + ": expected " + std::to_string(count) + " positions (" +
                 (count == 2 ? "R,C" : "R,C,R2,C2") + ") " + kListNotations +
                 (count == 2 ? ", e.g. 0.5,0.5 or '0.5 0.5' or '(0.5, 0.5)'"
                             : ", e.g. 4,2,0.5,0.5 or '4 2 .5 .5' or '(4, 2, 0.5, 0.5)'")};
  std::vector<int> out;
  for (const std::string& s : parts) {
    auto v = parse_position(s, what);
    if (!v) return v.error();
    out.push_back(*v);
  }
  return out;
}

std::optional<Perm> perm_argument(const std::string& text) {
  auto parsed = parse_perm(text);
  if (parsed) return std::move(parsed.value());
  print_error(parsed.error().message);
  return std::nullopt;
}

std::string perm_text(const Perm& p, char separator) {
  std::string s;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (i > 0) s += separator;
    s += std::to_string(p[i] + 1);
  }
  return s;
}

nlohmann::json perm_json(const Perm& p) {
  nlohmann::json a = nlohmann::json::array();
  for (int v : p) a.push_back(v + 1);
  return a;
}

std::string paper_position(int doubled) {
  return std::to_string(doubled / 2) + (doubled % 2 ? ".5" : "");
}

// The solution's symmetry, from its stabilizer. For a solution (n > 1) it is a group of
// rotations: {po1}, {po1, po7} or {po1, po6, po7, po8}. Bits: po1 = 0x01, po6 = 0x20,
// po7 = 0x40, po8 = 0x80.
std::string symmetry_name(const OrbitInfo& o) {
  const unsigned stab = o.stabilizer;
  if (stab == 0x01) return "none";
  if (stab == 0xff) return "all";  // n = 1
  if (stab == 0xe1) return "90";
  if (stab == 0x41) return "180";
  return "reflection";  // only a permutation that is not a solution
}

std::string symmetry_text(const std::string& s) {
  if (s == "none") return "none (trivial stabilizer)";
  if (s == "90") return "90° (invariant under the rotation by 90°, hence 180°)";
  if (s == "180") return "180° (invariant under the rotation by 180° only)";
  if (s == "all") return "every operation fixes it";
  return "a reflection fixes it";
}

std::string triples_text(const std::vector<SignatureTriple>& t) {
  if (t.empty()) return "(none: fewer than three queens)";
  std::string s;
  for (const SignatureTriple& x : t) {
    if (!s.empty()) s += ' ';
    s += '(';
    s += std::to_string(x.ab2);
    s += ',';
    s += std::to_string(x.area);
    s += ',';
    s += std::to_string(x.bc2);
    s += ')';
  }
  return s;
}

nlohmann::json triples_json(const std::vector<SignatureTriple>& t) {
  nlohmann::json a = nlohmann::json::array();
  for (const SignatureTriple& x : t) a.push_back({x.ab2, x.area, x.bc2});
  return a;
}

}  // namespace nq::cli
