// find_solution [N] [SEED]: one n-queens solution for N (default 1,000,000) by parallel QS4
// local search, checked again here by the library's verifier before it is reported.
#include <cstdio>
#include <cstdlib>
#include <nqcount/nqcount.hpp>
#include <string>

int main(int argc, char** argv) {
  nq::SolveConfig config;
  config.n = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
  config.seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const nq::Expected<nq::SolveResult> result = nq::solve(config);
  if (!result) {
    std::fprintf(stderr, "find_solution: %s\n", result.error().message.c_str());
    return 2;
  }
  if (result->status != nq::SolveStatus::found) {
    std::fprintf(stderr, "find_solution: no solution for n = %lld\n",
                 static_cast<long long>(config.n));
    return 1;
  }
  const nq::Permutation& rows = result->solutions.front();  // rows[column], 0-based
  std::string problem;
  if (!nq::verify_solution(rows.data(), rows.size(), false, &problem)) {
    std::fprintf(stderr, "find_solution: not a solution: %s\n", problem.c_str());
    return 1;
  }
  std::printf(
      "n = %lld: a solution, verified, in %.2f s on %d threads; first queens (column, "
      "row): ",
      static_cast<long long>(config.n), result->seconds, result->threads);
  for (std::size_t c = 0; c < 3 && c < rows.size(); ++c)
    std::printf("(%zu, %u) ", c + 1, rows[c] + 1);
  std::printf("\n");
  return 0;
}
