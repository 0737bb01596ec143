// base: strict decimals, the full write, and the output-path rule with its atomic
// temporary file (the CLI's writers and the checkpoint journal all go through these); the
// prefaulted reserve.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include "base/file_io.hpp"
#include "base/prefault.hpp"
#include "base/splitmix.hpp"
#include "base/types.hpp"
#include "tests/cli_runner.hpp"

namespace nq {
namespace {

namespace fs = std::filesystem;

TEST(ParseDecimal, DigitsOnlyNoLeadingZeroWithinTheBound) {
  std::uint64_t v = 7;
  EXPECT_TRUE(parse_decimal("0", v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(parse_decimal("18446744073709551615", v));  // 2^64 - 1
  EXPECT_EQ(v, ~std::uint64_t{0});
  EXPECT_TRUE(parse_decimal("32", v, 32));
  EXPECT_EQ(v, 32u);
  for (const char* bad :
       {"", "010", "0x8", " 5", "5 ", "+5", "-5", "2.0", "1e3", "5a", "18446744073709551616"}) {
    v = 7;
    EXPECT_FALSE(parse_decimal(bad, v)) << "'" << bad << "'";
    EXPECT_EQ(v, 7u) << "a refused text leaves the value alone: '" << bad << "'";
  }
  EXPECT_FALSE(parse_decimal("33", v, 32));
}

TEST(WriteAll, WritesEverythingAndReportsTheError) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const std::string text(10000, 'q');
  std::size_t written = 0;
  ASSERT_TRUE(write_all(pipe_fds[1], text.data(), text.size(), &written));
  EXPECT_EQ(written, text.size());
  std::string back(text.size(), '\0');
  std::size_t got = 0;
  while (got < back.size()) {
    const ssize_t k = ::read(pipe_fds[0], back.data() + got, back.size() - got);
    ASSERT_GT(k, 0);
    got += static_cast<std::size_t>(k);
  }
  EXPECT_EQ(back, text);
  ::close(pipe_fds[0]);  // no reader left: EPIPE (SIGPIPE ignored for the test)
  const auto old = ::signal(SIGPIPE, SIG_IGN);
  errno = 0;
  EXPECT_FALSE(write_all(pipe_fds[1], text.data(), text.size(), &written));
  EXPECT_EQ(errno, EPIPE);
  EXPECT_EQ(written, 0u);
  ::signal(SIGPIPE, old);
  ::close(pipe_fds[1]);
}

TEST(ResolveOutput, EachKindOfPathByTheRule) {
  const std::string dir = test::temp_dir("resolve");
  const std::string file = dir + "/file", link = dir + "/link", fifo = dir + "/fifo";
  EXPECT_EQ(resolve_output(dir + "/new")->kind, OutputKind::kNew);
  { std::ofstream(file) << "x"; }
  EXPECT_EQ(resolve_output(file)->kind, OutputKind::kRegular);
  fs::create_symlink(file, link);  // followed to its target; the link stays
  const auto through = resolve_output(link);
  ASSERT_TRUE(through.ok());
  EXPECT_EQ(through->kind, OutputKind::kRegular);
  EXPECT_EQ(fs::path(through->path), fs::canonical(file));
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(resolve_output(fifo)->kind, OutputKind::kStream);
  EXPECT_EQ(resolve_output("/dev/stdout")->kind, OutputKind::kStream);
  EXPECT_FALSE(resolve_output(dir).ok());  // a directory
  EXPECT_FALSE(resolve_output("").ok());
  fs::create_symlink(dir + "/nothing", dir + "/dangling");
  EXPECT_FALSE(resolve_output(dir + "/dangling").ok());
}

TEST(TempBeside, PublishedWholeKeepingTheModeOrNotAtAll) {
  const std::string dir = test::temp_dir("temp-beside");
  const std::string target = dir + "/out";
  { std::ofstream(target) << "old"; }
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  int fd = -1;
  std::string temp;
  ASSERT_EQ(create_temp_beside(target, fd, temp), 0);
  EXPECT_EQ(fs::path(temp).parent_path(), fs::path(dir));
  EXPECT_EQ(test::read_file(target), "old");  // untouched until published
  ASSERT_TRUE(write_all(fd, "new", 3));
  EXPECT_EQ(publish_temp(fd, temp, target), 0);
  EXPECT_EQ(test::read_file(target), "new");
  EXPECT_EQ(fs::status(target).permissions(), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_FALSE(fs::exists(temp));
  // A rename that fails (onto a directory) leaves the target and no temporary file.
  const std::string folder = dir + "/folder";
  fs::create_directories(folder + "/inside");
  ASSERT_EQ(create_temp_beside(folder, fd, temp), 0);
  EXPECT_NE(publish_temp(fd, temp, folder), 0);
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_TRUE(fs::is_directory(folder + "/inside"));
  EXPECT_NE(create_temp_beside(dir + "/missing/out", fd, temp), 0);
}

// Every temporary file not yet published or removed is known to the process, so that a program
// ending without unwinding (std::terminate, a second signal) removes it; a published one, or one
// given up, is no longer its to remove.
TEST(TempBeside, UnpublishedTemporaryFilesAreRemovedWhenTheProgramEndsAbnormally) {
  const std::string dir = test::temp_dir("unpublished");
  int fd = -1, kept_fd = -1;
  std::string temp, published;
  ASSERT_EQ(create_temp_beside(dir + "/a", fd, temp), 0);
  ASSERT_EQ(create_temp_beside(dir + "/b", kept_fd, published), 0);
  ASSERT_EQ(publish_temp(kept_fd, published, dir + "/b"), 0);
  std::string given_up;
  int given_up_fd = -1;
  ASSERT_EQ(create_temp_beside(dir + "/c", given_up_fd, given_up), 0);
  ::close(given_up_fd);
  remove_temp(given_up);
  { std::ofstream(given_up) << "someone else's file of that name, later"; }
  remove_unpublished_temps();
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_TRUE(fs::exists(dir + "/b"));
  EXPECT_TRUE(fs::exists(given_up));
  ::close(fd);
}

// A resource that ran out under a call is its Error (memory, a thread that cannot be started);
// anything else is not a resource and passes on as the exception it was.
TEST(ResourceError, MemoryAndThreadsBecomeErrorsAndTheRestPassesOn) {
  const auto fails_with = [](auto thrown) {
    return errors_as_values([&]() -> Expected<int> { throw thrown; });
  };
  const auto memory = fails_with(std::bad_alloc());
  ASSERT_FALSE(memory.ok());
  EXPECT_EQ(memory.error().message.rfind("out of memory", 0), 0u) << memory.error().message;
  const auto thread = fails_with(
      std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again)));
  ASSERT_FALSE(thread.ok());
  EXPECT_EQ(thread.error().message.rfind("cannot start a thread", 0), 0u);
  const auto tbb = fails_with(std::runtime_error("pthread_create has failed: Resource busy"));
  ASSERT_FALSE(tbb.ok());
  EXPECT_EQ(tbb.error().message.rfind("cannot start a thread", 0), 0u);
  EXPECT_THROW(fails_with(std::logic_error("a bug")), std::logic_error);
  EXPECT_THROW(fails_with(std::runtime_error("something else")), std::runtime_error);
  EXPECT_EQ(*errors_as_values([]() -> Expected<int> { return 7; }), 7);
}

// How many of the pages of [data, data + bytes) are mapped (mincore), whole pages only.
std::size_t resident_pages(const void* data, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
  if (end <= begin) return 0;
  std::vector<unsigned char> in((end - begin) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) != 0) return 0;
  std::size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

TEST(ReservePrefaulted, KeepsTheElementsAndMapsTheRoomAtOnce) {
  std::vector<std::uint64_t> v = {1, 2, 3};
  constexpr std::size_t kCount = 1 << 20;  // 8 MiB: memory of its own, never touched before
  reserve_prefaulted(v, kCount);
  EXPECT_GE(v.capacity(), kCount);
  EXPECT_EQ(v, (std::vector<std::uint64_t>{1, 2, 3}));
  const std::size_t pages =
      kCount * sizeof(std::uint64_t) / static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
#ifdef MADV_POPULATE_WRITE
  // Mapped before any element is written (a kernel older than 5.14 refuses the advice).
  void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(probe, MAP_FAILED);
  const bool supported = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(probe, 4096);
  if (!supported) GTEST_SKIP() << "MADV_POPULATE_WRITE is not supported by this kernel";
  EXPECT_GE(resident_pages(v.data(), kCount * sizeof(std::uint64_t)), pages - 1);
#else
  GTEST_SKIP() << "no MADV_POPULATE_WRITE";
#endif
}

// The reference sequence of splitmix64 from state 0 (its published first outputs), so that the
// seeded draws built on it stay the same on every platform and after any refactoring.
TEST(SplitMix64, ReferenceOutputsFromStateZero) {
  SplitMix64 g{0};
  EXPECT_EQ(g(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(g(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(g(), 0x06c45d188009454full);
  EXPECT_EQ(g.state, 3 * 0x9e3779b97f4a7c15ull);  // three steps of the gamma
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafull);
  static_assert(splitmix64(0x9e3779b97f4a7c15ull) == 0x6e789e6aa1b965f4ull);
}

}  // namespace
}  // namespace nq
