// Permutations as users type and read them: `--perm 2,4,1,3` (1-based rows) parsed and
// checked, positions in the algebra paper's coordinates (half-integers for gaps), and the text
// and JSON forms the algebra commands print.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/types.hpp"
#include "engine/algebra/algebra.hpp"
#include "engine/algebra/orbits.hpp"

namespace nq::cli {

// "2,4,1,3", "2 4 1 3", "(2, 4, 1, 3)" or "[2,4,1,3]" -> {1, 3, 0, 2}: 1-based rows in, 0-based
// out, checked to be a permutation. The entries are separated by commas (blanks around them
// dropped) or, without a comma, by blanks; one pair of parentheses or brackets may enclose them.
// Each is a whole number (cli/io/numbers.hpp).
Expected<Perm> parse_perm(const std::string& text);
// The --perm argument of orbit and edit: parsed, or nothing once the error is printed (the
// command then exits 2).
std::optional<Perm> perm_argument(const std::string& text);
// `count` positions of `flag` (e.g. --inc 0.5,0.5), written in every notation parse_perm takes
// ("0.5 0.5", "(0.5, 0.5)", "[0.5,0.5]"), each a whole number or a half-integer ("1.5"; "0.5"
// may be written ".5"), doubled: "0.5" -> 1, "3" -> 6.
Expected<std::vector<int>> parse_positions(const std::string& text, std::size_t count,
                                           const std::string& flag);
// A doubled position back in the paper's coordinates: 1 -> "0.5", 6 -> "3".
std::string paper_position(int doubled);

// The two solution formats every command writes (list, solve):
//   perm:  the 1-based rows of columns 1..n on one line, separated by one space: "2 4 1 3";
//   board: n lines of n characters, '.' or 'Q', row 1 first (the queen of column i stands in
//          row p_i), and a blank line between two boards.
// `rows` are 0-based; append_perm writes no newline, append_board ends every row with one.
// The board format draws at most this n (solve and blnq refuse larger boards).
inline constexpr long long kBoardMaxN = 200;
template <typename Row>
void append_perm(std::string& out, const Row* rows, std::size_t n, char separator) {
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += separator;
    out += std::to_string(static_cast<unsigned long long>(rows[i]) + 1);
  }
}
template <typename Row>
void append_board(std::string& out, const Row* rows, std::size_t n) {
  std::vector<std::size_t> column_of_row(n);
  for (std::size_t i = 0; i < n; ++i) column_of_row[static_cast<std::size_t>(rows[i])] = i;
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t at = out.size();
    out.append(n, '.');
    out[at + column_of_row[r]] = 'Q';
    out += '\n';
  }
}

std::string perm_text(const Perm& p, char separator = ',');  // "2,4,1,3"
nlohmann::json perm_json(const Perm& p);                     // [2,4,1,3]
// The orbit's symmetry in words, from its rotation stabilizer.
std::string symmetry_name(const OrbitInfo& o);
std::string symmetry_text(const std::string& s);
std::string triples_text(const std::vector<SignatureTriple>& t);
nlohmann::json triples_json(const std::vector<SignatureTriple>& t);

}  // namespace nq::cli
