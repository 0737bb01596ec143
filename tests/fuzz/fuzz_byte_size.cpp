// --memory-limit SIZE: parse_byte_size returns a size of at least one byte, or nothing.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/count/memory.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto bytes = nq::parse_byte_size(text);
  if (bytes && *bytes == 0) __builtin_trap();
  // Plain digits that parse are read exactly.
  if (bytes && !text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
      text.size() < 19 && std::to_string(*bytes) != text.substr(text.find_first_not_of('0')))
    __builtin_trap();
  return 0;
}
