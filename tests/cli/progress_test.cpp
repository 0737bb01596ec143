// The progress line's text: percent weighted by estimated cost, ETA from this run's own pace.
#include "cli/io/progress.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <thread>

#include "base/types.hpp"
#include "tests/cli_runner.hpp"

namespace nq::cli {
namespace {

using nq::test::has;

TEST(Progress, PercentIsWeightedByCostNotBySubproblems) {
  ProgressReading p;
  p.subproblems_done = 90;  // 90% of the subproblems, but only a quarter of the cost
  p.subproblems_total = 100;
  p.cost_done = 250;
  p.cost_total = 1000;
  p.nodes_done = 5000;
  const std::string t = progress_text(p, 10.0);
  EXPECT_TRUE(has(t, " 25.0%")) << t;
  EXPECT_TRUE(has(t, "90/100 subproblems")) << t;
  EXPECT_TRUE(has(t, "elapsed 10s")) << t;
  EXPECT_TRUE(has(t, "ETA 30s")) << t;  // 250 in 10 s, 750 to go
  EXPECT_TRUE(has(t, "500 nodes/s")) << t;
}

TEST(Progress, EtaOfAResumedRunUsesOnlyItsOwnPace) {
  ProgressReading p;
  p.subproblems_total = 100;
  p.cost_total = 1000;
  p.cost_resumed = 600;  // found done in the checkpoint
  p.cost_done = 700;     // this run did 100 in 20 s; 300 are left
  const std::string t = progress_text(p, 20.0);
  EXPECT_TRUE(has(t, " 70.0%")) << t;
  EXPECT_TRUE(has(t, "ETA 1m00s")) << t;
}

TEST(Progress, NoEtaBeforeAnyWorkIsDone) {
  ProgressReading p;
  p.subproblems_total = 10;
  p.cost_total = 100;
  EXPECT_TRUE(has(progress_text(p, 3.0), "ETA ?"));
  EXPECT_TRUE(has(progress_text(p, 0.0), "  0.0%"));
}

TEST(Progress, WithoutCostsItFallsBackToSubproblems) {
  ProgressReading p;
  p.subproblems_done = 3;
  p.subproblems_total = 4;
  EXPECT_TRUE(has(progress_text(p, 1.0), " 75.0%"));
}

TEST(Progress, DurationsReadNaturally) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(59.4), "59s");
  EXPECT_EQ(format_duration(187), "3m07s");
  EXPECT_EQ(format_duration(2 * 3600 + 5 * 60 + 10), "2h05m");
  EXPECT_EQ(format_duration(3 * 86400 + 4 * 3600), "3d04h");
  EXPECT_EQ(format_duration(-1), "?");
  // Q(28) on a workstation: its ETA is in years, not "?".
  EXPECT_EQ(format_duration(183.0 * 365.25 * 86400), "183y");
  EXPECT_EQ(format_duration(2.5 * 365.25 * 86400), "2.5y");
}

// Progress into a file (stderr not a terminal, as under ctest): plain lines, no escape codes.
TEST(Progress, AFileGetsPlainLinesWithoutEscapeCodes) {
  ASSERT_FALSE(stderr_is_terminal()) << "run this test with stderr redirected";
  const std::string path = test::temp_path("progress");
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  dup2(fd, STDERR_FILENO);
  close(fd);
  {
    Monitor monitor;
    monitor.subproblems_total = 10;
    monitor.subproblems_done = 4;
    ProgressLine line(monitor, true, std::chrono::milliseconds(0));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  EXPECT_TRUE(has(text, "4/10 subproblems")) << text;
  EXPECT_EQ(text.find('\033'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
}

}  // namespace
}  // namespace nq::cli
