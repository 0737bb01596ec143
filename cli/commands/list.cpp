// `nqcount list`: every solution (or every orbit's canonical representative), streamed in
// lexicographic order straight from the bitboard enumeration (kernels/enumerate.hpp). The perm
// and board formats are solve's (cli/io/perm_text.hpp); --json writes one JSON object per line.
#include <cstdint>

#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "cli/io/perm_text.hpp"
#include "cli/io/stdout_stream.hpp"
#include "engine/algebra/algebra.hpp"
#include "kernels/enumerate.hpp"

namespace nq::cli {

int run_list(const ListArgs& args) {
  const int n = args.n;
  if (args.json && args.format == "board") {
    print_error("list --json writes one JSON object per solution; it takes no --format board");
    return 2;
  }
  const bool board = args.format == "board";
  const std::uint64_t limit = args.limit > 0 ? static_cast<std::uint64_t>(args.limit) : 0;
  std::uint64_t printed = 0;
  StdoutStream out;
  std::string text;
  for_each_solution(n, [&](const int* rows) {
    if (args.unique && !is_canonical(rows, n)) return true;
    text.clear();
    if (args.json) {
      text = "{\"n\":" + std::to_string(n) + ",\"solution\":[";
      append_perm(text, rows, static_cast<std::size_t>(n), ',');
      text += "]}\n";
    } else if (board) {
      if (printed > 0) text += '\n';  // a blank line between boards
      append_board(text, rows, static_cast<std::size_t>(n));
    } else {
      append_perm(text, rows, static_cast<std::size_t>(n), ' ');
      text += '\n';
    }
    out.put(text);
    ++printed;
    return !out.failed() && (limit == 0 || printed < limit);
  });
  out.flush();
  if (out.failed() && !out.closed()) {
    print_error("cannot write to standard output: " + out.error_text());
    return 2;
  }
  return 0;
}

}  // namespace nq::cli
