// `nqcount solve --modular --ldpc J,K [--ldpc-layout product|paper] --n N [--output FILE]`: a
// modular solution (the solver's usual route), then the LDPC parity-check matrix built from its
// Q-matrix (engine/algebra/ldpc.hpp; block (j,k) shifted by j*k, or by the paper's row
// multipliers 0, 2, 3, 5, 7, ... times k), written as a MatrixMarket coordinate pattern, and its
// check: row and column weights, counted on the ones as they are written, and the 4-cycles, from
// the shifts (none: girth >= 6). H is written 65,536 ones at a time, never held whole (its text
// reaches gigabytes at 10^8 ones), with a progress line on a terminal when that takes seconds;
// a signal or --time-limit ends it with nothing written. The chunk's buffers are allocated
// first, and a failure to is an error line. The report goes to stdout when H
// goes to a file, to stderr when H goes to stdout; --json makes it one JSON object (H then needs a
// file). Exit 1 when H has a 4-cycle (H is still written: the report says how many).
#include "engine/algebra/ldpc.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <iostream>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.hpp"
#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "cli/io/output_file.hpp"
#include "cli/io/progress.hpp"
#include "cli/io/signal_scope.hpp"
#include "engine/count/memory.hpp"
#include "engine/solve/solve.hpp"

namespace nq::cli {
namespace {

constexpr std::uint64_t kOnesPerChunk = std::uint64_t{1} << 16;
constexpr std::size_t kEntryChars = 22;  // two numbers below 2^32, a blank and a newline

// The characters of the numbers 1..count written in decimal.
std::uint64_t digits_up_to(std::uint64_t count) {
  std::uint64_t total = 0;
  for (std::uint64_t digits = 1, low = 1; low <= count; ++digits, low *= 10)
    total += digits * (std::min(count, low * 10 - 1) - low + 1);
  return total;
}

// The size of H's text after its header: row r (1-based) is written once for each of its K
// ones, column c once for each of its J, and each one ends in a blank and a newline.
std::uint64_t entries_text_bytes(const LdpcMatrix& h) {
  return h.block_columns * digits_up_to(h.rows) + h.block_rows * digits_up_to(h.columns) +
         2 * h.ones;
}

bool parse_blocks(const std::string& text, std::uint64_t& J, std::uint64_t& K) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos) return false;
  auto number = [](std::string_view s, std::uint64_t& v) { return parse_decimal(s, v); };
  const std::string_view all(text);
  return number(all.substr(0, comma), J) && number(all.substr(comma + 1), K);
}

// Why --ldpc's arguments cannot run (empty when they can), with J and K read.
std::string ldpc_arguments_error(const SolveArgs& args, std::uint64_t& J, std::uint64_t& K) {
  if (!parse_blocks(args.ldpc, J, K))
    return "--ldpc '" + args.ldpc +
           "' is not J,K; expected two whole numbers, block rows and block columns, e.g. 3,5";
  if (!args.modular || args.n == 0 || !args.batch.empty() || args.solutions != 1 ||
      args.format != "perm" || args.runs != 0)
    return "--ldpc J,K needs --modular and --n N, and takes no --batch, --solutions, --runs or "
           "--format (H is written as a MatrixMarket pattern)";
  if (args.n % 2 == 0 || args.n % 3 == 0)
    return "--modular needs gcd(n, 6) = 1: no modular (toroidal) solution exists for n = " +
           std::to_string(args.n);
  if (args.json && (args.output.empty() || args.output == "-"))
    return "--ldpc with --json needs --output FILE for H (stdout carries the report)";
  return "";
}

SolveConfig ldpc_solve_config(const SolveArgs& args) {
  SolveConfig config;
  config.n = args.n;
  config.modular = true;
  config.threads = args.threads;
  config.time_limit_seconds = args.time_limit;
  config.max_restarts = static_cast<std::uint64_t>(args.max_restarts);
  if (args.seed >= 0) {
    config.seed = static_cast<std::uint64_t>(args.seed);
  } else {
    std::random_device device;
    config.seed = ((std::uint64_t{device()} << 32) | device()) & 0x7fffffffffffffffULL;
  }
  return config;
}

// Writes H's text after `header`, a chunk of ones at a time (made, checked, formatted,
// written), under a progress line. 0 when all of it is written, else the exit status, its
// message printed.
int write_ldpc(OutputFile& sink, const std::string& header, const Permutation& p,
               const LdpcMatrix& h, LdpcChecker& checker, Monitor& monitor,
               const SolveConfig& config, std::chrono::steady_clock::time_point start) {
  std::vector<LdpcEntry> chunk;
  std::string text = header;
  try {
    chunk.reserve(kOnesPerChunk);
    text.reserve(header.size() + kOnesPerChunk * kEntryChars);
  } catch (const std::bad_alloc&) {
    print_error("--ldpc: out of memory for the buffers that write H; nothing written");
    return 2;
  }
  std::atomic<std::uint64_t> written{0};
  std::string error;
  bool ok = true, stopped = false;
  {
    ProgressLine line(
        [&](double elapsed) { return writing_text("H", "ones", written.load(), h.ones, elapsed); },
        stderr_is_terminal());
    ok = sink.write(text, &error);
    for (std::uint64_t first = 0; ok && first < h.ones; first += kOnesPerChunk) {
      if (write_stopped(monitor, config, start)) {
        stopped = true;
        break;
      }
      chunk.clear();
      ldpc_entries(p, h, first, kOnesPerChunk, chunk);
      checker.add(chunk.data(), chunk.size());
      text.resize(chunk.size() * kEntryChars);
      char* at = text.data();
      for (const auto& [r, c] : chunk) {
        at = std::to_chars(at, at + 10, r + 1ULL).ptr;
        *at++ = ' ';
        at = std::to_chars(at, at + 10, c + 1ULL).ptr;
        *at++ = '\n';
      }
      ok = sink.write(std::string_view(text.data(), static_cast<std::size_t>(at - text.data())),
                      &error);
      written.store(first + chunk.size(), std::memory_order_relaxed);
    }
  }
  if (ok && stopped) return report_write_stopped(monitor, config, config.n);
  if (!ok || !sink.commit(&error)) {
    print_error(error);
    return 2;
  }
  return 0;
}

// The report of a written H: its shape, its weights and its 4-cycles, as JSON or one line.
void report_ldpc(const SolveArgs& args, const LdpcMatrix& h, const LdpcCheck& check,
                 std::uint64_t J, std::uint64_t K, std::uint64_t seed,
                 const std::string& modular_route, std::uint64_t text_bytes,
                 const std::string& path) {
  const auto n = static_cast<std::uint64_t>(args.n);
  if (args.json) {
    nlohmann::json j{{"n", n},
                     {"seed", seed},
                     {"modular", modular_route},
                     {"J", J},
                     {"K", K},
                     {"layout", args.ldpc_layout},
                     {"row_multipliers", h.multipliers},
                     {"rows", h.rows},
                     {"columns", h.columns},
                     {"ones", h.ones},
                     {"bytes", text_bytes},
                     {"row_weight", {check.min_row_weight, check.max_row_weight}},
                     {"column_weight", {check.min_column_weight, check.max_column_weight}},
                     {"four_cycles", check.four_cycles},
                     {"girth_at_least_6", check.girth_at_least_6()},
                     {"output", path}};
    std::cout << j.dump() << "\n";
    return;
  }
  auto weight = [](std::uint64_t lo, std::uint64_t hi) {
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
  };
  std::ostream& out = path == "-" ? std::cerr : std::cout;
  out << "ldpc ("
      << (args.ldpc_layout == "paper" ? "paper layout, shifts m(j)*k"
                                      : "product layout, shifts j*k")
      << "): H is " << h.rows << " x " << h.columns << " (" << J << " x " << K << " blocks of " << n
      << " x " << n << "), " << h.ones << " ones, row weight "
      << weight(check.min_row_weight, check.max_row_weight) << ", column weight "
      << weight(check.min_column_weight, check.max_column_weight) << ", "
      << (check.girth_at_least_6() ? "no 4-cycles (girth >= 6)"
                                   : std::to_string(check.four_cycles) + " 4-cycles")
      << "\n";
}

}  // namespace

int run_solve_ldpc(const SolveArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t J = 0, K = 0;
  if (const std::string bad = ldpc_arguments_error(args, J, K); !bad.empty()) {
    print_error(bad);
    return 2;
  }
  const std::string path = args.output.empty() ? "-" : args.output;
  const auto n = static_cast<std::uint64_t>(args.n);
  const bool paper = args.ldpc_layout == "paper";
  const Expected<LdpcMatrix> shape =
      ldpc_shape(n, J, K, paper ? LdpcLayout::kPaper : LdpcLayout::kProduct);
  if (!shape.ok()) {
    print_error(shape.error().message);
    return 2;
  }
  const LdpcMatrix& h = *shape;
  const std::optional<std::uint64_t> memory_limit = solve_memory_limit(args);
  if (!memory_limit) return 2;
  const SolveConfig config = ldpc_solve_config(args);
  // The peak: the solve, the weight counters, one chunk of ones and its text. H's text itself is
  // streamed to the file, never held.
  const std::uint64_t need = solve_memory_estimate(config) + LdpcChecker::bytes(h) +
                             kOnesPerChunk * (sizeof(LdpcEntry) + kEntryChars);
  const std::string header = matrix_market_header(
      h.rows, h.columns, h.ones,
      "LDPC parity-check matrix: " + std::to_string(J) + " x " + std::to_string(K) +
          " blocks, block (j,k) = the Q-matrix of a modular " + std::to_string(n) +
          "-queens solution, columns shifted cyclically by " +
          (paper ? "m(j)*k, m = 0,2,3,5,7,... (the paper's row multipliers)" : "j*k"));
  const std::uint64_t text_bytes = header.size() + entries_text_bytes(h);
  if (need > *memory_limit) {
    print_error("--ldpc " + args.ldpc + " for n = " + std::to_string(n) + " needs about " +
                format_bytes(need) + " (" + std::to_string(need) + " bytes) to write H's " +
                format_bytes(text_bytes) + " of text, above the memory limit of " +
                format_bytes(*memory_limit) + " (" + std::to_string(*memory_limit) +
                " bytes; --memory-limit)");
    return 2;
  }
  OutputFile sink(path, "--output");
  std::string error;
  if (!sink.open(&error)) {
    print_error(error);
    return 2;
  }
  Monitor monitor;
  SignalScope signals(monitor);
  const Expected<SolveResult> solved = solve(config, &monitor);
  if (!solved.ok()) {
    print_error(solved.error().message);
    return 2;
  }
  if (solved->status != SolveStatus::found)
    return report_solve_failure(*solved, config, "--ldpc " + args.ldpc + ": ");
  if (!solved->verified) {
    std::cerr << "nqcount: no verified modular solution for n = " << n << "; nothing written\n";
    return 1;
  }
  Expected<LdpcChecker> checker = LdpcChecker::make(h);
  if (!checker.ok()) {
    print_error(checker.error().message);
    return 2;
  }
  if (const int status = write_ldpc(sink, header, solved->solutions.front(), h, checker.value(),
                                    monitor, config, start);
      status != 0)
    return status;
  const LdpcCheck check = checker->result();
  report_ldpc(args, h, check, J, K, solved->seed, solved->modular_route, text_bytes, path);
  return check.girth_at_least_6() ? 0 : 1;
}

}  // namespace nq::cli
