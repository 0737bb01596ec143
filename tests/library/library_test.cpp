// The library as a user sees it: only <nqcount/nqcount.hpp> (the staged, installed headers),
// linked against libnqcount. Every bad use is an nq::Error naming the bad value, never a crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <nqcount/nqcount.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("nq_library_test_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

nq::CountConfig board(int n) {
  nq::CountConfig config;
  config.n = n;
  config.threads = 2;
  return config;
}

// The message of the error count() returns for `config` ("" when it succeeds).
std::string count_error(const nq::CountConfig& config) {
  const auto r = nq::count(config);
  return r ? "" : r.error().message;
}

TEST(Library, CountsTwelveThroughTheUmbrellaHeader) {
  const nq::Expected<nq::CountResult> r = nq::count(board(12));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(nq::to_string(r->orbits.total) + " " + nq::to_string(r->orbits.unique), "14200 1787");
  const auto known = nq::known_value(12);
  ASSERT_TRUE(known);
  EXPECT_EQ(r->orbits.total, nq::u128{known->total});
}

TEST(Library, EveryKernelByNameCountsTheSame) {
  for (const nq::Kernel& k : nq::all_kernels()) {
    if (!k.supported()) continue;
    nq::CountConfig config = board(10);
    config.kernel = std::string(k.name);
    const auto r = nq::count(config);
    ASSERT_TRUE(r) << k.name << ": " << r.error().message;
    EXPECT_EQ(r->orbits.total, nq::u128{724}) << k.name;
    EXPECT_EQ(r->kernel, k.name);
  }
}

TEST(Library, BadBoardSizesAreErrorsNamingTheValue) {
  EXPECT_NE(count_error(board(0)).find("got 0"), std::string::npos) << count_error(board(0));
  EXPECT_NE(count_error(board(-3)).find("got -3"), std::string::npos);
  EXPECT_NE(count_error(board(99)).find("got 99"), std::string::npos) << count_error(board(99));
}

TEST(Library, BadThreadCountsAreErrorsNamingTheValue) {
  nq::CountConfig config = board(8);
  config.threads = -1;
  EXPECT_NE(count_error(config).find("got -1"), std::string::npos) << count_error(config);
  config.threads = nq::kMaxThreads + 1;
  const std::string many = std::to_string(nq::kMaxThreads + 1);
  EXPECT_NE(count_error(config).find("got " + many), std::string::npos) << count_error(config);
  nq::SolveConfig solve;
  solve.n = 100;
  solve.threads = nq::kMaxThreads + 1;
  const auto s = nq::solve(solve);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find(many), std::string::npos) << s.error().message;
}

TEST(Library, AnUnknownKernelIsAnErrorNamingIt) {
  nq::CountConfig config = board(8);
  config.kernel = "avx3";
  const std::string message = count_error(config);
  EXPECT_NE(message.find("'avx3'"), std::string::npos) << message;
  EXPECT_NE(message.find("scalar"), std::string::npos) << message;  // and what is allowed
}

TEST(Library, ACheckpointThatCannotBeWrittenIsAnErrorNamingIt) {
  const std::string dir = temp_dir("unwritable");
  nq::CountConfig config = board(10);
  config.checkpoint = dir + "/no/such/folder/run.ckpt";
  const std::string message = count_error(config);
  EXPECT_NE(message.find(config.checkpoint), std::string::npos) << message;
  config.checkpoint = dir;  // a folder, not a file
  EXPECT_NE(count_error(config).find(dir), std::string::npos) << count_error(config);
  config.checkpoint = dir + "/run.ckpt";
  config.checkpoint_every = 0;
  EXPECT_NE(count_error(config).find("got 0"), std::string::npos) << count_error(config);
  std::filesystem::remove_all(dir);
}

TEST(Library, ACheckpointIsWrittenAndAResumedRunCountsNothingAgain) {
  const std::string dir = temp_dir("checkpoint");
  nq::CountConfig config = board(12);
  config.checkpoint = dir + "/run.ckpt";
  const auto first = nq::count(config);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(std::filesystem::exists(config.checkpoint));
  EXPECT_EQ(first->subproblems_resumed, 0u);
  const auto again = nq::count(config);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->subproblems_resumed, again->subproblems);
  EXPECT_EQ(nq::to_string(again->orbits.total), "14200");
  config.n = 11;  // another run's checkpoint
  EXPECT_NE(count_error(config).find(config.checkpoint), std::string::npos) << count_error(config);
  std::filesystem::remove_all(dir);
}

// Two counts from two threads at once each give their own right answer.
TEST(Library, CountsFromTwoThreadsAtOnceAreBothRight) {
  // n = 13 by the backtracking search, n = 16 by the join.
  auto search = std::async(std::launch::async, [] { return nq::count(board(13)); });
  auto join = std::async(std::launch::async, [] { return nq::count(board(16)); });
  const auto a = search.get(), b = join.get();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(nq::to_string(a->orbits.total) + " " + nq::to_string(a->orbits.unique), "73712 9233");
  EXPECT_EQ(nq::to_string(b->orbits.total) + " " + nq::to_string(b->orbits.unique),
            "14772512 1846955");
}

// What a call writes on the process's standard error while `body` runs (the library must
// write nothing there: it answers with values).
template <class Body>
std::string stderr_of(Body body) {
  const std::string dir = temp_dir("stderr");
  const std::string file = dir + "/err";
  std::fflush(stderr);
  const int saved = ::dup(2);
  const int to = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ::dup2(to, 2);
  ::close(to);
  body();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string written;
  {
    std::ifstream in(file);
    written.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::filesystem::remove_all(dir);
  return written;
}

// A good guest of its host's TBB: a count sets nothing process-wide (the host's cap on TBB's
// threads reads the same before, during and after it), keeps within the host's own cap (and
// says how many threads it ran), writes nothing on the host's streams, and works from the
// host's parallel_for and from several host threads at once.
TEST(Library, ACountIsAGoodGuestOfItsHostsTbb) {
  using tbb::global_control;
  const std::size_t before = global_control::active_value(global_control::max_allowed_parallelism);
  std::atomic<bool> done{false};
  std::size_t changed = 0;
  auto counting = std::async(std::launch::async, [&] {
    nq::CountConfig c = board(15);
    c.threads = 0;  // every hardware thread
    const auto r = nq::count(c);
    done = true;
    return r;
  });
  while (!done)
    changed += global_control::active_value(global_control::max_allowed_parallelism) != before;
  ASSERT_TRUE(counting.get());
  EXPECT_EQ(changed, 0u);
  EXPECT_EQ(global_control::active_value(global_control::max_allowed_parallelism), before);

  const std::string said = stderr_of([] {
    global_control one(global_control::max_allowed_parallelism, 1);
    for (const int n : {10, 16}) {
      const auto r = nq::count(board(n));  // two threads asked, one allowed
      ASSERT_TRUE(r) << r.error().message;
      EXPECT_EQ(r->orbits.total, nq::u128{nq::known_value(n)->total});
      EXPECT_EQ(r->threads, 1) << n;
    }
    EXPECT_EQ(global_control::active_value(global_control::max_allowed_parallelism), 1u);
  });
  EXPECT_TRUE(said.empty()) << said;

  std::array<nq::u128, 6> in_loop{};
  tbb::parallel_for(0, static_cast<int>(in_loop.size()), [&](int i) {
    if (const auto r = nq::count(board(8 + i % 3)))
      in_loop[static_cast<std::size_t>(i)] = r->orbits.total;
  });
  for (std::size_t i = 0; i < in_loop.size(); ++i)
    EXPECT_EQ(in_loop[i], nq::u128{nq::known_value(static_cast<int>(8 + i % 3))->total}) << i;

  std::vector<std::future<nq::Expected<nq::CountResult>>> hosts;
  for (int h = 0; h < 4; ++h)
    hosts.push_back(std::async(std::launch::async, [h] { return nq::count(board(11 + h)); }));
  for (int h = 0; h < 4; ++h) {
    const auto r = hosts[static_cast<std::size_t>(h)].get();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->orbits.total, nq::u128{nq::known_value(11 + h)->total}) << 11 + h;
  }
}

TEST(Library, TheMonitorShowsProgressAndCancels) {
  nq::Monitor monitor;
  const auto r = nq::count(board(13), &monitor);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GT(monitor.subproblems_total.load(), 0u);
  EXPECT_EQ(monitor.subproblems_done.load(), monitor.subproblems_total.load());
  EXPECT_EQ(monitor.cost_done.load(), monitor.cost_total.load());

  // Cancelled from another thread while it runs: a cancelled result, partial counts.
  nq::Monitor stop;
  auto running = std::async(std::launch::async, [&] { return nq::count(board(18), &stop); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  stop.cancel = true;
  const auto cancelled = running.get();
  ASSERT_TRUE(cancelled) << cancelled.error().message;
  EXPECT_TRUE(cancelled->cancelled);
}

TEST(Library, SolvesAndVerifiesALargeBoard) {
  nq::SolveConfig config;
  config.n = 100'000;
  config.seed = 1;
  config.threads = 2;
  const auto r = nq::solve(config);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->status, nq::SolveStatus::found);
  ASSERT_EQ(r->solutions.size(), 1u);
  const nq::Permutation& p = r->solutions.front();
  EXPECT_TRUE(nq::verify_solution(p.data(), p.size()));
  nq::Permutation broken = p;
  std::swap(broken[0], broken[1]);
  std::swap(broken[1], broken[2]);
  std::string problem;
  EXPECT_FALSE(nq::verify_solution(broken.data(), broken.size(), false, &problem));
  EXPECT_FALSE(problem.empty());
}

TEST(Library, TheAlgebraOfASolution) {
  const nq::Perm p{1, 3, 0, 2};  // the 4-queens solution, 0-based rows by column
  ASSERT_TRUE(nq::is_solution(p));
  const nq::Perm canonical = nq::canonical_form(p);
  EXPECT_TRUE(nq::is_canonical(canonical));
  EXPECT_EQ(nq::canonical_form(nq::reverse(p)), canonical);  // one orbit
  EXPECT_EQ(nq::orbit_of(p).size, 2);
}

}  // namespace
