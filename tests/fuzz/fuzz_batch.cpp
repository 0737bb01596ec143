// solve --batch FILE: parse_batch must return board sizes in range and bad entries that name
// their line, or a message, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/io/batch.hpp"
#include "engine/solve/solve.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nq::cli::Batch batch;
  std::string error;
  if (!nq::cli::parse_batch(text, "fuzz", batch, error)) {
    if (error.empty()) __builtin_trap();
    return 0;
  }
  if (batch.sizes.empty() && batch.errors.empty()) __builtin_trap();
  for (const long long n : batch.sizes)
    if (n < 1 || n > nq::kMaxSolveN) __builtin_trap();
  // Each bad entry names the file and its line, in order, the line within the text's.
  std::size_t last = 0;
  for (const auto& e : batch.errors) {
    if (e.line < 1 || e.line < last || e.line > size + 1) __builtin_trap();
    if (e.message.rfind("fuzz:" + std::to_string(e.line) + ": ", 0) != 0) __builtin_trap();
    last = e.line;
  }
  return 0;
}
