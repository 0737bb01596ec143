#include "base/types.hpp"

#include <new>
#include <stdexcept>
#include <system_error>

namespace nq {

Error resource_error(std::exception_ptr thrown) {
  const std::string limits =
      " (fewer --threads, a smaller board, or higher limits: ulimit -v, ulimit -u)";
  try {
    std::rethrow_exception(thrown);
  } catch (const std::bad_alloc&) {
    return Error{"out of memory: an allocation failed" + limits};
  } catch (const std::system_error& e) {
    if (e.code() == std::errc::resource_unavailable_try_again)
      return Error{std::string("cannot start a thread: ") + e.code().message() + limits};
    return Error{std::string("system error: ") + e.what()};
  } catch (const std::runtime_error& e) {
    if (std::string_view(e.what()).find("pthread_create") == std::string_view::npos) throw;
    return Error{std::string("cannot start a thread: ") + e.what() + limits};
  }
}

std::string to_string(u128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return s;
}

bool parse_decimal(std::string_view text, std::uint64_t& value, std::uint64_t max) {
  if (text.empty() || (text.size() > 1 && text[0] == '0')) return false;
  std::uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (v > (max - digit) / 10) return false;  // past max (or 2^64)
    v = v * 10 + digit;
  }
  value = v;
  return true;
}

}  // namespace nq
