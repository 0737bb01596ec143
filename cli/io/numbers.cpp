#include "cli/io/numbers.hpp"

#include "base/types.hpp"

namespace nq::cli {

WholeNumber read_whole(std::string_view text, std::uint64_t& value, std::uint64_t max) {
  if (parse_decimal(text, value, max)) return WholeNumber::ok;
  const bool form = !text.empty() && text.find_first_not_of("0123456789") == text.npos &&
                    (text.size() == 1 || text[0] != '0');
  return form ? WholeNumber::out_of_range : WholeNumber::not_decimal;
}

}  // namespace nq::cli
