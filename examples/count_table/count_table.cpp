// count_table FROM TO [THREADS]: Q(n) and its unique solutions for n = FROM..TO, with a
// progress line on standard error while each count runs, checked against the known table.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <nqcount/nqcount.hpp>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: count_table FROM TO [THREADS]\n");
    return 2;
  }
  const int from = std::atoi(argv[1]), to = std::atoi(argv[2]);
  const int threads = argc == 4 ? std::atoi(argv[3]) : 0;
  std::printf("%4s %22s %20s %10s %6s\n", "n", "total", "unique", "seconds", "known");
  for (int n = from; n <= to; ++n) {
    nq::CountConfig config;
    config.n = n;
    config.threads = threads;
    nq::Monitor monitor;  // the count fills it in; this thread reads it
    auto running = std::async(std::launch::async, [&] { return nq::count(config, &monitor); });
    while (running.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) {
      const auto total = monitor.cost_total.load(), done = monitor.cost_done.load();
      if (total > 0) std::fprintf(stderr, "\rn = %d: %3.0f%%", n, 100.0 * done / total);
    }
    std::fprintf(stderr, "\r              \r");
    const nq::Expected<nq::CountResult> result = running.get();
    if (!result) {  // every failure is an nq::Error with a message
      std::fprintf(stderr, "count_table: %s\n", result.error().message.c_str());
      return 2;
    }
    const auto known = nq::known_value(n);
    const bool agrees = known && nq::u128{known->total} == result->orbits.total &&
                        nq::u128{known->unique} == result->orbits.unique;
    std::printf("%4d %22s %20s %10.3f %6s\n", n, nq::to_string(result->orbits.total).c_str(),
                nq::to_string(result->orbits.unique).c_str(), result->seconds,
                known ? (agrees ? "ok" : "WRONG") : "-");
    if (known && !agrees) return 1;
  }
  return 0;
}
