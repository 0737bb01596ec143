// The --task-stats profile (engine/count/task_stats.hpp): the file its writer formats and its
// reader takes back, strictly.
#include "engine/count/task_stats.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <queue>
#include <random>

#include "engine/count/dealer.hpp"
#include "engine/count/simulate.hpp"
#include "engine/count/src/layout.hpp"
#include "engine/count/topology.hpp"
#include "tests/cli_runner.hpp"

namespace nq {
namespace {

TEST(Simulator, ReadsTaskStatsAndRejectsOtherFiles) {
  const std::string path = test::temp_path("stats.csv");
  {
    std::ofstream f(path);
    f << "id,nodes,seconds,estimate\n1,10,0.5,7\n0,20,0.25,9\n";
  }
  const auto t = read_task_stats(path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].id, 0u);  // sorted by id
  EXPECT_EQ((*t)[0].nodes, 20u);
  EXPECT_DOUBLE_EQ((*t)[1].seconds, 0.5);
  EXPECT_FALSE((*t)[0].plan_order);  // a file from before the column: largest first
  {
    std::ofstream f(path);
    f << "id,nodes,seconds,estimate,plan_order\n0,10,0.5,7,1\n1,20,0.25,9,1\n";
  }
  const auto ordered = read_task_stats(path);
  ASSERT_TRUE(ordered.ok()) << ordered.error().message;
  EXPECT_TRUE((*ordered)[0].plan_order);
  EXPECT_TRUE((*ordered)[1].plan_order);
  for (const char* bad :
       {"", "id,nodes\n1,2\n", "id,nodes,seconds,estimate\n",
        "id,nodes,seconds,estimate\n1,2,x,4\n", "id,nodes,seconds,estimate\n1,2,-3,4\n",
        "id,nodes,seconds,estimate,plan_order\n1,2,3,4\n",
        "id,nodes,seconds,estimate,plan_order\n1,2,3,4,2\n"}) {
    std::ofstream(path) << bad;
    EXPECT_FALSE(read_task_stats(path).ok()) << bad;
  }
  std::remove(path.c_str());
  EXPECT_FALSE(read_task_stats(path).ok());
}

TEST(Simulator, ReadsBackTheTaskStatsItsWriterFormats) {
  std::vector<TaskStat> tasks(3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    tasks[i].id = 2 - i;
    tasks[i].nodes = 1000 + i;
    tasks[i].seconds = 0.125 * (i + 1);
    tasks[i].estimate = 7.5 * i;
    tasks[i].plan_order = true;
    tasks[i].resumed = i == 1;
  }
  const std::string text = format_task_stats(tasks);
  EXPECT_EQ(text.rfind(std::string(kTaskStatsHeader) + "\n", 0), 0u) << text;
  const std::string path = test::temp_path("stats_rt");
  std::ofstream(path) << text;
  const auto back = read_task_stats(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), 3u);
  for (const TaskStat& t : *back) {
    const TaskStat& want = tasks[2 - t.id];
    EXPECT_EQ(t.nodes, want.nodes);
    EXPECT_DOUBLE_EQ(t.seconds, want.seconds);
    EXPECT_DOUBLE_EQ(t.estimate, want.estimate);
    EXPECT_TRUE(t.plan_order);
    EXPECT_EQ(t.resumed, want.resumed);
  }
  // The replay's tasks: the resumed row left out.
  const std::vector<TaskStat> timed = timed_tasks(*back);
  ASSERT_EQ(timed.size(), 2u);
  for (const TaskStat& t : timed) EXPECT_FALSE(t.resumed);
  // A resumed flag other than 0 or 1 is refused with its line.
  const auto bad = parse_task_stats(std::string(kTaskStatsHeader) + "\n0,1,1,1,0,2\n", "f");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("f:2: "), std::string::npos) << bad.error().message;
}

// Malformed rows are refused, each with the number of its line (the header is line 1).
TEST(Simulator, RefusesMalformedRowsWithTheLineNumber) {
  const std::string head = "id,nodes,seconds,estimate,plan_order\n";
  const std::string good = "0,10,0.5,7,0\n";
  struct Case {
    const char* row;
    const char* why;
  };
  for (const Case& c :
       {Case{"1,-10,0.5,7,0\n", "negative nodes"}, Case{"-1,10,0.5,7,0\n", "negative id"},
        Case{"0,10,0.5,7,0\n", "duplicate id"}, Case{"1,10,0.5,7,0junk\n", "trailing garbage"},
        Case{"1,10,0.5,7,0,9\n", "an extra field"}, Case{"1,10,0.5,7,0\r\n", "CRLF"},
        Case{"1, 10,0.5,7,0\n", "a padded field"}, Case{" 1,10,0.5,7,0\n", "a leading space"},
        Case{"1,+10,0.5,7,0\n", "a plus sign"}, Case{"1,0x10,0.5,7,0\n", "hexadecimal"},
        Case{"1,10,inf,7,0\n", "infinite seconds"}, Case{"1,10,nan,7,0\n", "not a number"},
        Case{"1,10,0.5,7\n", "a missing field"},
        Case{"4294967296,10,0.5,7,0\n", "an id above 32 bits"}}) {
    const auto r = parse_task_stats(head + good + c.row, "stats.csv");
    ASSERT_FALSE(r.ok()) << c.why;
    const bool names_line = r.error().message.find("stats.csv:3: ") != std::string::npos ||
                            r.error().message.find("rows 2 and 3") != std::string::npos;
    EXPECT_TRUE(names_line) << c.why << ": " << r.error().message;
  }
  EXPECT_FALSE(parse_task_stats("id,nodes,seconds,estimate,plan_order\r\n0,1,1,1,0\n", "f").ok());
  const auto fine = parse_task_stats(head + good + "1,3,1.5e-05,2,0\n", "stats.csv");
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_DOUBLE_EQ((*fine)[1].seconds, 1.5e-05);
}

TEST(Simulator, RefusesProfilesWhoseTotalsCouldOverflow) {
  const std::string head = "id,nodes,seconds,estimate,plan_order\n";
  const auto seconds = parse_task_stats(head + "0,1,1,1,0\n1,1,1e308,1,0\n", "s.csv");
  ASSERT_FALSE(seconds.ok());
  EXPECT_EQ(seconds.error().message.rfind("s.csv:3: the seconds ", 0), 0u)
      << seconds.error().message;
  const auto estimates = parse_task_stats(head + "0,1,1,6e99,0\n1,1,1,6e99,0\n", "e.csv");
  ASSERT_FALSE(estimates.ok());
  EXPECT_EQ(estimates.error().message.rfind("e.csv:3: the estimates ", 0), 0u)
      << estimates.error().message;
  EXPECT_TRUE(parse_task_stats(head + "0,1,5e99,5e99,0\n1,1,5e99,5e99,0\n", "f.csv").ok());
}

}  // namespace
}  // namespace nq
