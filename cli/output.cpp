#include "cli/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>

namespace nq::cli {

nlohmann::json json_count(u128 v) {
  if (v <= std::numeric_limits<std::uint64_t>::max()) return static_cast<std::uint64_t>(v);
  return to_string(v);
}

void print_error(const std::string& message) {
  std::cerr << "nqcount: error: " << message << "\n";
}
void print_warning(const std::string& message) {
  std::cerr << "nqcount: warning: " << message << "\n";
}

std::string matrix_market_header(std::uint64_t rows, std::uint64_t columns, std::uint64_t entries,
                                 const std::string& comment) {
  return "%%MatrixMarket matrix coordinate pattern general\n% " + comment + "\n" +
         std::to_string(rows) + " " + std::to_string(columns) + " " + std::to_string(entries) +
         "\n";
}

}  // namespace nq::cli
