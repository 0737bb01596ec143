// The checkpoint journal reader: FileJournal::begin on a file holding the fuzz input. It must
// resume (every record for a subproblem of the run), refuse with an Error, or drop a torn tail;
// never crash, never return a subproblem outside the run.
//
// NQ_FUZZ_JOURNAL_SEEDS=DIR ./fuzz_journal writes seed journals for the fixed run below into
// DIR and exits (tests/fuzz/corpus/fuzz_journal was made so).
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "engine/count/journal.hpp"

namespace {

const nq::RunIdentity& identity() {
  static const nq::RunIdentity run{8, 2, 12, 40, "canonical"};
  return run;
}

std::string temp_file() {
  static const std::string path = "/tmp/nq_fuzz_journal_" + std::to_string(getpid());
  return path;
}

void write_seeds(const std::string& dir) {
  for (int records = 0; records <= 3; ++records) {
    const std::string path = dir + "/seed" + std::to_string(records);
    std::remove(path.c_str());
    nq::FileJournal journal(path, std::chrono::milliseconds(1000));
    if (!journal.begin(identity())) std::exit(1);
    std::vector<nq::FinishedSubproblem> done;
    for (int i = 0; i < records; ++i) {
      nq::FinishedSubproblem f;
      f.index = static_cast<std::uint64_t>(7 * i + 1);
      f.tally = {static_cast<std::uint64_t>(i + 3), static_cast<std::uint64_t>(100 + i)};
      done.push_back(f);
    }
    journal.record(done);
    if (!journal.close()) std::exit(1);
  }
  std::exit(0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("NQ_FUZZ_JOURNAL_SEEDS")) write_seeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = temp_file();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  {
    nq::FileJournal journal(path, std::chrono::hours(1));
    const auto done = journal.begin(identity());
    if (done.ok())
      for (const nq::FinishedSubproblem& f : *done)
        if (f.index >= identity().subproblems) __builtin_trap();
    journal.close();
  }
  std::remove(path.c_str());
  return 0;
}
