// `nqcount solve --modular --ldpc J,K [--ldpc-layout product|paper] --n N [--output FILE]`: a
// modular solution (the solver's usual route), then the LDPC parity-check matrix built from its
// Q-matrix (engine/algebra/ldpc.hpp; block (j,k) shifted by j*k, or by the paper's row
// multipliers 0, 2, 3, 5, 7, ... times k), written as a MatrixMarket coordinate pattern, and its
// check: row and column weights and the 4-cycles (none: girth >= 6). The report goes to stdout when
// H goes to a file, to stderr when H goes to stdout; --json makes it one JSON object (H then needs
// a file). Exit 1 when H has a 4-cycle (H is still written: the report says where the shifts
// collide).
#include "engine/algebra/ldpc.hpp"

#include <charconv>
#include <iostream>
#include <random>
#include <string>

#include "base/types.hpp"
#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "cli/io/output_file.hpp"
#include "engine/solve/solve.hpp"

namespace nq::cli {
namespace {

bool parse_blocks(const std::string& text, std::uint64_t& J, std::uint64_t& K) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos) return false;
  auto number = [](std::string_view s, std::uint64_t& v) { return parse_decimal(s, v); };
  const std::string_view all(text);
  return number(all.substr(0, comma), J) && number(all.substr(comma + 1), K);
}

}  // namespace

int run_solve_ldpc(const SolveArgs& args) {
  std::uint64_t J = 0, K = 0;
  if (!parse_blocks(args.ldpc, J, K)) {
    print_error("--ldpc '" + args.ldpc +
                "' is not J,K; expected two whole numbers, block rows and block columns, e.g. 3,5");
    return 2;
  }
  if (!args.modular || args.n == 0 || !args.batch.empty() || args.solutions != 1 ||
      args.format != "perm") {
    print_error(
        "--ldpc J,K needs --modular and --n N, and takes no --batch, --solutions or "
        "--format (H is written as a MatrixMarket pattern)");
    return 2;
  }
  if (args.n % 2 == 0 || args.n % 3 == 0) {
    print_error("--modular needs gcd(n, 6) = 1: no modular (toroidal) solution exists for n = " +
                std::to_string(args.n));
    return 2;
  }
  const std::string path = args.output.empty() ? "-" : args.output;
  if (args.json && path == "-") {
    print_error("--ldpc with --json needs --output FILE for H (stdout carries the report)");
    return 2;
  }
  const auto n = static_cast<std::uint64_t>(args.n);
  if (J < 1 || K < 1 || J > n || K > n || J * K * n > kMaxLdpcEntries) {
    print_error("--ldpc " + args.ldpc + ": J and K must be in 1..n = " + std::to_string(n) +
                " and H at most " + std::to_string(kMaxLdpcEntries) + " ones (J K n)");
    return 2;
  }
  OutputFile sink(path, "--output");
  std::string error;
  if (!sink.open(&error)) {
    print_error(error);
    return 2;
  }
  SolveConfig config;
  config.n = args.n;
  config.modular = true;
  config.threads = args.threads;
  config.time_limit_seconds = args.time_limit;
  if (args.seed >= 0) {
    config.seed = static_cast<std::uint64_t>(args.seed);
  } else {
    std::random_device device;
    config.seed = ((std::uint64_t{device()} << 32) | device()) & 0x7fffffffffffffffULL;
  }
  const Expected<SolveResult> solved = solve(config);
  if (!solved.ok()) {
    print_error(solved.error().message);
    return 2;
  }
  if (solved->status != SolveStatus::found || !solved->verified) {
    std::cerr << "nqcount: no verified modular solution for n = " << n << "; nothing written\n";
    return 1;
  }
  const bool paper = args.ldpc_layout == "paper";
  const Expected<LdpcMatrix> h = ldpc_matrix(solved->solutions.front(), J, K,
                                             paper ? LdpcLayout::kPaper : LdpcLayout::kProduct);
  if (!h.ok()) {
    print_error(h.error().message);
    return 2;
  }
  const LdpcCheck check = check_ldpc(*h);
  std::string text = matrix_market_header(
      h->rows, h->columns, h->entries.size(),
      "LDPC parity-check matrix: " + std::to_string(J) + " x " + std::to_string(K) +
          " blocks, block (j,k) = the Q-matrix of a modular " + std::to_string(n) +
          "-queens solution, columns shifted cyclically by " +
          (paper ? "m(j)*k, m = 0,2,3,5,7,... (the paper's row multipliers)" : "j*k"));
  for (const auto& [r, c] : h->entries) {
    text += std::to_string(r + 1);
    text += ' ';
    text += std::to_string(c + 1);
    text += '\n';
  }
  if (!sink.write(text, &error) || !sink.commit(&error)) {
    print_error(error);
    return 2;
  }
  if (args.json) {
    nlohmann::json j{{"n", n},
                     {"seed", solved->seed},
                     {"modular", solved->modular_route},
                     {"J", J},
                     {"K", K},
                     {"layout", args.ldpc_layout},
                     {"row_multipliers", h->multipliers},
                     {"rows", h->rows},
                     {"columns", h->columns},
                     {"ones", h->entries.size()},
                     {"row_weight", {check.min_row_weight, check.max_row_weight}},
                     {"column_weight", {check.min_column_weight, check.max_column_weight}},
                     {"four_cycles", check.four_cycles},
                     {"girth_at_least_6", check.girth_at_least_6()},
                     {"output", path}};
    std::cout << j.dump() << "\n";
  } else {
    auto weight = [](std::uint64_t lo, std::uint64_t hi) {
      return lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
    };
    std::ostream& out = path == "-" ? std::cerr : std::cout;
    out << "ldpc (" << (paper ? "paper layout, shifts m(j)*k" : "product layout, shifts j*k")
        << "): H is " << h->rows << " x " << h->columns << " (" << J << " x " << K << " blocks of "
        << n << " x " << n << "), " << h->entries.size() << " ones, row weight "
        << weight(check.min_row_weight, check.max_row_weight) << ", column weight "
        << weight(check.min_column_weight, check.max_column_weight) << ", "
        << (check.girth_at_least_6() ? "no 4-cycles (girth >= 6)"
                                     : std::to_string(check.four_cycles) + " 4-cycles")
        << "\n";
  }
  return check.girth_at_least_6() ? 0 : 1;
}

}  // namespace nq::cli
