// solve --batch FILE: parse_batch must return board sizes in range or a message, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/batch.hpp"
#include "solve/solve.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<long long> sizes;
  std::string error;
  if (!nq::cli::parse_batch(text, "fuzz", sizes, error)) {
    if (error.empty()) __builtin_trap();
    return 0;
  }
  if (sizes.empty()) __builtin_trap();
  for (const long long n : sizes)
    if (n < 1 || n > nq::kMaxSolveN) __builtin_trap();
  return 0;
}
