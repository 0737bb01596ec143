// Small helpers for what the commands print.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "common/types.hpp"

namespace nq::cli {

// A count as a JSON number while it fits in 64 bits, else as a decimal string.
nlohmann::json json_count(u128 v);

// The header of a MatrixMarket coordinate pattern matrix: the banner, one comment line, and
// "rows columns entries". Every matrix nqcount writes (Q-matrices, LDPC parity checks) uses it.
std::string matrix_market_header(std::uint64_t rows, std::uint64_t columns, std::uint64_t entries,
                                 const std::string& comment);

// One line on stderr: "nqcount: error: <message>".
void print_error(const std::string& message);
void print_warning(const std::string& message);

}  // namespace nq::cli
