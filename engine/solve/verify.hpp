// The O(n) check that every solution the solver returns passes before anyone sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace nq {

// True when rows[0..n) is an n-queens solution: a permutation of 0..n-1 (0-based rows) with
// no two queens on one diagonal. `modular`: the diagonals wrap around (toroidal board), which
// is what makes every cyclic column shift a solution too. Otherwise `problem` (if given) says
// what is wrong, in 1-based terms. One O(n) pass over three bitsets; from n = 2^21 on the
// columns are split into parts checked in parallel (in the caller's TBB arena: up to 4 parts,
// 5 bits of memory per column each), and a rejected solution is checked again serially to
// name its first clash.
bool verify_solution(const std::uint32_t* rows, std::size_t n, bool modular = false,
                     std::string* problem = nullptr);

}  // namespace nq
