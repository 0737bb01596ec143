// `nqcount list`: every solution (or every orbit's canonical representative), streamed in
// lexicographic order straight from the bitboard enumeration (kernels/enumerate.hpp).
#include <cstdint>

#include "algebra/algebra.hpp"
#include "cli/commands.hpp"
#include "cli/io/stdout_stream.hpp"
#include "cli/output.hpp"
#include "kernels/enumerate.hpp"

namespace nq::cli {

int run_list(const ListArgs& args) {
  const int n = args.n;
  const bool board = args.format == "board";
  const std::uint64_t limit = args.limit > 0 ? static_cast<std::uint64_t>(args.limit) : 0;
  std::uint64_t printed = 0;
  StdoutStream out;
  std::string row_text;  // one board row, rebuilt per queen: ". . Q ."
  for_each_solution(n, [&](const int* rows) {
    if (args.unique && !is_canonical(rows, n)) return true;
    if (board) {
      // Row 1 first; the queen of column i stands in row rows[i].
      for (int r = 0; r < n; ++r) {
        row_text.assign(static_cast<std::size_t>(2 * n - 1), ' ');
        for (int c = 0; c < n; ++c) row_text[2 * c] = rows[c] == r ? 'Q' : '.';
        out.put(row_text);
        out.put('\n');
      }
      out.put('\n');
    } else {
      for (int c = 0; c < n; ++c) {
        if (c > 0) out.put(',');
        out.put_int(rows[c] + 1);
      }
      out.put('\n');
    }
    ++printed;
    return !out.failed() && (limit == 0 || printed < limit);
  });
  out.flush();
  if (out.failed() && !out.closed()) {
    print_error("cannot write the output: " + out.error_text());
    return 1;
  }
  return 0;
}

}  // namespace nq::cli
