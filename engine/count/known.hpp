// The known values of Q(n) and unique(n), n = 1..27, from the project's own copy of the
// reference table (engine/count/queens.csv, compiled in). They are for checking, never for
// answering.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace nq {

struct KnownValue {
  int n;
  std::uint64_t total;
  std::uint64_t unique;
};

std::span<const KnownValue> known_values();
std::optional<KnownValue> known_value(int n);

}  // namespace nq
