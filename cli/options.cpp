#include "options.hpp"

#include <CLI/CLI.hpp>
#include <type_traits>

#include "types.hpp"

namespace nq::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands{
      {"count", "Count all solutions (total) and the D4 orbits (unique) of the n-queens problem. "
                "This is the default command: 'nqcount --n 12' counts."},
      {"table", "Print the known values of Q(n) and unique(n) (n = 1..27) that --verify checks."},
  };
  return kCommands;
}

std::vector<OptionRow> option_table(Args& a) {
  const long long max_threads = 1 << 16;
  return {
      {"count", "-n,--n", &a.count.n, "board size", std::pair{1LL, (long long)kMaxCountN}, {}, true},
      {"count", "-t,--threads", &a.count.threads,
       "worker threads (default: every hardware thread; more is allowed, with a warning)",
       std::pair{1LL, max_threads}},
      {"count", "--json", &a.count.json, "print the result as one JSON object on stdout"},
      {"count", "--verify", &a.count.verify,
       "compare with the known table: exit 0 on a match, 1 on a mismatch"},
      {"count", "--progress", &a.count.progress,
       "show progress on stderr even when it is not a terminal"},
      {"count", "--no-progress", &a.count.no_progress, "never show progress"},
      {"count", "--kernel", &a.count.kernel,
       "counting kernel: auto (the fastest this CPU runs), scalar, or reference (the classic "
       "one-queen-per-row search with mirror halving, unique by Burnside)",
       std::nullopt, {"auto", "scalar", "reference"}},
      {"count", "--split-depth", &a.count.split_rows,
       "top rows fixed to split each canonical class into more, smaller subproblems (default: by n)",
       std::pair{0LL, 6LL}},
      {"count", "--checkpoint", &a.count.checkpoint,
       "journal of finished subproblems: created if missing, resumed if it exists (same n, "
       "split depth and kernel route; anything else is refused)"},
      {"count", "--checkpoint-every", &a.count.checkpoint_every,
       "seconds between flushes (fsync) of the checkpoint journal (default 30)",
       std::pair{1LL, 86400LL}},
      {"table", "-n,--n", &a.table.n, "print only this n", std::pair{1LL, 27LL}},
      {"table", "--json", &a.table.json, "print the table as JSON"},
  };
}

void add_option_row(CLI::App& app, const OptionRow& row) {
  CLI::Option* opt = std::visit(
      [&](auto* target) -> CLI::Option* {
        using T = std::remove_pointer_t<decltype(target)>;
        if constexpr (std::is_same_v<T, bool>) {
          return app.add_flag(row.flags, *target, row.help);
        } else {
          return app.add_option(row.flags, *target, row.help);
        }
      },
      row.target);
  if (row.range) opt->check(CLI::Range(row.range->first, row.range->second));
  if (!row.choices.empty()) opt->check(CLI::IsMember(row.choices));
  if (row.required) opt->required();
}

}  // namespace nq::cli
