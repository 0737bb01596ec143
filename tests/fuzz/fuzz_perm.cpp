// --perm text (orbit, edit): parse_perm must return a permutation or an Error, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/io/perm_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto p = nq::cli::parse_perm(text);
  if (!p.ok()) return 0;
  // What it accepts is a permutation of 0..n-1, and prints back as the same text form.
  std::vector<bool> seen(p->size(), false);
  for (const auto v : *p) {
    if (v < 0 || static_cast<std::size_t>(v) >= p->size() || seen[static_cast<std::size_t>(v)])
      __builtin_trap();
    seen[static_cast<std::size_t>(v)] = true;
  }
  const auto again = nq::cli::parse_perm(nq::cli::perm_text(*p));
  if (!again.ok() || *again != *p) __builtin_trap();
  return 0;
}
