// The smallest user of the installed library: n = 12 on 2 threads, "total unique".
#include <cstdio>
#include <nqcount/nqcount.hpp>

int main() {
  nq::CountConfig config;
  config.n = 12;
  config.threads = 2;
  const nq::Expected<nq::CountResult> r = nq::count(config);
  if (!r) {
    std::fprintf(stderr, "consumer: %s\n", r.error().message.c_str());
    return 2;
  }
  std::printf("%s %s\n", nq::to_string(r->orbits.total).c_str(),
              nq::to_string(r->orbits.unique).c_str());
  return 0;
}
