// Checkpoint and resume: the journal file format, its refusals, torn tails, concurrent
// writers, exact counts after random interruptions, and count_selected.
#include "engine/count/journal.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "engine/count/count.hpp"
#include "engine/count/orchestrate.hpp"
#include "engine/count/src/cost.hpp"
#include "kernels/kernels.hpp"
#include "tests/cli_runner.hpp"

namespace nq {
namespace {

using namespace std::chrono_literals;

using test::temp_path;

std::string read_bytes(const std::string& path) {
  return test::read_file(path);
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

const RunIdentity kRun{12, 3, 30, 1000, "canonical"};

FinishedSubproblem made_up(std::uint64_t index) {  // any tally, as long as it is reproducible
  return {index, {index * 7 + 1, index * 13 + 5}};
}

// Writes a journal of kRun with records 0..count-1.
void write_journal(const std::string& path, std::uint64_t count) {
  FileJournal j(path, 10ms);
  ASSERT_TRUE(j.begin(kRun).ok());
  for (std::uint64_t i = 0; i < count; ++i) {
    const FinishedSubproblem f = made_up(i);
    j.record(std::span(&f, 1));
  }
  ASSERT_TRUE(j.close().ok());
}

Expected<std::vector<FinishedSubproblem>> reopen(const std::string& path, const RunIdentity& run,
                                                 std::vector<std::string>* warnings = nullptr) {
  FileJournal j(path, 10ms);
  auto done = j.begin(run);
  if (warnings) *warnings = j.warnings();
  return done;
}

TEST(Journal, RecordsSurviveCloseAndReopen) {
  const std::string path = temp_path("roundtrip");
  write_journal(path, 50);
  // The records, and a time mark after each batch written (at least the one of close()).
  const auto contents = read_journal(path);
  ASSERT_TRUE(contents.ok()) << contents.error().message;
  EXPECT_EQ(contents->records.size(), 50u);
  ASSERT_GE(contents->marks.size(), 1u);
  EXPECT_EQ(contents->marks.back().second, 50u);
  EXPECT_EQ(read_bytes(path).size(),
            FileJournal::kHeaderBytes + (50 + contents->marks.size()) * FileJournal::kRecordBytes);
  std::vector<std::string> warnings;
  const auto done = reopen(path, kRun, &warnings);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(done->size(), 50u);
  for (std::uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ((*done)[i].index, i);
    EXPECT_EQ((*done)[i].tally.solutions, made_up(i).tally.solutions);
    EXPECT_EQ((*done)[i].tally.nodes, made_up(i).tally.nodes);
  }
}

TEST(Journal, AVersion3JournalIsResumedAndAppendedToInItsOwnFormat) {
  // A 64-byte header of version 3 (no shard, kernel or time) and two records, by hand.
  std::string bytes(FileJournal::kV3HeaderBytes, '\0');
  auto* h = reinterpret_cast<unsigned char*>(bytes.data());
  auto put = [](unsigned char* p, std::uint64_t v, int size) {
    for (int i = 0; i < size; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
  };
  std::memcpy(h, "NQJOURNL", 8);
  put(h + 8, 3, 4);
  put(h + 12, static_cast<std::uint64_t>(kRun.n), 4);
  put(h + 16, static_cast<std::uint64_t>(kRun.split_rows), 4);
  put(h + 24, kRun.classes, 8);
  put(h + 32, kRun.subproblems, 8);
  std::memcpy(h + 40, kRun.route.data(), kRun.route.size());
  put(h + 56, FileJournal::kRecordBytes, 4);
  put(h + 60, fnv1a32(h, 60), 4);
  for (std::uint64_t i = 0; i < 2; ++i) {
    unsigned char r[32] = {};
    const FinishedSubproblem f = made_up(i);
    put(r, f.index, 8);
    put(r + 8, f.tally.solutions, 8);
    put(r + 16, f.tally.nodes, 8);
    put(r + 24, count_residues(f.tally.solutions), 4);
    put(r + 28, fnv1a32(r, 28), 4);
    bytes.append(reinterpret_cast<const char*>(r), 32);
  }
  const std::string path = temp_path("v3");
  write_bytes(path, bytes);
  {
    FileJournal j(path, 10ms);
    const auto done = j.begin(kRun);
    ASSERT_TRUE(done.ok()) << done.error().message;
    EXPECT_EQ(done->size(), 2u);
    const FinishedSubproblem f = made_up(2);
    j.record(std::span(&f, 1));
    ASSERT_TRUE(j.close().ok());
  }
  EXPECT_EQ(read_bytes(path).size(), FileJournal::kV3HeaderBytes + 3 * 32) << "no time mark";
  const auto contents = read_journal(path);
  ASSERT_TRUE(contents.ok()) << contents.error().message;
  EXPECT_EQ(contents->version, 3u);
  EXPECT_EQ(contents->records.size(), 3u);
  EXPECT_EQ(contents->run.shards, 0u);
}

// A cluster's run cuts the row-split plan finer; the run that resumes its journal (on another
// number of ranks, or nqcount on one machine) reads the cut from the journal and makes the same
// plan, task for task. Journals of other boards or routes, and missing files, give 0 (the
// plan's own cut; FileJournal::begin then says what is wrong).
TEST(Journal, AClustersFinerCutIsReadBackFromItsJournal) {
  // The default cut and one finer than a machine's (n = 25), and the finest, a task a split
  // (n = 23: its 2.7 million splits are more than a machine's tasks, and take a sixth of n = 25's
  // time to plan).
  for (const auto& [n, wanted] : std::vector<std::pair<int, std::uint64_t>>{
           {25, 0}, {25, 3 * kMaxRowSplitTasks / 2}, {23, std::uint64_t{1} << 40}}) {
    const Plan made = plan_rowsplit(n, false, {}, wanted);
    if (wanted > 0) {
      EXPECT_GT(made.size(), kMaxRowSplitTasks) << n;
    }
    const std::string path = temp_path("cut");
    std::filesystem::remove(path);
    {
      FileJournal j(path, 10ms);
      ASSERT_TRUE(j.begin(run_identity(made)).ok());
      const FinishedSubproblem f = made_up(made.size() - 1);
      j.record(std::span(&f, 1));
      ASSERT_TRUE(j.close().ok());
    }
    const std::uint64_t tasks = rowsplit_journal_tasks(path, n);
    EXPECT_EQ(tasks, made.size()) << wanted;
    const Plan again = plan_rowsplit(n, false, {}, tasks);
    EXPECT_EQ(again.size(), made.size()) << wanted;
    EXPECT_EQ(again.block, made.block) << wanted;
    EXPECT_EQ(again.pieces, made.pieces) << wanted;
    EXPECT_TRUE(reopen(path, run_identity(again)).ok()) << wanted;
    EXPECT_EQ(rowsplit_journal_tasks(path, n + 1), 0u);
  }
  const std::string other = temp_path("cut-canonical");
  write_journal(other, 3);
  EXPECT_EQ(rowsplit_journal_tasks(other, kRun.n), 0u);
  EXPECT_EQ(rowsplit_journal_tasks(temp_path("no-such-journal"), 25), 0u);
}

TEST(Journal, AnotherRunIsRefusedAndTheFileIsUntouched) {
  const std::string path = temp_path("other");
  write_journal(path, 20);
  const std::string before = read_bytes(path);
  const RunIdentity others[] = {{13, 3, 30, 1000, "canonical"},
                                {12, 2, 30, 1000, "canonical"},
                                {12, 3, 31, 1000, "canonical"},
                                {12, 3, 30, 999, "canonical"},
                                {12, 3, 30, 1000, "classic"}};
  for (const RunIdentity& other : others) {
    const auto done = reopen(path, other);
    ASSERT_FALSE(done.ok()) << describe(other);
    EXPECT_NE(done.error().message.find("belongs to another run"), std::string::npos)
        << done.error().message;
    EXPECT_EQ(read_bytes(path), before) << describe(other);
  }
}

TEST(Journal, CorruptFilesAreRefusedAndLeftUntouched) {
  const std::string good_path = temp_path("good");
  write_journal(good_path, 10);
  const std::string good = read_bytes(good_path);
  std::mt19937 rng(7);
  std::string garbage(300, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  std::string bad_header = good;
  bad_header[13] ^= 1;  // n, without fixing the header checksum
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  std::string bad_middle = good;
  bad_middle[FileJournal::kHeaderBytes + 3 * FileJournal::kRecordBytes + 9] ^= 0x40;
  const std::pair<const char*, std::string> cases[] = {
      {"empty", ""},        {"truncated header", good.substr(0, 30)}, {"garbage", garbage},
      {"magic", bad_magic}, {"header checksum", bad_header},          {"middle record", bad_middle},
  };
  for (const auto& [what, bytes] : cases) {
    const std::string path = temp_path("corrupt");
    write_bytes(path, bytes);
    const auto done = reopen(path, kRun);
    EXPECT_FALSE(done.ok()) << what;
    if (!done.ok()) {
      EXPECT_FALSE(done.error().message.empty()) << what;
    }
    EXPECT_EQ(read_bytes(path), bytes) << what;
  }
}

TEST(Journal, AFlippedCountBehindAValidChecksumFailsTheResidues) {
  // The bit flips before the checksum is computed (in memory, say): the record's FNV checks
  // out, its count mod the two primes does not.
  const std::string path = temp_path("residues");
  write_journal(path, 10);
  std::string bytes = read_bytes(path);
  for (const int bit : {0, 17, 40, 63}) {
    std::string flipped = bytes;
    unsigned char* r =
        reinterpret_cast<unsigned char*>(flipped.data()) + FileJournal::kHeaderBytes + 4 * 32;
    r[8 + bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
    const std::uint32_t sum = fnv1a32(r, 28);
    for (int i = 0; i < 4; ++i) r[28 + i] = static_cast<unsigned char>(sum >> (8 * i));
    write_bytes(path, flipped);
    const auto done = reopen(path, kRun);
    ASSERT_FALSE(done.ok()) << "bit " << bit;
    EXPECT_NE(done.error().message.find("mod 65521"), std::string::npos) << done.error().message;
    EXPECT_EQ(read_bytes(path), flipped) << "bit " << bit;
  }
  // Residues of a count past 2^32 and of the largest count: two 16-bit fields.
  for (const std::uint64_t c : {std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
    const std::uint32_t r = count_residues(c);
    EXPECT_EQ(r >> 16, c % 65521);
    EXPECT_EQ(r & 0xffff, c % 65519);
  }
}

TEST(Journal, RecordNamingAnUnplannedSubproblemIsRefused) {
  const std::string path = temp_path("range");
  {
    FileJournal j(path, 10ms);
    ASSERT_TRUE(j.begin(kRun).ok());
    const FinishedSubproblem f = made_up(kRun.subproblems);  // one past the end
    j.record(std::span(&f, 1));
  }
  const std::string before = read_bytes(path);
  EXPECT_FALSE(reopen(path, kRun).ok());
  EXPECT_EQ(read_bytes(path), before);
}

// A subproblem recorded again (a batch counted again after a resume) with its count is read
// back once; recorded again with another count, the journal is refused and left untouched,
// whether the other count comes second, or third after a second record that agrees.
TEST(Journal, ASubproblemRecordedTwiceIsKeptOnceOrRefusedIfItsCountsDiffer) {
  const auto journal_of = [](const std::string& path, const std::vector<FinishedSubproblem>& rs) {
    FileJournal j(path, 10ms);
    ASSERT_TRUE(j.begin(kRun).ok());
    j.record(std::span(rs));
    ASSERT_TRUE(j.close().ok());
  };
  FinishedSubproblem other = made_up(3);
  other.tally.solutions += 1;
  const std::string same = temp_path("twice-same");
  journal_of(same, {made_up(0), made_up(3), made_up(5), made_up(3), made_up(0)});
  const auto done = reopen(same, kRun);
  ASSERT_TRUE(done.ok()) << done.error().message;
  ASSERT_EQ(done->size(), 3u);
  EXPECT_EQ((*done)[0].index, 0u);
  EXPECT_EQ((*done)[1].index, 3u);
  EXPECT_EQ((*done)[2].index, 5u);
  const std::vector<std::vector<FinishedSubproblem>> refused = {{made_up(3), made_up(5), other},
                                                                {made_up(3), made_up(3), other},
                                                                {made_up(3), other, other},
                                                                {other, made_up(3), made_up(3)}};
  for (std::size_t c = 0; c < refused.size(); ++c) {
    const std::string path = temp_path("twice-other");
    std::filesystem::remove(path);
    journal_of(path, refused[c]);
    const std::string before = read_bytes(path);
    const auto r = reopen(path, kRun);
    ASSERT_FALSE(r.ok()) << c;
    EXPECT_NE(r.error().message.find("subproblem 3 is recorded twice with different counts"),
              std::string::npos)
        << r.error().message;
    EXPECT_EQ(read_bytes(path), before) << c;
  }
}

// Reading a journal back takes a bit a planned subproblem, not a count: a journal of one record
// of a plan of 2^28 subproblems is made and resumed in well under the 2 GiB that a count each
// would take.
TEST(Journal, ResumingAVastPlansJournalTakesABitASubproblem) {
  const RunIdentity vast{25, 3, 0, std::uint64_t{1} << 28, "rowsplit-rank"};
  const std::string path = temp_path("vast");
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  {  // begin() reads the new file back too
    FileJournal j(path, 10ms);
    ASSERT_TRUE(j.begin(vast).ok());
    const FinishedSubproblem f = made_up(vast.subproblems - 1);
    j.record(std::span(&f, 1));
    ASSERT_TRUE(j.close().ok());
  }
  const auto done = reopen(path, vast);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done->size(), 1u);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 256 * 1024) << "KiB";  // the bits: 32 MiB
}

TEST(Journal, TornFinalRecordIsDroppedWithAWarning) {
  const std::size_t whole = FileJournal::kHeaderBytes + 5 * FileJournal::kRecordBytes;
  // A partial last record (a write cut short), and a whole last record with a bad checksum.
  for (const bool partial : {true, false}) {
    const std::string path = temp_path("torn");
    write_journal(path, 6);
    std::string bytes = read_bytes(path);
    bytes.resize(whole + FileJournal::kRecordBytes);  // the six records, without the time mark
    if (partial)
      bytes.resize(whole + 11);
    else
      bytes[whole + 5] ^= 0x10;
    write_bytes(path, bytes);

    FileJournal j(path, 10ms);
    const auto done = j.begin(kRun);
    ASSERT_TRUE(done.ok()) << done.error().message;
    EXPECT_EQ(done->size(), 5u);
    ASSERT_EQ(j.warnings().size(), 1u);
    EXPECT_NE(j.warnings()[0].find("torn"), std::string::npos);
    // Appending after the repair keeps the journal readable.
    const FinishedSubproblem f = made_up(5);
    j.record(std::span(&f, 1));
    ASSERT_TRUE(j.close().ok());
    std::vector<std::string> warnings;
    const auto again = reopen(path, kRun, &warnings);
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(again->size(), 6u);
    EXPECT_TRUE(warnings.empty());
  }
}

TEST(Journal, ConcurrentWritersNeverInterleaveRecords) {
  const std::string path = temp_path("concurrent");
  constexpr int kThreads = 8, kPerThread = 600;
  const RunIdentity run{14, 3, 40, kThreads * kPerThread, "canonical"};
  {
    FileJournal j(path, 1ms);  // the writer thread flushes while the workers record
    ASSERT_TRUE(j.begin(run).ok());
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t)
      workers.emplace_back([&j, t] {
        std::mt19937 rng(static_cast<unsigned>(t));
        std::vector<FinishedSubproblem> batch;
        for (int i = 0; i < kPerThread; ++i) {
          batch.push_back(made_up(static_cast<std::uint64_t>(t * kPerThread + i)));
          if (rng() % 5 == 0 || i + 1 == kPerThread) {
            j.record(batch);
            batch.clear();
          }
        }
      });
    for (auto& w : workers) w.join();
    ASSERT_TRUE(j.close().ok());
  }
  std::vector<std::string> warnings;
  const auto done = reopen(path, run, &warnings);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(done->size(), std::size_t{kThreads * kPerThread});
  std::set<std::uint64_t> seen;
  for (const FinishedSubproblem& f : *done) {
    EXPECT_EQ(f.tally.solutions, made_up(f.index).tally.solutions);
    EXPECT_EQ(f.tally.nodes, made_up(f.index).tally.nodes);
    seen.insert(f.index);
  }
  EXPECT_EQ(seen.size(), std::size_t{kThreads * kPerThread});
}

TEST(Journal, ASecondRunOnTheSameFileIsRefused) {
  const std::string path = temp_path("locked");
  FileJournal first(path, 10ms);
  ASSERT_TRUE(first.begin(kRun).ok());
  const auto second = reopen(path, kRun);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("in use"), std::string::npos);
  ASSERT_TRUE(first.close().ok());
  EXPECT_TRUE(reopen(path, kRun).ok());
}

// Stops the run (through the Monitor) once `stop_after` subproblems are recorded.
class InterruptingJournal final : public SubproblemJournal {
 public:
  InterruptingJournal(FileJournal& file, Monitor& monitor, std::uint64_t stop_after)
      : file_(file), monitor_(monitor), stop_after_(stop_after) {}
  Expected<std::vector<FinishedSubproblem>> begin(const RunIdentity& run) override {
    return file_.begin(run);
  }
  void record(std::span<const FinishedSubproblem> finished) override {
    file_.record(finished);
    if (recorded_.fetch_add(finished.size()) + finished.size() >= stop_after_)
      monitor_.cancel.store(true);
  }

 private:
  FileJournal& file_;
  Monitor& monitor_;
  std::uint64_t stop_after_;
  std::atomic<std::uint64_t> recorded_{0};
};

TEST(Resume, RandomInterruptionsThenResumeGiveExactCounts) {
  for (const std::string kernel : {"auto", "reference", "join"}) {
    CountConfig config{.n = 13, .threads = 3, .kernel = kernel};
    const auto whole = count(config);
    ASSERT_TRUE(whole.ok());
    std::mt19937 rng(2024);
    for (int trial = 0; trial < 3; ++trial) {
      const std::string path = temp_path("resume");
      int runs = 0;
      std::uint64_t resumed_total = 0;
      for (;;) {
        ++runs;
        ASSERT_LT(runs, 200) << "the resumed runs make no progress";
        Monitor monitor;
        FileJournal file(path, 5ms);
        const std::uint64_t stop_after = 1 + rng() % (whole->subproblems_total / 4);
        InterruptingJournal journal(file, monitor, stop_after);
        config.journal = &journal;
        const auto r = count(config, &monitor);
        config.journal = nullptr;
        ASSERT_TRUE(r.ok()) << r.error().message;
        ASSERT_TRUE(file.close().ok());
        resumed_total += r->subproblems_resumed;
        if (r->cancelled) continue;
        EXPECT_TRUE(r->orbits.total == whole->orbits.total) << kernel;
        EXPECT_TRUE(r->orbits.unique == whole->orbits.unique) << kernel;
        EXPECT_TRUE(r->orbits.u2 == whole->orbits.u2 && r->orbits.u4 == whole->orbits.u4 &&
                    r->orbits.u8 == whole->orbits.u8)
            << kernel;
        EXPECT_TRUE(r->nodes == whole->nodes) << kernel;
        EXPECT_EQ(r->subproblems, whole->subproblems_total);
        break;
      }
      EXPECT_GE(runs, 2) << "no interruption happened";
      EXPECT_GT(resumed_total, 0u);
      // A finished journal answers at once: everything is resumed, nothing is counted.
      FileJournal file(path, 5ms);
      config.journal = &file;
      const auto again = count(config);
      config.journal = nullptr;
      ASSERT_TRUE(again.ok());
      EXPECT_EQ(again->subproblems_resumed, whole->subproblems_total);
      EXPECT_TRUE(again->orbits.total == whole->orbits.total);
    }
  }
}

// A resumed run's task stats (--task-stats) name every task, the resumed ones untimed but with
// the same estimates as in a run from the start.
TEST(Resume, TaskStatsOfAResumedRunKeepEveryEstimate) {
  CountConfig config{.n = 12, .threads = 2, .task_stats = true};
  const auto fresh = count(config);
  ASSERT_TRUE(fresh.ok());
  const std::string path = temp_path("stats");
  {
    Monitor monitor;
    FileJournal file(path, 5ms);
    InterruptingJournal journal(file, monitor, fresh->subproblems_total / 3);
    config.journal = &journal;
    const auto cut = count(config, &monitor);
    ASSERT_TRUE(cut.ok() && cut->cancelled);
    ASSERT_TRUE(file.close().ok());
  }
  FileJournal file(path, 5ms);
  config.journal = &file;
  const auto r = count(config);
  ASSERT_TRUE(r.ok());
  ASSERT_GT(r->subproblems_resumed, 0u);
  ASSERT_EQ(r->tasks.size(), fresh->tasks.size());
  std::uint64_t resumed = 0;
  for (std::size_t i = 0; i < r->tasks.size(); ++i) {
    EXPECT_EQ(r->tasks[i].estimate, fresh->tasks[i].estimate) << i;
    EXPECT_GT(r->tasks[i].estimate, 0) << i;
    resumed += r->tasks[i].resumed;
  }
  EXPECT_EQ(resumed, r->subproblems_resumed);
}

TEST(Resume, SelectedSubsetsAddUpToTheWholeCount) {
  CountConfig config;
  config.n = 12;
  config.threads = 2;
  const auto plan = make_plan(config);
  ASSERT_TRUE(plan.ok());
  const auto whole = count(config);
  ASSERT_TRUE(whole.ok());
  std::vector<std::uint64_t> parts[3];
  std::mt19937 rng(3);
  for (std::uint64_t i = 0; i < plan->subproblems.size(); ++i) parts[rng() % 3].push_back(i);
  u128 total = 0, nodes = 0;
  std::set<std::uint64_t> recorded;
  for (const auto& part : parts) {
    CollectingJournal collected;
    config.journal = &collected;
    const auto r = count_selected(config, *plan, part);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->subproblems, part.size());
    total += r->orbits.total;
    nodes += r->nodes;
    for (const FinishedSubproblem& f : collected.take()) recorded.insert(f.index);
  }
  EXPECT_TRUE(total == whole->orbits.total);
  EXPECT_TRUE(nodes == whole->nodes);
  EXPECT_EQ(recorded.size(), plan->subproblems.size());
  const std::uint64_t outside[] = {plan->subproblems.size()};
  EXPECT_FALSE(count_selected(config, *plan, outside).ok());
}

}  // namespace
}  // namespace nq
