// An independent count: the dynamic programme of Rivin & Zabih ("A dynamic programming
// solution to the n-queens problem", Inf. Proc. Letters 41, 1992), used to cross-check the
// search engine. It shares no code with the kernels.
#pragma once

#include <cstdint>

#include "base/types.hpp"

namespace nq {

// The largest n the programme accepts. Its memory grows about 6-fold per n (Rivin & Zabih bound
// it by about 8^n): n = 14 peaks at 5.5 million states, n = 15 at 32 million (1.5 GB, some tens
// of seconds); n = 16 would need several times that.
inline constexpr int kMaxDpN = 15;

struct DpResult {
  int n = 0;
  std::uint64_t total = 0;
  std::uint64_t peak_states = 0;  // the most distinct closed-line sets held at once
  std::uint64_t merges = 0;       // partial configurations merged into an existing state
  int threads = 1;                // threads the programme ran on
  double seconds = 0;
};

// Q(n) by placing the queens row by row and merging every partial configuration with the same
// set of closed lines: the columns taken, and the two kinds of diagonals taken among those that
// still cross the rows to come. Configurations with equal sets have equal numbers of
// completions, so only a count per set is kept.
//
// Each row's states are split across the tasks of a TBB arena of `threads` threads (0: every
// hardware thread), which expand them into the next row's, dealt to buckets by a hash of the
// set; each bucket is sorted and merged on its own. Every
// result (total, peak states, merges) is the same at any thread count: the states kept are the
// distinct closed-line sets, whatever the cut.
Expected<DpResult> count_by_closed_lines(int n, int threads = 1);

}  // namespace nq
