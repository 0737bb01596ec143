// The split-board join kernel, written once; each ISA's file includes it inside its own
// namespace and target region (the simdjson pattern, as search.hpp).
//
// Backtracking grows about 7x per row; this kernel meets in the middle instead. The free
// columns of a subproblem are cut into a west and an east block. In a solution each open row
// holds its queen in one of the two blocks, so a solution is a pair of half-board placements:
// an east one (rows E, one queen per east column, no two attacking) and a west one on exactly
// the other rows. Columns and rows are then settled by construction; the only thing left to
// check between the halves is the diagonals, and only those that cross the cut can be shared:
// an east queen's anti-diagonal (row + column) is at least m, the first east column, and a
// west queen's is at most R - 1 + (m' the last west column), so only L = R - (m - m') of them
// can meet, and the same for the other direction. A half-board is therefore kept as
// (E, a 2L-bit pattern), and the count is
//     sum over E of #{(east a, west b) with rows(a) = E, rows(b) = ~E, a & b = 0}.
// How the two sides are enumerated depends on the subproblem. When it settles every row's half
// (the row-split plan: one E per subproblem, engine/count/plan.hpp), each half is enumerated by
// meeting in the middle again (join_settled_half: top part x bottom part, joined by columns).
// Otherwise (a front-end prefix, a random board) a depth-first walk over the rows, in which
// each row takes a queen of this half or leaves it to the other, enumerates a half for every E
// at once, and the leaves are bucketed by E with a counting sort on its colex rank.
//
// The pairs are counted with bit slices (count_disjoint): for the smaller side, slice j is the
// bit set of its members that leave diagonal j free; a member b of the other side meets
// AND_{j in b} slice_j, whose popcount is its number of partners: 512 pairs per vector AND,
// 7 diagonals per AND through subset tables, and a sieve on shared diagonals for large sides.
// The idea of east/west halves matched by bit slices is the one of E. Kluev's public counter;
// this code is our own.
//
// The cost moves from search nodes (~7^R) to half-board placements plus pair tests done 512
// at a time, which is why this kernel only pays off for many open rows (kJoinFromN in
// kernels.hpp, and the README's measurements).
//
// The concepts, one header each, in the order they build on each other (kernels/src/join/):
//   board.hpp          the board, leaves, colex ranks, PEXT, counting sort
//   half.hpp           the unsettled half: one walk for every row set
//   parts.hpp          a settled half's parts and their walks
//   settled_half.hpp   the settled half, streamed in chunks
//   transpose.hpp      lane words, popcounts, 64 x 64 bit transposes
//   chunk_table.hpp    the chunk tables and their matches
//   pair_counter.hpp   count_disjoint_sliced, the bit-slice pair counter
//   sieve.hpp          the sieve's sort, occupancies and cuts
//   count_disjoint.hpp count_disjoint, in named steps
//   scratch.hpp        the per-thread scratch
//   driver.hpp         count_join
//   sampling.hpp       sample_join
// Each header includes the one before it in this list, so the includes below may come in any
// order. Each is per-ISA: included here, at file scope, by a .cpp that defines
// NQ_KERNEL_NAMESPACE (and NQ_JOIN_AVX2 or NQ_JOIN_AVX512 for those builds) and sets its target
// region; the code goes into nq::NQ_KERNEL_NAMESPACE, internals into its join_detail. ops.hpp,
// the build's table of operations, comes after them all, included by the builds' own sources
// only.
#pragma once

#include "kernels/src/join/board.hpp"
#include "kernels/src/join/chunk_table.hpp"
#include "kernels/src/join/count_disjoint.hpp"
#include "kernels/src/join/driver.hpp"
#include "kernels/src/join/half.hpp"
#include "kernels/src/join/pair_counter.hpp"
#include "kernels/src/join/parts.hpp"
#include "kernels/src/join/sampling.hpp"
#include "kernels/src/join/scratch.hpp"
#include "kernels/src/join/settled_half.hpp"
#include "kernels/src/join/sieve.hpp"
#include "kernels/src/join/transpose.hpp"
