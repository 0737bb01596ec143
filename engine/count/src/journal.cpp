#include "engine/count/journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "base/file_io.hpp"
#include "base/prefault.hpp"
#include "engine/count/plan.hpp"

namespace nq {
namespace {

constexpr unsigned char kMagic[8] = {'N', 'Q', 'J', 'O', 'U', 'R', 'N', 'L'};
constexpr std::size_t kRouteBytes = 16;
constexpr std::size_t kKernelBytes = 16;

void put_u32(unsigned char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put_u64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
std::uint32_t get_u32(const unsigned char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint64_t get_u64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string sys_error(const std::string& what, const std::string& path) {
  return what + " checkpoint '" + path + "': " + std::strerror(errno);
}

std::uint64_t unix_ms_now() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

// A NUL-padded name field of `bytes` bytes (one left for the NUL).
void put_name(unsigned char* p, const std::string& name, std::size_t bytes) {
  std::memcpy(p, name.data(), std::min(name.size(), bytes - 1));
}
std::string get_name(const unsigned char* p, std::size_t bytes) {
  return std::string(reinterpret_cast<const char*>(p),
                     strnlen(reinterpret_cast<const char*>(p), bytes));
}

void encode_header(const RunIdentity& run, unsigned char* h) {
  std::memset(h, 0, FileJournal::kHeaderBytes);
  std::memcpy(h, kMagic, sizeof kMagic);
  put_u32(h + 8, FileJournal::kFormatVersion);
  put_u32(h + 12, static_cast<std::uint32_t>(run.n));
  put_u32(h + 16, static_cast<std::uint32_t>(run.split_rows));
  put_u32(h + 20, run.cross_check);
  put_u64(h + 24, run.classes);
  put_u64(h + 32, run.subproblems);
  put_name(h + 40, run.route, kRouteBytes);
  put_u32(h + 56, FileJournal::kRecordBytes);
  put_u32(h + 60, fnv1a32(h, 60));
  put_u32(h + 64, run.shard);
  put_u32(h + 68, run.shards);
  put_name(h + 72, run.kernel, kKernelBytes);
  put_u64(h + 88, unix_ms_now());
  put_u32(h + 124, fnv1a32(h + 64, 60));
}

void encode_record(const FinishedSubproblem& f, unsigned char* r) {
  put_u64(r, f.index);
  put_u64(r + 8, f.tally.solutions);
  put_u64(r + 16, f.tally.nodes);
  put_u32(r + 24, count_residues(f.tally.solutions));
  put_u32(r + 28, fnv1a32(r, 28));
}

// Puts the finished temporary file at `path` only if nothing is there yet: a run that loses
// the race to create a journal must not replace the winner's (whose records would then go to
// an unlinked file). 0, EEXIST when something is there, or another errno.
int publish_if_absent(const std::string& temp, const std::string& path) {
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
    forget_temp(temp);
    return 0;
  }
  if (errno != EINVAL && errno != ENOSYS) return errno;
  // A file system without RENAME_NOREPLACE: a hard link refuses an existing name as well.
  if (::link(temp.c_str(), path.c_str()) != 0) return errno;
  remove_temp(temp);
  return 0;
}

// A new journal appears whole and already locked, or not at all: its header is written to a
// temporary file, which is locked, synced and then given the journal's name. The descriptor
// (read-write, appending), or -1 when another run created the journal first.
Expected<int> create_journal(const std::string& path, const RunIdentity& run) {
  unsigned char h[FileJournal::kHeaderBytes];
  encode_header(run, h);
  int fd = -1;
  std::string tmp;
  if (const int failed = create_temp_beside(path, fd, tmp)) {
    errno = failed;
    return Error{sys_error("cannot create", path)};
  }
  auto fail = [&](const char* what) -> Expected<int> {
    const Error e{sys_error(what, path)};
    ::close(fd);
    remove_temp(tmp);
    return e;
  };
  if (!write_all(fd, h, sizeof h) || ::fsync(fd) != 0) return fail("cannot write");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 ||
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_APPEND) != 0)
    return fail("cannot lock");
  if (const int failed = publish_if_absent(tmp, path)) {
    if (failed != EEXIST) {
      errno = failed;
      return fail("cannot create");
    }
    ::close(fd);
    remove_temp(tmp);
    return -1;
  }
  return fd;
}

// Whether `fd` is the file that `path` names now.
bool still_named(int fd, const std::string& path) {
  struct stat held {
  }, named{};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 &&
         held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

// The journal begin() reads: its descriptor, locked and still the file its path names, and the
// errno that refused writing it (0: it is read and appended to; else only read).
struct OpenJournal {
  int fd = -1;
  int read_only = 0;
};

// Opens the checkpoint `path` for `run`, creating it (with run's header) where nothing is there,
// and locks it. Two runs appending to one journal would both skip nothing and double-count
// nothing, but they would waste each other's work: the second one is refused, also when both
// start at once on a journal that does not exist yet (a new journal is created locked). On an
// error (the whole message) nothing is left open.
Expected<OpenJournal> open_locked(const std::string& path, const RunIdentity& run) {
  // A checkpoint is read back and appended to, so it must be a regular file (or a new one);
  // a symbolic link leads to its target, which is created or appended to in place.
  const auto target = resolve_output(path);
  if (!target) return Error{"checkpoint " + target.error().message};
  if (target->kind == OutputKind::kStream)
    return Error{"checkpoint '" + path + "' is not a regular file"};
  OpenJournal out;
  if (target->kind == OutputKind::kNew) {
    auto made = create_journal(target->path, run);
    if (!made) return made.error();
    out.fd = *made;  // -1: another run created it first, and holds it or has finished with it
  }
  if (out.fd < 0) {
    out.fd = ::open(target->path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
    if (out.fd < 0 && (errno == EROFS || errno == EACCES)) {
      // Read-only storage, or a file without write permission: a complete journal still
      // answers, since nothing is left to append.
      out.read_only = errno;
      out.fd = ::open(target->path.c_str(), O_RDONLY | O_CLOEXEC);
    }
    if (out.fd < 0) return Error{sys_error("cannot open", path)};
    if (::flock(out.fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(out.fd);
      return Error{"checkpoint '" + path + "' is in use by another run"};
    }
  }
  if (!still_named(out.fd, target->path)) {  // replaced between the open and the lock
    ::close(out.fd);
    return Error{"checkpoint '" + path + "' was replaced by another program while it was opened"};
  }
  return out;
}

// The steps below answer an Error whose message is why the checkpoint cannot be used, to follow
// "checkpoint 'PATH' ".

// The whole file behind `fd`.
Expected<std::vector<unsigned char>> read_all(int fd) {
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  for (;;) {
    const ssize_t k = ::pread(fd, chunk, sizeof chunk, static_cast<off_t>(bytes.size()));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return Error{std::string("cannot be read: ") + std::strerror(errno)};
    if (k == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + k);
  }
  return bytes;
}

// What a journal's header says.
struct Header {
  RunIdentity run;
  std::uint32_t version = 0;
  std::size_t bytes = 0;  // the header's size: where the records start
  std::uint64_t created_ms = 0;
};

// The header at the start of `bytes`, once it checks out.
Expected<Header> decode_header(const std::vector<unsigned char>& bytes) {
  if (bytes.size() < FileJournal::kV3HeaderBytes || !std::equal(kMagic, kMagic + 8, bytes.begin()))
    return Error{"is not an nqcount checkpoint (no journal header)"};
  const unsigned char* h = bytes.data();
  if (fnv1a32(h, 60) != get_u32(h + 60)) return Error{"has a corrupt header (checksum)"};
  Header out;
  out.version = get_u32(h + 8);
  // Version 1: no residues; versions 1 and 2: no cross-check (the field was reserved, 0);
  // versions 1 to 3: a 64-byte header, no time marks.
  if (out.version < 1 || out.version > FileJournal::kFormatVersion)
    return Error{"has format version " + std::to_string(out.version) +
                 "; this nqcount reads versions 1 to " +
                 std::to_string(FileJournal::kFormatVersion)};
  if (out.version < 3 && get_u32(h + 20) != 0)
    return Error{"has a corrupt header (reserved field)"};
  if (get_u32(h + 56) != FileJournal::kRecordBytes)
    return Error{"has a corrupt header (record size)"};
  RunIdentity& run = out.run;
  run.n = static_cast<int>(get_u32(h + 12));
  run.split_rows = static_cast<int>(get_u32(h + 16));
  run.classes = get_u64(h + 24);
  run.subproblems = get_u64(h + 32);
  run.route = get_name(h + 40, kRouteBytes);
  run.cross_check = get_u32(h + 20);
  out.bytes = FileJournal::kV3HeaderBytes;
  if (out.version >= 4) {
    out.bytes = FileJournal::kHeaderBytes;
    if (bytes.size() < out.bytes) return Error{"has a truncated header"};
    if (fnv1a32(h + 64, 60) != get_u32(h + 124))
      return Error{"has a corrupt header (shard fields' checksum)"};
    run.shard = get_u32(h + 64);
    run.shards = get_u32(h + 68);
    run.kernel = get_name(h + 72, kKernelBytes);
    out.created_ms = get_u64(h + 88);
    if (run.shards > 0 && run.shard >= run.shards)
      return Error{"has a corrupt header (shard " + std::to_string(run.shard) + " of " +
                   std::to_string(run.shards) + ")"};
  }
  return out;
}

// The journal's header, once it checks out and names `run`.
Expected<Header> check_header(const std::vector<unsigned char>& bytes, const RunIdentity& run) {
  auto header = decode_header(bytes);
  if (!header) return header.error();
  if (!(header->run == run))
    return Error{"belongs to another run (" + describe(header->run) + "); this run has " +
                 describe(run)};
  return header;
}

// The records after a checked header, as they are: every one must check out, except a torn
// last one.
struct RawRecords {
  std::vector<FinishedSubproblem> records;
  std::vector<std::pair<std::uint64_t, std::size_t>> marks;  // JournalContents::marks
  std::size_t valid_end = 0;  // where the valid records end (before a torn last one, if any)
};

Expected<RawRecords> parse_records(const std::vector<unsigned char>& bytes, const Header& header) {
  constexpr std::size_t kRecord = FileJournal::kRecordBytes;
  const std::size_t start = header.bytes;
  RawRecords out;
  const std::size_t body = bytes.size() - start;
  const std::size_t whole = body / kRecord;
  out.valid_end = start + whole * kRecord;
  for (std::size_t i = 0; i < whole; ++i) {
    const unsigned char* r = bytes.data() + start + i * kRecord;
    const bool last = i + 1 == whole && body % kRecord == 0;
    if (fnv1a32(r, 28) != get_u32(r + 28)) {
      if (last) {
        out.valid_end -= kRecord;
        break;
      }
      return Error{"is corrupt: record " + std::to_string(i + 1) + " of " + std::to_string(whole) +
                   " fails its checksum"};
    }
    FinishedSubproblem f{get_u64(r), {get_u64(r + 8), get_u64(r + 16)}};
    if (header.version >= 2 && get_u32(r + 24) != count_residues(f.tally.solutions))
      return Error{"is corrupt: record " + std::to_string(i + 1) + " (subproblem " +
                   std::to_string(f.index) + ") fails its check of the count mod " +
                   std::to_string(kResiduePrimes[0]) + " and " + std::to_string(kResiduePrimes[1])};
    if (header.version >= 4 && f.index == kTimeMark) {
      out.marks.emplace_back(f.tally.solutions, out.records.size());
      continue;
    }
    if (f.index >= header.run.subproblems)
      return Error{"is corrupt: record " + std::to_string(i + 1) + " names subproblem " +
                   std::to_string(f.index) + " of " + std::to_string(header.run.subproblems)};
    out.records.push_back(f);
  }
  return out;
}

// The journal's records, each subproblem once, and where the valid ones end (before a torn
// last record, if any). One subproblem recorded twice must have one count.
struct JournalRecords {
  std::vector<FinishedSubproblem> done;
  std::size_t valid_end = 0;
};

Expected<JournalRecords> read_records(const std::vector<unsigned char>& bytes,
                                      const Header& header) {
  auto raw = parse_records(bytes, header);
  if (!raw) return raw.error();
  JournalRecords out;
  out.valid_end = raw->valid_end;
  // A bit a planned subproblem (a cluster's finest cut plans tens of millions: a count each
  // took hundreds of MB to resume a journal of one record). A subproblem met again (a batch
  // counted again after a resume: rare) keeps its first record; the counts of its later ones
  // are checked against it in a second pass over what was kept.
  auto twice = [](std::uint64_t index) {
    return Error{"is corrupt: subproblem " + std::to_string(index) +
                 " is recorded twice with different counts"};
  };
  std::vector<std::uint64_t> seen((header.run.subproblems + 63) / 64);
  std::unordered_map<std::uint64_t, std::uint64_t> again;  // subproblem -> a later record's count
  for (const FinishedSubproblem& f : raw->records) {
    std::uint64_t& word = seen[f.index / 64];
    const std::uint64_t bit = std::uint64_t{1} << (f.index % 64);
    if (word & bit) {
      const auto [it, first] = again.try_emplace(f.index, f.tally.solutions);
      if (!first && it->second != f.tally.solutions) return twice(f.index);
      continue;
    }
    word |= bit;
    out.done.push_back(f);
  }
  if (!again.empty())
    for (const FinishedSubproblem& f : out.done)
      if (const auto it = again.find(f.index); it != again.end() && it->second != f.tally.solutions)
        return twice(f.index);
  return out;
}

// A torn final record, the file's bytes [valid_end, size): cut off, or left in place where the
// file cannot be written. The warning that says which (empty: nothing was torn).
Expected<std::string> repair_tail(int fd, std::size_t size, std::size_t valid_end, bool read_only,
                                  const std::string& path) {
  if (valid_end >= size) return std::string();
  if (read_only)
    return "checkpoint '" + path + "': a torn final record (" + std::to_string(size - valid_end) +
           " bytes) left in place: the file cannot be written";
  if (::ftruncate(fd, static_cast<off_t>(valid_end)) != 0)
    return Error{std::string("cannot be repaired: ") + std::strerror(errno)};
  return "checkpoint '" + path + "': dropped a torn final record (" +
         std::to_string(size - valid_end) + " bytes) left by an interrupted write";
}
}  // namespace

std::uint32_t count_residues(std::uint64_t solutions) {
  return static_cast<std::uint32_t>(solutions % kResiduePrimes[0]) << 16 |
         static_cast<std::uint32_t>(solutions % kResiduePrimes[1]);
}

std::uint32_t fnv1a32(const unsigned char* bytes, std::size_t size) {
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= 16777619u;
  }
  return h;
}

Expected<JournalContents> read_journal(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{sys_error("cannot open", path)};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{"checkpoint '" + path + "' is not a regular file"};
  }
  const auto bytes = read_all(fd);
  ::close(fd);
  auto refuse = [&](const std::string& why) { return Error{"checkpoint '" + path + "' " + why}; };
  if (!bytes) return refuse(bytes.error().message);
  const auto header = decode_header(*bytes);
  if (!header) return refuse(header.error().message);
  auto raw = parse_records(*bytes, *header);
  if (!raw) return refuse(raw.error().message);
  JournalContents out;
  out.path = path;
  out.run = header->run;
  out.version = header->version;
  out.created_ms = header->created_ms;
  out.records = std::move(raw.value().records);
  out.marks = std::move(raw.value().marks);
  out.torn_bytes = bytes->size() - raw->valid_end;
  return out;
}

std::uint64_t rowsplit_journal_tasks(const std::string& path, int n) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned char h[FileJournal::kHeaderBytes];
  std::size_t got = 0;
  while (got < sizeof h) {
    const ssize_t k = ::read(fd, h + got, sizeof h - got);
    if (k <= 0) break;
    got += static_cast<std::size_t>(k);
  }
  ::close(fd);
  if (got < sizeof h || !std::equal(kMagic, kMagic + 8, h) || fnv1a32(h, 60) != get_u32(h + 60))
    return 0;
  const std::string route(reinterpret_cast<const char*>(h + 40),
                          strnlen(reinterpret_cast<const char*>(h + 40), kRouteBytes));
  if (route != "rowsplit-rank" || get_u32(h + 12) != static_cast<std::uint32_t>(n)) return 0;
  return get_u64(h + 32);
}

std::string resume_cut_error(int n, std::uint64_t min_tasks, std::uint64_t journal_tasks,
                             const std::string& path) {
  if (journal_tasks == 0 || min_tasks == 0) return "";
  const std::uint64_t asked = rowsplit_tasks(n, min_tasks);
  if (asked == journal_tasks) return "";
  return "--tasks " + std::to_string(min_tasks) + " cuts the plan into " + std::to_string(asked) +
         " tasks, but the checkpoint '" + path + "' holds a count cut into " +
         std::to_string(journal_tasks) +
         ": a resumed count keeps its journal's cut; give the --tasks it was made with, or none";
}

RunIdentity run_identity(const Plan& plan, std::uint32_t cross_check) {
  // The row-split plan's record index is a task of Plan::block ranks: its own route, so that no
  // journal of the plan's earlier, materialised form is resumed as this one.
  return {plan.n,
          plan.split_rows,
          plan.classes,
          plan.size(),
          plan.rowsplit() ? "rowsplit-rank" : std::string(plan_kind_name(plan.kind)),
          cross_check};
}

std::string describe(const RunIdentity& run) {
  char tag[16];
  std::snprintf(tag, sizeof tag, "%08x", run.cross_check);
  return "n = " + std::to_string(run.n) + ", split depth " + std::to_string(run.split_rows) + ", " +
         std::to_string(run.classes) + " classes, " + std::to_string(run.subproblems) +
         " subproblems, " + run.route + " route, " +
         (run.cross_check ? "cross-check " + std::string(tag) + " (fraction and seed)"
                          : std::string("no cross-check")) +
         (run.shards ? ", shard " + std::to_string(run.shard) + "/" + std::to_string(run.shards)
                     : std::string());
}

ResumePoint resume_point(const Plan& plan, std::span<const FinishedSubproblem> finished) {
  ResumePoint r;
  std::vector<bool> done(plan.size(), false);
  for (const FinishedSubproblem& f : finished) {
    if (f.index >= done.size() || done[f.index]) continue;  // begin() has checked both
    done[f.index] = true;
    r.done.weighted += static_cast<u128>(plan.weight(f.index)) * f.tally.solutions;
    r.done.nodes += f.tally.nodes;
    r.done.subproblems += 1;
  }
  reserve_prefaulted(r.todo, done.size() - r.done.subproblems);
  for (std::size_t i = 0; i < done.size(); ++i)
    if (!done[i]) r.todo.push_back(i);
  return r;
}

FileJournal::FileJournal(std::string path, std::chrono::milliseconds flush_every)
    : path_(std::move(path)), flush_every_(flush_every) {}

FileJournal::~FileJournal() {
  (void)close();
}

Expected<std::vector<FinishedSubproblem>> FileJournal::begin(const RunIdentity& run) {
  if (fd_ >= 0) return Error{"checkpoint '" + path_ + "' is already open"};
  const auto opened = open_locked(path_, run);
  if (!opened) return opened.error();
  const int fd = opened->fd;
  auto refuse = [&](const std::string& why) -> Expected<std::vector<FinishedSubproblem>> {
    ::close(fd);
    return Error{"checkpoint '" + path_ + "' " + why};
  };
  const auto bytes = read_all(fd);
  if (!bytes) return refuse(bytes.error().message);
  const auto header = check_header(*bytes, run);
  if (!header) return refuse(header.error().message);
  auto records = read_records(*bytes, *header);
  if (!records) return refuse(records.error().message);
  std::vector<FinishedSubproblem>& done = records.value().done;
  if (opened->read_only && done.size() < run.subproblems)
    return refuse("cannot be written (" + std::string(std::strerror(opened->read_only)) +
                  "), and " + std::to_string(run.subproblems - done.size()) + " of its " +
                  std::to_string(run.subproblems) +
                  " subproblems are still to count: a resumed run appends to it");
  const auto warning =
      repair_tail(fd, bytes->size(), records->valid_end, opened->read_only != 0, path_);
  if (!warning) return refuse(warning.error().message);
  if (!warning->empty()) warnings_.push_back(*warning);
  fd_ = fd;
  version_ = header->version;
  stop_ = false;
  writer_ = std::thread([this] { writer_loop(); });
  return std::move(done);
}

void FileJournal::record(std::span<const FinishedSubproblem> finished) {
  unsigned char r[kRecordBytes];
  std::lock_guard lock(buffer_mu_);
  for (const FinishedSubproblem& f : finished) {
    encode_record(f, r);
    buffer_.insert(buffer_.end(), r, r + kRecordBytes);
  }
}

void FileJournal::writer_loop() {
  std::unique_lock lock(wake_mu_);
  while (!stop_) {
    wake_.wait_for(lock, flush_every_, [this] { return stop_; });
    if (stop_) break;
    lock.unlock();
    (void)flush();
    lock.lock();
  }
}

Expected<void> FileJournal::write_out(std::vector<unsigned char>& bytes) {
  // Called with write_mu_ held. One write() of whole records: only the tail can tear.
  if (!error_.empty()) return Error{error_};
  if (bytes.empty()) return {};
  if (version_ >= 4) {  // when these records were saved, for a campaign's rate
    unsigned char mark[kRecordBytes];
    encode_record({kTimeMark, {unix_ms_now(), 0}}, mark);
    bytes.insert(bytes.end(), mark, mark + kRecordBytes);
  }
  if (!write_all(fd_, bytes.data(), bytes.size()) || ::fdatasync(fd_) != 0) {
    error_ = sys_error("cannot write", path_);
    return Error{error_};
  }
  bytes.clear();
  return {};
}

Expected<void> FileJournal::flush() {
  std::lock_guard write_lock(write_mu_);
  if (fd_ < 0) return error_.empty() ? Expected<void>() : Expected<void>(Error{error_});
  std::vector<unsigned char> out;
  {
    std::lock_guard lock(buffer_mu_);
    out.swap(buffer_);
  }
  return write_out(out);
}

Expected<void> FileJournal::close() {
  {
    std::lock_guard lock(wake_mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (writer_.joinable()) writer_.join();
  auto flushed = flush();
  std::lock_guard write_lock(write_mu_);
  if (fd_ >= 0) {
    ::close(fd_);  // also releases the flock
    fd_ = -1;
  }
  return flushed;
}

void CollectingJournal::record(std::span<const FinishedSubproblem> finished) {
  std::lock_guard lock(mu_);
  records_.insert(records_.end(), finished.begin(), finished.end());
}

std::vector<FinishedSubproblem> CollectingJournal::take() {
  std::lock_guard lock(mu_);
  return std::exchange(records_, {});
}

}  // namespace nq
