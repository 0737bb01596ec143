// Permutations as users type and read them: `--perm 2,4,1,3` (1-based rows) parsed and
// checked, positions in the algebra paper's coordinates (half-integers for gaps), and the text
// and JSON forms the algebra commands print.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algebra/algebra.hpp"
#include "algebra/orbits.hpp"
#include "common/types.hpp"

namespace nq::cli {

// "2,4,1,3" -> {1, 3, 0, 2}: 1-based rows in, 0-based out, checked to be a permutation.
Expected<Perm> parse_perm(const std::string& text);
// `count` comma-separated positions of `flag` (e.g. --inc 0.5,0.5), each doubled: "0.5" -> 1.
Expected<std::vector<int>> parse_positions(const std::string& text, std::size_t count,
                                           const std::string& flag);
// A doubled position back in the paper's coordinates: 1 -> "0.5", 6 -> "3".
std::string paper_position(int doubled);

std::string perm_text(const Perm& p);     // "2,4,1,3"
nlohmann::json perm_json(const Perm& p);  // [2,4,1,3]
// The orbit's symmetry in words, from its rotation stabilizer.
std::string symmetry_name(const OrbitInfo& o);
std::string symmetry_text(const std::string& s);
std::string triples_text(const std::vector<SignatureTriple>& t);
nlohmann::json triples_json(const std::vector<SignatureTriple>& t);

}  // namespace nq::cli
