// `nqcount solve`: validate, call the engine, write the solutions. Everything the user can get
// wrong is checked before the search starts, so a bad option never costs a long run and never
// leaves a partial file.
#include "engine/solve/solve.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/threads.hpp"
#include "cli/commands/commands.hpp"
#include "cli/io/batch.hpp"
#include "cli/io/output.hpp"
#include "cli/io/output_file.hpp"
#include "cli/io/perm_text.hpp"
#include "cli/io/progress.hpp"
#include "cli/io/signal_scope.hpp"
#include "engine/count/memory.hpp"
#include "engine/solve/blnq.hpp"

namespace nq::cli {
namespace {

// Above this n a solution goes to a file (--output FILE) unless the user insists (--output -).
constexpr long long kStdoutMaxN = 10000;
constexpr long long kRecordSolutionMaxN = 10000;  // --json includes the solution up to here
constexpr long long kLargeWriteFromN = 1 << 20;   // a file from here on: write_large_solution

// Text of many numbers, formatted a megabyte at a time (n = 10^9 is about 10 GB of text).
class NumberWriter {
 public:
  explicit NumberWriter(FILE* f) : file_(f) { buffer_.resize(kSize + 64); }
  ~NumberWriter() { flush(); }
  void number(std::uint64_t v) {
    if (used_ + 24 > kSize) flush();
    used_ = static_cast<std::size_t>(
        std::to_chars(buffer_.data() + used_, buffer_.data() + used_ + 24, v).ptr - buffer_.data());
  }
  void text(const char* s) {
    for (; *s; ++s) {
      if (used_ + 1 > kSize) flush();
      buffer_[used_++] = *s;
    }
  }
  void flush() {
    if (used_) std::fwrite(buffer_.data(), 1, used_, file_);
    used_ = 0;
  }

 private:
  static constexpr std::size_t kSize = std::size_t{1} << 20;
  FILE* file_;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
};

// One large solution to a file, the text of perm, json and matrix alike: at n = 10^9 it is 10 GB,
// and written one megabyte at a time through stdio it took longer than the search. Here chunks
// of columns are formatted in parallel (a TBB pipeline) and written in order, in large writes.
// Where the file system allows, the file is opened O_DIRECT: the text goes from our buffer to
// the disk without filling the page cache (on this machine 10 GB of fresh page cache costs more
// than the disk itself, 0.4 against 0.8 GB/s measured with dd), and only the last partial block
// goes through the cache. Returns false, with errno set, when a write fails.
class LargeWriter {
 public:
  explicit LargeWriter(int fd) : fd_(fd) {
    const int flags = fcntl(fd_, F_GETFL);
    direct_ = flags >= 0 && fcntl(fd_, F_SETFL, flags | O_DIRECT) == 0;
    buffer_ = static_cast<char*>(std::aligned_alloc(kAlign, kBuffer + kAlign));
    if (!buffer_) throw std::bad_alloc();
  }
  ~LargeWriter() { std::free(buffer_); }
  LargeWriter(const LargeWriter&) = delete;
  LargeWriter& operator=(const LargeWriter&) = delete;

  bool append(const char* text, std::size_t size) {
    while (size > 0 && ok_) {
      const std::size_t take = std::min(size, kBuffer - used_);
      std::memcpy(buffer_ + used_, text, take);
      used_ += take;
      text += take;
      size -= take;
      if (used_ == kBuffer) ok_ = write_out(kBuffer);
    }
    return ok_;
  }
  // Writes what is left; the last partial block without O_DIRECT (it needs whole blocks).
  bool finish() {
    if (!ok_) return false;
    const std::size_t whole = direct_ ? used_ / kAlign * kAlign : used_;
    if (whole > 0 && !(ok_ = write_out(whole))) return false;
    if (used_ > 0) {
      const int flags = fcntl(fd_, F_GETFL);
      if (flags < 0 || fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) return ok_ = false;
      ok_ = write_all(buffer_, used_);
      used_ = 0;
    }
    return ok_;
  }
  int error() const { return error_ ? error_ : EIO; }

 private:
  static constexpr std::size_t kAlign = 4096;                   // O_DIRECT: block-aligned writes
  static constexpr std::size_t kBuffer = std::size_t{8} << 20;  // a multiple of kAlign
  bool write_all(const char* data, std::size_t size) {
    std::size_t done = 0;
    while (!nq::write_all(fd_, data, size, &done)) {
      if (errno != EINVAL || !direct_) {
        error_ = errno;
        return false;
      }
      direct_ = false;  // O_DIRECT accepted, then refused: go on without it
      const int flags = fcntl(fd_, F_GETFL);
      if (flags < 0 || fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) return false;
      data += done;
      size -= done;
    }
    return true;
  }
  // Writes buffer_[0, size) and keeps the rest at the front.
  bool write_out(std::size_t size) {
    if (!write_all(buffer_, size)) return false;
    std::memmove(buffer_, buffer_ + size, used_ - size);
    used_ -= size;
    return true;
  }
  int fd_;
  bool direct_ = false;
  bool ok_ = true;
  int error_ = 0;  // errno of the first failed write
  char* buffer_ = nullptr;
  std::size_t used_ = 0;
};

// The MatrixMarket header of a solution's Q-matrix (entry (row p(i), column i)).
std::string q_matrix_header(const SolveResult& r) {
  const auto n = static_cast<std::uint64_t>(r.n);
  return matrix_market_header(n, n, n,
                              r.modular_route.empty()
                                  ? "n-queens solution (Q-matrix): row p(i), column i"
                                  : "modular n-queens solution (Q-matrix): row p(i), column i; "
                                    "every cyclic column shift is again a solution");
}

// The text of one solution in `format` (perm, json, matrix): head, then columns [begin, end)
// appended to `out` by `columns`, then tail.
struct SolutionText {
  std::string head, tail;
  std::size_t max_column_chars = 0;  // the longest text one column can take
  void (*columns)(const Permutation& p, std::size_t begin, std::size_t end, char* out,
                  std::size_t& used) = nullptr;
};

// Columns begin..end of p as 1-based numbers, `separator` between them (SolutionText::columns).
template <char separator>
void numbers(const Permutation& p, std::size_t begin, std::size_t end, char* out,
             std::size_t& used) {
  for (std::size_t i = begin; i < end; ++i) {
    if (i) out[used++] = separator;
    used =
        static_cast<std::size_t>(std::to_chars(out + used, out + used + 10, p[i] + 1ULL).ptr - out);
  }
}

SolutionText solution_text(const std::string& format, const SolveResult& r) {
  SolutionText t;
  const std::string n = std::to_string(r.n);
  if (format == "perm") {
    t.tail = "\n";
    t.max_column_chars = 11;
    t.columns = &numbers<' '>;
  } else if (format == "json") {
    t.head = "{\"n\":" + n + ",\"solution\":[";
    t.tail = "]}\n";
    t.max_column_chars = 11;
    t.columns = &numbers<','>;
  } else {  // matrix
    t.head = q_matrix_header(r);
    t.max_column_chars = 22;
    t.columns = [](const Permutation& p, std::size_t begin, std::size_t end, char* out,
                   std::size_t& used) {
      for (std::size_t i = begin; i < end; ++i) {
        used = static_cast<std::size_t>(
            std::to_chars(out + used, out + used + 10, p[i] + 1ULL).ptr - out);
        out[used++] = ' ';
        used = static_cast<std::size_t>(std::to_chars(out + used, out + used + 10, i + 1ULL).ptr -
                                        out);
        out[used++] = '\n';
      }
    };
  }
  return t;
}

// Formats chunks of kColumnsPerChunk columns on `threads` threads and writes them in order.
// The chunk buffers are allocated once and reused (chunk k uses buffer k mod tokens: the last
// stage is serial and in order, so chunk k has left the pipeline before chunk k + tokens
// enters): fresh memory is expensive here, and a new buffer per chunk made the writer slower
// than the serial one it replaced. `stop` is asked before each chunk (a small part of a
// file whose whole takes seconds at large n); `columns_done` counts the columns
// written, for the progress line. Returns 0, -1 when `stop` ended it, or the errno of the write
// that failed.
int write_large_solution(int fd, const std::string& format, const SolveResult& r, int threads,
                         const std::function<bool()>& stop,
                         std::atomic<std::uint64_t>& columns_done) {
  constexpr std::size_t kColumnsPerChunk = std::size_t{1} << 18;
  const Permutation& p = r.solutions.front();
  const SolutionText text = solution_text(format, r);
  LargeWriter out(fd);
  bool ok = out.append(text.head.data(), text.head.size());
  tbb::task_arena arena(resolve_threads(threads));
  const auto tokens = static_cast<std::size_t>(2 * arena.max_concurrency() + 2);
  const std::size_t capacity = kColumnsPerChunk * text.max_column_chars;
  std::vector<std::unique_ptr<char[]>> buffers(tokens);
  for (auto& b : buffers) b.reset(new char[capacity]);  // not zeroed: written before read
  struct Chunk {
    std::size_t begin = 0, end = 0, used = 0;
    char* text = nullptr;
  };
  const std::size_t chunks = (p.size() + kColumnsPerChunk - 1) / kColumnsPerChunk;
  std::size_t next = 0;
  bool stopped = false;
  arena.execute([&] {
    tbb::parallel_pipeline(
        tokens,
        tbb::make_filter<void, Chunk>(tbb::filter_mode::serial_in_order, [&](tbb::flow_control&
                                                                                 control) {
          Chunk chunk;
          if (next == chunks || !ok || stopped) {
            control.stop();
            return chunk;
          }
          if (stop()) {
            stopped = true;
            control.stop();
            return chunk;
          }
          chunk.begin = next * kColumnsPerChunk;
          chunk.end = std::min(p.size(), chunk.begin + kColumnsPerChunk);
          chunk.text = buffers[next % tokens].get();
          ++next;
          return chunk;
        }) & tbb::make_filter<Chunk, Chunk>(tbb::filter_mode::parallel, [&](Chunk chunk) {
          text.columns(p, chunk.begin, chunk.end, chunk.text, chunk.used);
          return chunk;
        }) & tbb::make_filter<Chunk, void>(tbb::filter_mode::serial_in_order, [&](Chunk chunk) {
          ok = ok && out.append(chunk.text, chunk.used);
          columns_done.store(chunk.end, std::memory_order_relaxed);
        }));
  });
  if (stopped) return -1;
  ok = ok && out.append(text.tail.data(), text.tail.size());
  return out.finish() && ok ? 0 : out.error();
}

void write_perm(NumberWriter& w, const Permutation& p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (i) w.text(" ");
    w.number(p[i] + 1ULL);
  }
  w.text("\n");
}

void write_json_array(NumberWriter& w, const Permutation& p) {
  w.text("[");
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (i) w.text(",");
    w.number(p[i] + 1ULL);
  }
  w.text("]");
}

void write_solutions(FILE* f, const std::string& format, const SolveResult& r, bool many) {
  NumberWriter w(f);
  if (format == "perm") {
    for (const auto& p : r.solutions) write_perm(w, p);
  } else if (format == "board") {
    std::string text;  // the one board format (cli/io/perm_text.hpp), as list writes it
    for (std::size_t k = 0; k < r.solutions.size(); ++k) {
      text.clear();
      if (k) text += '\n';
      append_board(text, r.solutions[k].data(), r.solutions[k].size());
      w.text(text.c_str());
    }
  } else if (format == "json") {
    w.text("{\"n\":");
    w.number(static_cast<std::uint64_t>(r.n));
    if (many) {
      w.text(",\"solutions\":[");
      for (std::size_t k = 0; k < r.solutions.size(); ++k) {
        if (k) w.text(",");
        write_json_array(w, r.solutions[k]);
      }
      w.text("]}\n");
    } else {
      w.text(",\"solution\":");
      write_json_array(w, r.solutions.front());
      w.text("}\n");
    }
  } else {  // matrix: the Q-matrix, entry (row p_i, column i), MatrixMarket coordinate pattern
    const auto& p = r.solutions.front();
    w.text(q_matrix_header(r).c_str());
    for (std::size_t i = 0; i < p.size(); ++i) {
      w.number(p[i] + 1ULL);
      w.text(" ");
      w.number(i + 1ULL);
      w.text("\n");
    }
  }
}

nlohmann::json record(const SolveResult& r, bool with_solution, const std::string& output) {
  nlohmann::json j;
  j["n"] = r.n;
  j["method"] = solve_method_name(r.method);
  j["seed"] = r.seed;
  j["threads"] = r.threads;
  j["restarts"] = r.restarts;
  j["seconds"] = r.seconds;
  j["verified"] = r.verified;
  j["memory_estimate_bytes"] = r.memory_estimate;
  if (!r.modular_route.empty()) j["modular"] = r.modular_route;
  if (with_solution) {
    auto array = [](const Permutation& p) {
      nlohmann::json a = nlohmann::json::array();
      for (std::uint32_t v : p) a.push_back(v + 1ULL);
      return a;
    };
    if (r.solutions.size() == 1) {
      j["solution"] = array(r.solutions.front());
    } else {
      j["solutions"] = nlohmann::json::array();
      for (const auto& p : r.solutions) j["solutions"].push_back(array(p));
    }
  }
  if (!output.empty() && output != "-") j["output"] = output;
  return j;
}

std::uint64_t draw_seed() {
  std::random_device device;
  const std::uint64_t hi = device(), lo = device();
  return ((hi << 32) | lo) & 0x7fffffffffffffffULL;
}

// The run record's "status" of a run that did not find what was asked ("no solution" as in a
// batch record).
const char* failure_status(SolveStatus status) {
  switch (status) {
    case SolveStatus::no_solution:
      return "no solution";
    case SolveStatus::time_limit:
      return "time limit";
    case SolveStatus::exhausted:
      return "exhausted";
    case SolveStatus::cancelled:
      return "cancelled";
    case SolveStatus::restart_limit:
      return "restart limit";
    case SolveStatus::found:
      break;
  }
  return "found";
}

}  // namespace

int report_solve_failure(const SolveResult& r, const SolveConfig& c,
                         const std::string& batch_where) {
  const std::string where = one_line(batch_where);  // the --batch file's name, as typed
  switch (r.status) {
    case SolveStatus::found:
      break;
    case SolveStatus::no_solution:
      std::cerr << "nqcount: " << where << "n = " << r.n << " has no solution\n";
      return 1;
    case SolveStatus::time_limit:
      std::cerr << "nqcount: " << where << "time limit of " << seconds_text(c.time_limit_seconds)
                << " s reached before "
                << (c.solutions > 1 ? "all solutions were" : "a solution was")
                << " found (n = " << r.n << "); nothing written\n";
      return 1;
    case SolveStatus::exhausted:
      std::cerr << "nqcount: " << where << "found only " << r.solutions.size()
                << " distinct solutions for n = " << r.n << " (asked for " << c.solutions
                << "); the search stopped finding new ones; nothing written\n";
      return 1;
    case SolveStatus::cancelled:
      std::cerr << "nqcount: interrupted; nothing written\n";
      return SignalScope::exit_status();
    case SolveStatus::restart_limit:
      std::cerr << "nqcount: " << where << "gave up after "
                << (c.max_restarts ? c.max_restarts : kDefaultMaxRestarts)
                << " restarts in a row without a solution (n = " << r.n << ", --method "
                << solve_method_name(r.method)
                << (c.max_tries > 0 ? ", --max-tries " + std::to_string(c.max_tries) : "")
                << "; --max-restarts raises the limit); nothing written\n";
      return 1;
  }
  if (!r.verified) {
    std::cerr << "nqcount: " << where << "internal error: a solution for n = " << r.n
              << " failed verification; nothing written\n";
    return 1;
  }
  return 0;
}

std::optional<std::uint64_t> solve_memory_limit(const SolveArgs& args) {
  if (args.memory_limit.empty()) return default_memory_limit();
  const std::optional<std::uint64_t> limit = parse_byte_size(args.memory_limit);
  if (!limit)
    print_error("--memory-limit: '" + args.memory_limit +
                "' is not a size (expected bytes, or a number with K, M, G or T, e.g. 512M, 8G, "
                "1.5G)");
  return limit;
}

bool write_stopped(const Monitor& monitor, const SolveConfig& config,
                   std::chrono::steady_clock::time_point start) {
  if (monitor.cancel.load(std::memory_order_relaxed)) return true;
  return config.time_limit_seconds > 0 &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >=
             config.time_limit_seconds;
}

int report_write_stopped(const Monitor& monitor, const SolveConfig& config, std::int64_t n) {
  if (monitor.cancel.load()) {
    std::cerr << "nqcount: interrupted; nothing written\n";
    return SignalScope::exit_status();
  }
  std::cerr << "nqcount: time limit of " << seconds_text(config.time_limit_seconds)
            << " s reached while writing (n = " << n << "); nothing written\n";
  return 1;
}

namespace {

// The last line of a batch with bad entries: how many, on which lines, and what became of the
// rest (`solved` good entries, written).
// A batch that `ended` early (a time limit, a restart limit) wrote nothing.
std::string batch_summary(const std::string& name, const Batch& b, std::size_t solved = 0,
                          bool ended = false) {
  constexpr std::size_t kLinesShown = 10;
  std::string lines;
  std::size_t shown = 0, last = 0;
  for (const BatchEntryError& e : b.errors) {
    if (e.line == last) continue;  // two bad entries on one line name it once
    last = e.line;
    if (shown++ == kLinesShown) {
      lines += ", ...";
      break;
    }
    lines += (lines.empty() ? "" : ", ") + std::to_string(e.line);
  }
  const std::size_t bad = b.errors.size();
  const std::string head = "--batch '" + name + "': ";
  if (ended)
    return head + std::to_string(bad) + " of " + std::to_string(bad + solved) + " entries " +
           (bad == 1 ? "is not a board size" : "are not board sizes") + " (line" +
           (shown > 1 ? "s " : " ") + lines + "), and the batch ended before the other " +
           std::to_string(solved) + " were solved; nothing written";
  if (solved == 0)
    return head +
           (bad == 1 ? "its one entry is not"
                     : "none of its " + std::to_string(bad) + " entries is") +
           " a board size (line" + (shown > 1 ? "s " : " ") + lines + "); nothing written";
  return head + std::to_string(bad) + " of " + std::to_string(bad + solved) + " entries " +
         (bad == 1 ? "is not a board size" : "are not board sizes") + " (line" +
         (shown > 1 ? "s " : " ") + lines + "), skipped; the other " + std::to_string(solved) +
         (solved == 1 ? " was" : " were") + " solved and written";
}

}  // namespace

void write_solution_list(std::FILE* f, const std::string& format, std::int64_t n,
                         std::vector<Permutation> solutions) {
  SolveResult r;
  r.n = n;
  r.solutions = std::move(solutions);
  write_solutions(f, format, r, true);
}

namespace {

// solve --runs K with a restarting method: K whole solves from their own seeds, and how many
// found a solution at their first attempt (Candia & Astudillo's Table 4 for Gu's algorithm).
// Statistics only: no solution is written.
int run_solve_runs(const SolveArgs& args, SolveConfig config) {
  if (args.n == 0 || !args.batch.empty() || args.solutions != 1 || !args.output.empty() ||
      args.given.count("--format")) {
    print_error("--runs K with --method " + args.method +
                " needs --n N and reports statistics only: --batch, --solutions, --output and "
                "--format do not apply");
    return 2;
  }
  config.n = args.n;
  Monitor monitor;
  SignalScope signals(monitor);
  const Expected<SolveRuns> out =
      solve_runs(config, static_cast<std::uint64_t>(args.runs), &monitor);
  if (!out.ok()) {
    print_error(out.error().message);
    return 2;
  }
  const SolveRuns& r = *out;
  if (r.status == SolveStatus::cancelled) {
    std::cerr << "nqcount: interrupted\n";
    return SignalScope::exit_status();
  }
  const std::size_t done = r.runs.size();
  if (args.json) {
    nlohmann::json per_run = nlohmann::json::array();
    for (std::size_t k = 0; k < done; ++k) {
      const SolveRun& run = r.runs[k];
      nlohmann::json one{{"run", k + 1},
                         {"seed", run.seed},
                         {"restarts", run.restarts},
                         {"first_attempt", run.first_attempt},
                         {"seconds", run.seconds}};
      if (run.status != SolveStatus::found) one["status"] = failure_status(run.status);
      per_run.push_back(one);
    }
    nlohmann::json j{{"n", r.n},
                     {"method", solve_method_name(r.method)},
                     {"seed", r.seed},
                     {"threads", r.threads},
                     {"runs", r.runs_asked},
                     {"runs_done", done},
                     {"per_run", per_run},
                     {"solved", r.solved},
                     {"first_attempt_successes", r.first_attempt_successes},
                     {"mean_restarts", r.mean_restarts},
                     {"seconds", r.seconds}};
    if (r.status == SolveStatus::time_limit) j["status"] = "time limit";
    std::cout << j.dump() << "\n";
  } else {
    std::string text = std::string(solve_method_name(r.method)) + " n = " + std::to_string(r.n) +
                       ", " + std::to_string(r.runs_asked) + " runs, seed " +
                       std::to_string(r.seed) + "\nrun  restarts  first attempt  seconds\n";
    for (std::size_t k = 0; k < done; ++k) {
      const SolveRun& run = r.runs[k];
      char line[160];
      std::snprintf(line, sizeof line, "%-4zu %8llu  %-13s  %.4f%s\n", k + 1,
                    static_cast<unsigned long long>(run.restarts), run.first_attempt ? "yes" : "no",
                    run.seconds,
                    run.status == SolveStatus::found
                        ? ""
                        : (std::string("  (") + failure_status(run.status) + ")").c_str());
      text += line;
    }
    text += "first-attempt successes " + std::to_string(r.first_attempt_successes) + "/" +
            std::to_string(done) + ", solved " + std::to_string(r.solved) + "/" +
            std::to_string(done) + ", mean restarts " + fixed(r.mean_restarts, 2) + "\n";
    std::cout << text;
  }
  if (r.status == SolveStatus::time_limit) {
    std::cerr << "nqcount: time limit of " << seconds_text(args.time_limit) << " s reached with "
              << done << " of " << r.runs_asked << " runs done (n = " << r.n << ")\n";
    return 1;
  }
  return 0;
}

// The sizes a run solves: --n's, or the --batch file's good entries (its bad ones in
// `batch_file`), checked against the format, the output and --modular. 0, or the exit status
// after its message.
int read_sizes(const SolveArgs& args, const SolveConfig& config, Batch& batch_file,
               std::vector<long long>& sizes) {
  if (!args.batch.empty()) {
    std::string error;
    if (!read_batch(args.batch, batch_file, error)) {
      print_error(error);
      return 2;
    }
    if (args.format != "perm" || args.solutions != 1) {
      print_error(
          "--batch writes one solution line per n: use it with --format perm and "
          "without --solutions");
      return 2;
    }
    if (batch_file.sizes.empty()) {  // nothing to solve: no output file
      for (const BatchEntryError& e : batch_file.errors) print_error(e.message);
      print_error(batch_summary(args.batch, batch_file));
      return 2;
    }
    sizes = std::move(batch_file.sizes);
  } else {
    sizes.push_back(args.n);
  }
  const long long largest = *std::max_element(sizes.begin(), sizes.end());
  if (args.format == "board" && largest > kBoardMaxN) {
    print_error("--format board draws at most n = " + std::to_string(kBoardMaxN) +
                " (n = " + std::to_string(largest) + "); use perm, json or matrix");
    return 2;
  }
  if (args.format == "matrix" && args.solutions > 1) {
    print_error("--format matrix holds one solution; drop --solutions or use perm or json");
    return 2;
  }
  if (args.output.empty() && largest > kStdoutMaxN) {
    print_error("n = " + std::to_string(largest) + " is above " + std::to_string(kStdoutMaxN) +
                ": give --output FILE for the solution (or --output - to send it to stdout)");
    return 2;
  }
  if (config.modular)
    for (long long n : sizes)
      if (n % 2 == 0 || n % 3 == 0) {
        print_error(
            "--modular needs gcd(n, 6) = 1: no modular (toroidal) solution exists for n "
            "divisible by 2 or 3, such as n = " +
            std::to_string(n));
        return 2;
      }
  return 0;
}

// A run's sizes and their results, once per distinct size: a solve depends on its n and the
// seed only (not on the thread count or timing), so a size repeated in a batch repeats its first
// result, and a batch of many sizes costs the distinct ones. `solved[k]` indexes sizes[k]'s
// result.
struct Solved {
  std::vector<long long> sizes;
  Batch batch_file;  // a bad entry is reported and skipped; the good ones are solved
  std::vector<SolveResult> results;
  std::vector<std::size_t> solved;
  std::unordered_map<long long, std::size_t> result_of;

  // The batch's record: every size solved so far, in order (with `with_solutions`, each
  // solution up to kRecordSolutionMaxN), the bad entries, the output.
  nlohmann::json batch_record(const SolveArgs& args, bool with_solutions) const {
    nlohmann::json all = nlohmann::json::array();
    for (const std::size_t k : solved) {
      const SolveResult& r = results[k];
      nlohmann::json one =
          record(r, with_solutions && r.n <= kRecordSolutionMaxN && !r.solutions.empty(), "");
      if (r.status == SolveStatus::no_solution) {
        one["status"] = "no solution";
        one.erase("verified");
      }
      all.push_back(one);
    }
    nlohmann::json j{{"batch", args.batch}, {"runs", all}};
    if (!batch_file.errors.empty()) {
      nlohmann::json bad = nlohmann::json::array();
      for (const BatchEntryError& e : batch_file.errors)
        bad.push_back({{"line", e.line}, {"message", e.message}});
      j["bad_entries"] = bad;
    }
    return j;
  }
};

// What a size that could not be solved prints: the record that says why (a failed batch's
// record holds the sizes solved before it, without their solutions, and the failed one), and
// its exit status.
int report_failed_size(const SolveArgs& args, const Solved& s, const SolveResult& out, int status) {
  const bool batch = !args.batch.empty();
  nlohmann::json failed = record(out, false, "");
  failed["status"] = failure_status(out.status);
  if (out.status == SolveStatus::no_solution) failed.erase("verified");
  if (args.json) {
    if (batch) {
      nlohmann::json j = s.batch_record(args, false);
      j["runs"].push_back(failed);
      j["status"] = failure_status(out.status);
      std::cout << j.dump() << "\n";
    } else {
      std::cout << failed.dump() << "\n";
    }
  }
  // Bad entries keep their status 2 (bad input) over a search's limit; a signal's status stays
  // what a scheduler expects.
  if (!s.batch_file.errors.empty() && out.status != SolveStatus::cancelled) {
    std::cout.flush();
    print_error(batch_summary(args.batch, s.batch_file, s.sizes.size(), true));
    return 2;
  }
  return status;
}

// Solves every distinct size in turn, on one arena for the whole batch. 0, or the exit status
// after its message.
int solve_sizes(const SolveArgs& args, SolveConfig config, Monitor& monitor,
                std::chrono::steady_clock::time_point start, Solved& s) {
  const bool batch = !args.batch.empty();
  SolveThreads threads(config.threads);
  for (std::size_t k = 0; k < s.sizes.size(); ++k) {
    if (const auto it = s.result_of.find(s.sizes[k]); it != s.result_of.end()) {
      s.solved.push_back(it->second);
      continue;
    }
    config.n = s.sizes[k];
    if (config.time_limit_seconds > 0) {  // the limit is the whole run's, as writing's
      config.time_limit_seconds = std::max(
          1e-9,
          args.time_limit -
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    Expected<SolveResult> out = solve(config, &monitor, threads);
    const std::string where =
        batch ? args.batch + ": n = " + std::to_string(s.sizes[k]) + ": " : "";
    if (!out.ok()) {
      print_error(where + out.error().message);
      return 2;
    }
    // No solution (n = 2, 3) is a record, not the batch's end.
    if (!(batch && out->status == SolveStatus::no_solution)) {
      SolveConfig as_given = config;
      as_given.time_limit_seconds = args.time_limit;
      if (const int status = report_solve_failure(*out, as_given, where); status != 0)
        return report_failed_size(args, s, *out, status);
    }
    s.result_of.emplace(s.sizes[k], s.results.size());
    s.solved.push_back(s.results.size());
    s.results.push_back(std::move(out.value()));
  }
  return 0;
}

// Writes the solutions in the format asked for: a batch's one line a size; a large solution to
// a file with a progress line (a signal or the time limit ends it with nothing written); else
// through stdio. 0, or the exit status after its message.
int write_formatted(const SolveArgs& args, const SolveConfig& config, const Solved& s,
                    OutputFile& sink, const Monitor& monitor,
                    std::chrono::steady_clock::time_point start) {
  if (!args.batch.empty()) {
    NumberWriter w(sink.stdio());
    for (const std::size_t k : s.solved) {
      const SolveResult& r = s.results[k];
      if (r.status == SolveStatus::no_solution)
        w.text("no solution\n");
      else
        write_perm(w, r.solutions.front());
    }
    return 0;
  }
  const SolveResult& first = s.results.front();
  if (sink.is_stdout() || args.solutions != 1 || args.format == "board" ||
      first.n < kLargeWriteFromN) {
    write_solutions(sink.stdio(), args.format, first, args.solutions > 1);
    return 0;
  }
  SolveConfig as_given = config;
  as_given.time_limit_seconds = args.time_limit;
  std::atomic<std::uint64_t> columns{0};
  const auto total = static_cast<std::uint64_t>(first.n);
  int failed = 0;
  {
    ProgressLine line(
        [&](double elapsed) {
          return writing_text("the solution", "columns", columns.load(), total, elapsed);
        },
        stderr_is_terminal());
    failed = write_large_solution(
        sink.fd(), args.format, first, args.threads,
        [&] { return write_stopped(monitor, as_given, start); }, columns);
  }
  if (failed == -1) return report_write_stopped(monitor, as_given, first.n);
  // A FIFO whose reader went away (EPIPE) ends the output, as for every stream.
  if (failed != 0 && failed != EPIPE) {
    print_error("cannot write --output '" + args.output + "': " + std::strerror(failed));
    return 2;
  }
  return 0;
}

// The checks of options that belong to other routes, before any is taken. Empty when none
// fails.
std::string misplaced_option(const SolveArgs& args) {
  if (!args.budget.empty() || !args.budget_rule.empty())
    return "--budget and --budget-rule apply to --method blnq only";
  // --output - (or /dev/stdout) and the JSON record would share standard output.
  if (std::string bad = outputs_error({{"--output", args.output}}, args.json); !bad.empty())
    return bad;
  return "";
}

// The search's configuration from the arguments (the option table allows only known methods).
SolveConfig solve_config(const SolveArgs& args, std::uint64_t memory_limit) {
  SolveConfig config;
  parse_solve_method(args.method, config.method);
  config.seed = args.seed >= 0 ? static_cast<std::uint64_t>(args.seed) : draw_seed();
  config.threads = args.threads;
  config.solutions = args.solutions;
  config.modular = args.modular;
  config.max_tries = args.max_tries;
  config.max_restarts = static_cast<std::uint64_t>(args.max_restarts);
  config.time_limit_seconds = args.time_limit;
  config.memory_limit = memory_limit;
  return config;
}

}  // namespace

int run_solve(const SolveArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  if (args.method == kBlnqMethodName) {
    SolveArgs blnq = args;
    if (blnq.budget.empty()) blnq.budget = "n2";
    if (blnq.runs == 0) blnq.runs = 1;
    if (blnq.budget_rule.empty()) blnq.budget_rule = "consecutive";
    return run_solve_blnq(blnq);
  }
  if (const std::string bad = misplaced_option(args); !bad.empty()) {
    print_error(bad);
    return 2;
  }
  if (!args.ldpc.empty()) return run_solve_ldpc(args);
  const bool batch = !args.batch.empty();  // not with --n: the options table's rule
  if (!batch && args.n == 0) {
    print_error("solve needs --n N (or --batch FILE)");
    return 2;
  }
  const std::optional<std::uint64_t> memory_limit = solve_memory_limit(args);
  if (!memory_limit) return 2;
  const SolveConfig config = solve_config(args, *memory_limit);
  if (!(args.time_limit >= 0) || args.time_limit > 1e9) {
    print_error("--time-limit " + seconds_text(args.time_limit) +
                " is out of range; give seconds in 0..1e9 (0: no limit)");
    return 2;
  }
  if (args.max_tries > 0 && config.method != SolveMethod::swap) {
    print_error("--max-tries applies to --method swap only");
    return 2;
  }
  if (args.runs != 0) return run_solve_runs(args, config);
  if (args.json && args.output.empty() && args.given.count("--format")) {
    print_error(
        "--format applies to the solution written to --output; with --json and no --output "
        "stdout carries the JSON record (add --output FILE or drop --format)");
    return 2;
  }
  warn_if_oversubscribed(args.threads);
  Solved s;
  if (const int status = read_sizes(args, config, s.batch_file, s.sizes); status != 0)
    return status;
  // Solutions go to stdout, or to --output (base/file_io.hpp says how it is written).
  OutputFile sink(args.output.empty() ? "-" : args.output, "--output");
  std::string error;
  if (!sink.open(&error)) {
    print_error(error);
    return 2;
  }
  // The bad entries, each on its line, before the work; the summary after it.
  for (const BatchEntryError& e : s.batch_file.errors) print_error(e.message);
  Monitor monitor;
  SignalScope signals(monitor);
  if (const int status = solve_sizes(args, config, monitor, start, s); status != 0) return status;
  // With --json and no --output, stdout carries the record (which holds the solution).
  if (!(args.json && args.output.empty()))
    if (const int status = write_formatted(args, config, s, sink, monitor, start); status != 0)
      return status;
  if (!sink.commit(&error)) {
    print_error(error);
    return 2;
  }
  if (args.json) {
    if (batch) {
      nlohmann::json j = s.batch_record(args, true);
      if (!args.output.empty() && args.output != "-") j["output"] = args.output;
      std::cout << j.dump() << "\n";
    } else {
      const SolveResult& r = s.results.front();
      std::cout << record(r, r.n <= kRecordSolutionMaxN, args.output).dump() << "\n";
    }
  }
  if (!s.batch_file.errors.empty()) {
    std::cout.flush();  // the record first, then the line that says the batch had bad entries
    print_error(batch_summary(args.batch, s.batch_file, s.sizes.size()));
    return 2;
  }
  return 0;
}

}  // namespace nq::cli
