// Checkpoint and resume: a journal of finished subproblems and their counts.
//
// The plan is deterministic for a given n, split depth and route, so a subproblem is named by
// its index in the plan, and a run can skip whatever an earlier run of the same plan finished.
// The runner only sees the SubproblemJournal interface: `begin` once after planning (what is
// already done, or an Error if the journal belongs to another run), then `record` from the
// worker threads, once per batch of finished subproblems.
//
// The file (FileJournal) is a 128-byte header followed by 32-byte records, all little-endian
// (docs/formats.md, "The checkpoint journal"):
//   header: magic "NQJOURNL", format version (u32), n (u32), split depth (u32), cross-check
//           (u32: cross_check_tag of the fraction and seed, 0 when off), classes (u64),
//           subproblems (u64), route "canonical"/"classic"/"rowsplit-rank" (16 bytes, NUL
//           padded), record size (u32), FNV-1a 32 of the 60 bytes before it (u32);
//           then the shard (u32: I of I/K, 0-based), the shards (u32: K, 0 when the journal is
//           a whole count's), the kernel that created it (16 bytes, NUL padded), the creation
//           time (u64: Unix milliseconds), 28 bytes of zeros, FNV-1a 32 of the 60 bytes from the
//           shard on (u32)
//   record: index (u64), solutions (u64), nodes (u64), residues (u32: solutions mod 65521 in
//           the high 16 bits, mod 65519 in the low 16), FNV-1a 32 of the 28 bytes before it (u32)
// The residues are a second, independent check of the count (as in the FPGA Q(27) run): a bit
// flipped in a stored count that the checksum missed, or one flipped before it was computed,
// fails it on resume. A record whose index is kTimeMark is a time mark, not a task: its solutions
// field holds the Unix time in milliseconds at which the records before it were written (one
// after each batch), which is how `nqcount status` sees a campaign's rate. Version 3 files (a
// 64-byte header: no shard, kernel, time or marks), version 1 files (residues 0, unchecked) and
// version 2 files (the cross-check field was reserved, always 0: runs without a cross-check) are
// still read, and a resumed one is appended to in its own version.
// Records are buffered and appended by one writer thread every `flush_every`, each batch with
// a single write() of whole records on an O_APPEND descriptor, then fdatasync'd. A crash or a
// second Ctrl-C can therefore only leave a torn tail, which the reader drops with a warning
// (and truncates before appending again). Anything else that does not check out is an Error,
// and the file is left exactly as it was.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/types.hpp"
#include "engine/count/reducer.hpp"
#include "kernels/subproblem.hpp"

namespace nq {

struct Plan;

// What a journal belongs to: a resumed run must have the same plan, subproblem for subproblem,
// and the same shard of it.
struct RunIdentity {
  int n = 0;
  int split_rows = 0;
  std::uint64_t classes = 0;
  std::uint64_t subproblems = 0;
  // "canonical", "classic" or "rowsplit-rank" (the join's: a record's index is a task of
  // Plan::block consecutive ranks, its solutions already weighted): every kernel of a route
  // counts alike.
  std::string route;
  // cross_check_tag() of the run's cross-check fraction and seed (0: no cross-check): a resumed
  // run checks the same subproblems as the one it continues.
  std::uint32_t cross_check = 0;
  // The shard of the plan it counts (campaign.hpp: shard `shard` of `shards`); shards 0: the
  // whole plan.
  std::uint32_t shard = 0, shards = 0;
  // The kernel that created the journal ("" where a journal does not say: before version 4).
  // Recorded, not compared: every kernel of a route counts alike, and an audit re-counts with
  // another (campaign.hpp).
  std::string kernel;

  bool operator==(const RunIdentity& o) const {
    return n == o.n && split_rows == o.split_rows && classes == o.classes &&
           subproblems == o.subproblems && route == o.route && cross_check == o.cross_check &&
           shard == o.shard && shards == o.shards;
  }
};

RunIdentity run_identity(const Plan& plan, std::uint32_t cross_check = 0);
std::string describe(const RunIdentity& run);  // "n = 12, split depth 3, ..."

struct FinishedSubproblem {
  std::uint64_t index = 0;
  Tally tally;
};

// The index of a time mark (a record that is no task; see the file's layout above).
inline constexpr std::uint64_t kTimeMark = ~std::uint64_t{0};

// A journal as it is on disk, read without locking or changing it (a shard may be appending to
// it): what `nqcount merge`, `status` and `audit` read.
struct JournalContents {
  std::string path;
  RunIdentity run;
  std::uint32_t version = 0;
  std::uint64_t created_ms = 0;  // Unix milliseconds; 0 before version 4
  // Every task record, in file order, a task recorded twice (a resumed batch) twice.
  std::vector<FinishedSubproblem> records;
  // The time marks: (Unix milliseconds, how many of `records` were written before it).
  std::vector<std::pair<std::uint64_t, std::size_t>> marks;
  std::uint64_t torn_bytes = 0;  // a torn final record, ignored (a write in progress, or cut)
};
// An Error (the whole message, naming the file) where it is no journal, is corrupt before its
// last record, or cannot be read.
Expected<JournalContents> read_journal(const std::string& path);

class SubproblemJournal {
 public:
  virtual ~SubproblemJournal() = default;
  // Called once, after planning and before counting: the subproblems already finished, or an
  // Error when the journal cannot be used for this run.
  virtual Expected<std::vector<FinishedSubproblem>> begin(const RunIdentity& run) = 0;
  // Called by worker threads, concurrently, once per batch of finished subproblems.
  virtual void record(std::span<const FinishedSubproblem> finished) = 0;
};

// A resumed run: the sum of what is done, and the indices still to count, in plan order.
struct ResumePoint {
  Partial done;
  std::vector<std::uint64_t> todo;
};
ResumePoint resume_point(const Plan& plan, std::span<const FinishedSubproblem> finished);

// The journal on disk.
class FileJournal final : public SubproblemJournal {
 public:
  static constexpr std::uint32_t kFormatVersion = 4;
  static constexpr std::size_t kHeaderBytes = 128;   // version 4
  static constexpr std::size_t kV3HeaderBytes = 64;  // versions 1 to 3
  static constexpr std::size_t kRecordBytes = 32;

  FileJournal(std::string path, std::chrono::milliseconds flush_every);
  ~FileJournal() override;  // flushes and closes
  FileJournal(const FileJournal&) = delete;
  FileJournal& operator=(const FileJournal&) = delete;

  Expected<std::vector<FinishedSubproblem>> begin(const RunIdentity& run) override;
  void record(std::span<const FinishedSubproblem> finished) override;

  // Writes what is buffered and syncs it to disk; the first write failure, if any, stays
  // reported by every later call.
  Expected<void> flush();
  // Flushes, stops the writer thread and closes the file. Idempotent.
  Expected<void> close();

  const std::string& path() const { return path_; }
  // Warnings found while opening (a torn final record dropped), as data: the engine never prints.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void writer_loop();
  Expected<void> write_out(std::vector<unsigned char>& bytes);

  std::string path_;
  std::chrono::milliseconds flush_every_;
  int fd_ = -1;
  std::uint32_t version_ = kFormatVersion;  // of the file opened: marks from version 4 only
  std::vector<std::string> warnings_;

  std::mutex buffer_mu_;  // guards buffer_ (record() appends, the writer swaps it out)
  std::vector<unsigned char> buffer_;
  std::mutex write_mu_;  // one writer at a time on the file; guards error_
  std::string error_;

  std::mutex wake_mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread writer_;
};

// Keeps the records in memory (a rank of nqcount-mpi sends them on to rank 0).
class CollectingJournal final : public SubproblemJournal {
 public:
  Expected<std::vector<FinishedSubproblem>> begin(const RunIdentity&) override {
    return std::vector<FinishedSubproblem>{};
  }
  void record(std::span<const FinishedSubproblem> finished) override;
  std::vector<FinishedSubproblem> take();

 private:
  std::mutex mu_;
  std::vector<FinishedSubproblem> records_;
};

// The tasks of the row-split plan whose journal `path` is, for a board of `n`: a cluster's run
// cuts that plan finer (plan_rowsplit's min_tasks), and the run that resumes its journal, on
// another number of ranks or on one machine, cuts it as the journal did (min_tasks = this).
// 0 where the file is missing, unreadable, or not such a journal (FileJournal::begin says why).
std::uint64_t rowsplit_journal_tasks(const std::string& path, int n);
// Why the journal at `path`, cut into `journal_tasks` tasks (rowsplit_journal_tasks; 0: no such
// journal), cannot be resumed by a run that asks for a cut of at least `min_tasks` (0: none
// asked): a resumed count keeps its journal's cut, and another is a contradiction. Empty where
// it can be resumed.
std::string resume_cut_error(int n, std::uint64_t min_tasks, std::uint64_t journal_tasks,
                             const std::string& path);

// The record's residues of a count: mod kResiduePrimes[0] high, mod kResiduePrimes[1] low.
inline constexpr std::uint32_t kResiduePrimes[2] = {65521, 65519};
std::uint32_t count_residues(std::uint64_t solutions);

// FNV-1a, 32 bits: the checksum of every header and record.
std::uint32_t fnv1a32(const unsigned char* bytes, std::size_t size);

}  // namespace nq
