// Running nqcount (or any command line) from a test as a user would: stdout captured, stderr
// in a file of this test process's own (ctest -j runs the cases of one program side by side,
// each in its own process), and the exit status.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace nq::test {

struct Outcome {
  int status;  // the exit status, or -1 if the command did not exit normally
  std::string out, err;
};

// Whether `part` occurs in `text`.
inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The temp folder of the test process `pid` (temp_folder below).
inline std::string temp_folder_of(pid_t pid) {
  return ::testing::TempDir() + "nq_" + std::to_string(pid);
}

// This test process's own folder in the test temp folder (ctest runs each case in a process of
// its own), made on first use and removed, with everything in it, when the process exits: a run
// of the suite leaves nothing behind. A forked child that asks gets a folder of its own, and
// never removes its parent's (a child that leaves with _exit keeps its own).
inline const std::string& temp_folder() {
  struct Folder {
    pid_t owner = ::getpid();
    std::string path = temp_folder_of(owner);
    Folder() {
      std::filesystem::remove_all(path);
      std::filesystem::create_directories(path);
    }
    ~Folder() {
      std::error_code ec;
      if (::getpid() == owner) std::filesystem::remove_all(path, ec);
    }
  };
  static std::mutex guard;
  static std::optional<Folder> folder;
  const std::lock_guard<std::mutex> lock(guard);
  if (!folder || folder->owner != ::getpid()) folder.emplace();
  return folder->path;
}

// A path in this process's temp folder; removed if it exists.
inline std::string temp_path(const std::string& name) {
  const std::string p = temp_folder() + "/" + name;
  std::filesystem::remove_all(p);
  return p;
}

// An empty folder in this process's temp folder.
inline std::string temp_dir(const std::string& name) {
  const std::string p = temp_path(name);
  std::filesystem::create_directories(p);
  return p;
}

// Writes an executable script at `path` (a stand-in for a program a test runs).
inline void write_executable(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

// Runs a shell command line; stdout and stderr apart. Safe to call from several threads at once.
inline Outcome shell(const std::string& command) {
  static std::atomic<int> calls{0};
  const std::string errfile = temp_path("stderr" + std::to_string(calls++) + ".txt");
  FILE* p = popen((command + " 2>" + errfile).c_str(), "r");
  std::string out;
  std::array<char, 65536> buf;
  while (std::size_t k = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), k);
  const int st = pclose(p);
  Outcome r{WIFEXITED(st) ? WEXITSTATUS(st) : -1, out, read_file(errfile)};
  std::filesystem::remove(errfile);
  return r;
}

inline Outcome nqcount(const std::string& args) {
  return shell(std::string(NQCOUNT_BIN) + " " + args);
}

// Put before a command line that a test expects to be refused (exit 2): in the sanitizer builds
// the program then skips LeakSanitizer's check at its exit (the Release build ignores it). That
// check scans the program's globals, 13 MB with the sanitizer's runtime, and doubled the cost
// of a start that ends in a refusal; a refused run ends where it is refused, so nothing it left
// can grow, and the paths it took before are those the accepted runs take, which keep the check.
inline constexpr const char* kRefusedStart =
    "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 ";

// Bad input: exit status 2, exactly one line on stderr, "nqcount: error: ...", and no output.
inline void expect_usage_error(const std::string& args) {
  const Outcome r = shell(kRefusedStart + std::string(NQCOUNT_BIN) + " " + args);
  EXPECT_EQ(r.status, 2) << args;
  EXPECT_EQ(r.err.rfind("nqcount: error: ", 0), 0u) << args << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  EXPECT_TRUE(r.out.empty()) << args;
}

// Lets the process `pid` run a tenth of the time (10 ms of every 100: SIGSTOP, SIGCONT) until
// `done()` holds, or `limit` has passed; it is left running. A run's checkpoints and progress
// lines come by the clock: throttled, it reaches one after a tenth of the work, so that it is
// still counting when the test's signal comes on any CPU, however fast, and the test spends a
// tenth of the CPU time waiting for it. Whether `done()` held.
template <class Done>
bool throttle_until(pid_t pid, Done done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kill(pid, SIGSTOP);
    std::this_thread::sleep_for(std::chrono::milliseconds(90));
    kill(pid, SIGCONT);
  }
  return true;
}

}  // namespace nq::test
