// Whole numbers as the command line reads them: in options (--n 8), in the --batch file and in
// permutations and positions (--perm, --inc) alike, one rule, parse_decimal's: decimal digits,
// no sign, no base prefix, no leading zero (a lone 0 is fine). "010" is refused everywhere
// rather than read as 10 here and as octal 8 elsewhere.
#pragma once

#include <cstdint>
#include <string_view>

namespace nq::cli {

enum class WholeNumber {
  ok,
  not_decimal,   // not in the rule's form: "abc", "-5", "010", "+5", "2.0", ""
  out_of_range,  // in the form, but above `max` (or 2^64)
};
// Reads `text` into `value` (set only when ok).
WholeNumber read_whole(std::string_view text, std::uint64_t& value, std::uint64_t max);
// The rule in words, for the messages that refuse a number.
inline constexpr const char* kWholeNumberRule = "digits only, no sign, no leading zero";

}  // namespace nq::cli
