// The NUMA runner on fake machines. TBB and hwloc read the topology once per process, so every
// run on a synthetic machine is a child process: the real nqcount binary with HWLOC_SYNTHETIC
// and HWLOC_THISSYSTEM=1 in its environment (hwloc then binds threads to the fake nodes' CPUs
// for real, where this machine has those CPUs).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "engine/count/count.hpp"
#include "engine/count/topology.hpp"
#include "tests/cli_runner.hpp"

namespace {

using namespace nq::test;  // nqcount, shell, Outcome, read_file, temp_path, ...

// nqcount with `env` (VAR=value ...) in its environment.
Outcome run(const std::string& env, const std::string& args) {
  return shell(env + " " + std::string(NQCOUNT_BIN) + " " + args);
}

std::string fake(const std::string& description) {
  return "HWLOC_SYNTHETIC='" + description + "' HWLOC_THISSYSTEM=1";
}

// The CPUs this process may run on: a fake node's CPUs "exist" when they are among these.
std::set<int> usable_cpus() {
  const std::vector<int> allowed = nq::allowed_cpus();
  return std::set<int>(allowed.begin(), allowed.end());
}

nlohmann::json count_json(const std::string& env, const std::string& args) {
  const Outcome r = run(env, "--no-progress --json " + args);
  EXPECT_EQ(r.status, 0) << args << ": " << r.err;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

// Runs n on a fake machine of `nodes` single-core nodes and checks the counts against the same
// binary with --numa off, and each arena's threads against its node's CPUs.
void check_fake_machine(int nodes, int n) {
  const std::string env = fake("pack:1 numa:" + std::to_string(nodes) + " core:1 pu:1");
  const std::string threads = " --threads " + std::to_string(nodes);
  const auto numa = count_json(env, "--n " + std::to_string(n) + threads);
  const auto flat = count_json("", "--n " + std::to_string(n) + threads + " --numa off");
  ASSERT_TRUE(numa.contains("arenas"));
  for (const char* f : {"total", "unique", "orbits", "nodes", "subproblems"})
    EXPECT_EQ(numa[f], flat[f]) << f << " on " << nodes << " nodes";
  EXPECT_EQ(numa["verified"], true);
  EXPECT_EQ(numa["numa_nodes"], nodes);
  EXPECT_EQ(flat["numa_nodes"], 1);
  EXPECT_TRUE(flat["arenas"][0]["worker_cpus"].empty());  // --numa off binds nothing
  ASSERT_EQ(numa["arenas"].size(), static_cast<std::size_t>(nodes));

  const std::set<int> usable = usable_cpus();
  std::uint64_t done = 0;
  for (int k = 0; k < nodes; ++k) {
    const auto& a = numa["arenas"][k];
    EXPECT_EQ(a["node"], k);
    EXPECT_EQ(a["threads"], 1);
    EXPECT_EQ(a["cpus"], nlohmann::json::array({k}));
    done += a["subproblems"].get<std::uint64_t>();
    EXPECT_FALSE(a["ran_on"].empty()) << "node " << k;
    if (usable.count(k)) {  // the node's CPU exists here: its thread must have run there only
      EXPECT_EQ(a["pinned"], true) << "node " << k;
      for (const auto& cpu : a["ran_on"]) EXPECT_EQ(cpu, k) << "node " << k;
      EXPECT_EQ(a["worker_cpus"], nlohmann::json::array({k})) << "node " << k;  // one a CPU
    } else {
      EXPECT_EQ(a["pinned"], false) << "node " << k << " has no CPU here";
      EXPECT_TRUE(a["worker_cpus"].empty()) << "node " << k;
    }
  }
  EXPECT_EQ(done, numa["subproblems"].get<std::uint64_t>());
}

TEST(Numa, OneFakeNode) {
  check_fake_machine(1, 12);
}
TEST(Numa, TwoFakeNodes) {
  check_fake_machine(2, 13);
}
TEST(Numa, FourFakeNodes) {
  check_fake_machine(4, 13);
}

TEST(Numa, TopologyCommandShowsTheFakeMachineAndPlan) {
  const Outcome r = run(fake("pack:2 numa:2 core:16 pu:1"), "topology --json --threads 10");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["numa_nodes"], 4);
  EXPECT_EQ(j["cores"], 64);
  EXPECT_EQ(j["pus"], 64);
  EXPECT_EQ(j["packages"], 2);
  ASSERT_EQ(j["arenas"].size(), 4u);
  int threads = 0;
  for (const auto& a : j["arenas"]) threads += a["threads"].get<int>();
  EXPECT_EQ(threads, 10);
  EXPECT_EQ(j["arenas"][3]["cpus"].size(), 16u);
  EXPECT_EQ(j["arenas"][3]["cpus"][0], 48);
  EXPECT_TRUE(j["arenas"][3]["worker_cpus"].empty());  // fewer threads than CPUs: free

  const Outcome text = run(fake("pack:2 numa:2 core:16 pu:1"), "topology --threads 64");
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("arena on node 3: 16 threads on cpus 48-63, one a CPU"),
            std::string::npos)
      << text.out;
  const Outcome fewer = run(fake("pack:2 numa:2 core:16 pu:1"), "topology --threads 60");
  EXPECT_EQ(fewer.out.find("one a CPU"), std::string::npos) << fewer.out;
}

TEST(Numa, TopologyOfThisMachine) {
  const Outcome r = run("", "topology --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* f : {"numa_nodes", "cores", "pus", "arenas", "packages"})
    EXPECT_TRUE(j.contains(f)) << f;
  EXPECT_EQ(j["this_system"], true);
}

TEST(Numa, BadOptionsExitTwoWithOneLine) {
  for (const char* a :
       {"--n 8 --numa maybe", "topology --threads 0", "topology --numa x", "simulate",
        "simulate /nonexistent/stats.csv --procs 4", "simulate /dev/null --procs 0",
        "simulate /dev/null --procs 2", "simulate /dev/null --procs 2 --serial-seconds -1",
        "simulate /dev/null --procs 2 --serial-seconds 1x",
        "simulate /dev/null --procs 2 --cost time", "simulate /dev/null --procs 2 --order random",
        "--n 8 --task-stats /nonexistent/dir/x"}) {
    const Outcome r = run("", a);
    EXPECT_EQ(r.status, 2) << a;
    EXPECT_EQ(r.err.rfind("nqcount: error: ", 0), 0u) << a << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << a << ": " << r.err;
  }
  const Outcome bad = run(fake("numa:banana"), "topology");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("HWLOC_SYNTHETIC='numa:banana'"), std::string::npos) << bad.err;
}

// Several threads per fake node, more than this machine's cores: they steal inside their node
// and across nodes, and every subproblem is still counted once (the same totals as a one-thread
// run, each arena's subproblems adding up, its stolen and helped ones among them).
//
// Leak checking is off in these children (under ASan): with more threads than CPUs, a TBB
// worker can still be inside a pinned arena when the run's pinning observer is destroyed, and
// TBB then never frees the observer's 40-byte proxy (tbb::detail::r1::observe), which
// LeakSanitizer reports at exit. The branch point's runner does the same (1 run in 20 under
// load); the unpinned runs of runner_test keep the leak check on the runner's own memory.
TEST(Numa, ThreadsStealInsideAndAcrossFakeNodes) {
  for (const std::string kernel : {"auto", "avx2", "scalar"}) {
    if (kernel == "avx2" && !__builtin_cpu_supports("avx2")) continue;
    const std::string args = "--n 13 --kernel " + kernel;
    const auto one = count_json("", args + " --threads 1 --numa off");
    for (int nodes : {2, 4}) {
      const std::string env = fake("pack:1 numa:" + std::to_string(nodes) + " core:1 pu:1") +
                              " ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0";
      const auto j = count_json(env, args + " --threads 8");
      const std::string what = std::to_string(nodes) + " nodes, " + kernel;
      ASSERT_TRUE(j.contains("arenas") && one.contains("arenas")) << what;
      for (const char* f : {"total", "unique", "orbits", "nodes", "subproblems"})
        EXPECT_EQ(j[f], one[f]) << f << ", " << what;
      EXPECT_EQ(j["verified"], true) << what;
      ASSERT_EQ(j["arenas"].size(), static_cast<std::size_t>(nodes)) << what;
      std::uint64_t done = 0;
      for (const auto& a : j["arenas"]) {
        EXPECT_EQ(a["threads"], 8 / nodes) << what;
        const auto subproblems = a["subproblems"].get<std::uint64_t>();
        EXPECT_LE(a["stolen"].get<std::uint64_t>() + a["helped"].get<std::uint64_t>(), subproblems)
            << what;
        done += subproblems;
      }
      EXPECT_EQ(done, j["subproblems"].get<std::uint64_t>()) << what;
    }
  }
}

// The same steals in the engine, for the same kernels, without the command line: the thread
// build runs this one, so that it need not build nqcount. The machine is read once a process, so
// the counts run in a child that GoogleTest starts for them (a death test in the threadsafe
// style: this program again, this test alone), with the fake machine set before the child's
// first read. The child ends with _Exit: LeakSanitizer's check at exit would report oneTBB's
// observer proxy (above).
[[noreturn]] void count_on_fake_nodes(int nodes) {
  const std::string machine = "pack:1 numa:" + std::to_string(nodes) + " core:1 pu:1";
  setenv("HWLOC_SYNTHETIC", machine.c_str(), 1);
  setenv("HWLOC_THISSYSTEM", "1", 1);
  std::string wrong;
  for (const std::string kernel : {"auto", "avx2", "scalar"}) {
    if (kernel == "avx2" && !__builtin_cpu_supports("avx2")) continue;
    nq::CountConfig c{.n = 13, .threads = 1, .kernel = kernel};
    c.numa = false;
    const auto one = nq::count(c);
    c.threads = 8;
    c.numa = true;
    const auto eight = nq::count(c);
    if (!one.ok() || !eight.ok()) {
      wrong += " " + kernel + ": a count failed;";
      continue;
    }
    if (!(eight->orbits.total == one->orbits.total && eight->orbits.unique == one->orbits.unique &&
          eight->nodes == one->nodes && eight->subproblems == one->subproblems))
      wrong += " " + kernel + ": counts differ;";
    if (eight->arenas.size() != static_cast<std::size_t>(nodes))
      wrong += " " + kernel + ": arenas;";
    std::uint64_t done = 0;
    for (const nq::ArenaResult& a : eight->arenas) {
      if (a.threads != 8 / nodes) wrong += " " + kernel + ": threads;";
      if (a.stolen + a.helped > a.subproblems) wrong += " " + kernel + ": steals;";
      done += a.subproblems;
    }
    if (done != eight->subproblems) wrong += " " + kernel + ": subproblems;";
  }
  std::fprintf(stderr, "%d fake nodes:%s\n", nodes, wrong.empty() ? " right" : wrong.c_str());
  std::_Exit(wrong.empty() ? 0 : 1);
}

TEST(Numa, EngineThreadsStealInsideAndAcrossFakeNodes) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int nodes : {2, 4})
    EXPECT_EXIT(count_on_fake_nodes(nodes), ::testing::ExitedWithCode(0), "fake nodes: right");
}

TEST(Numa, TaskStatsFeedTheSimulator) {
  const std::string path = temp_path("task_stats.csv");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const auto j = count_json("", "--n 12 --threads 2 --task-stats " + path);
  std::ifstream f(path);
  ASSERT_TRUE(f.good());
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "id,nodes,seconds,estimate,plan_order,resumed");
  std::uint64_t rows = 0, nodes = 0;
  std::set<std::uint64_t> ids;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::uint64_t id = 0, k = 0;
    char comma = 0;
    in >> id >> comma >> k;
    // The lanes run largest first; nothing was resumed.
    EXPECT_EQ(line.substr(line.size() - 4), ",0,0") << line;
    ids.insert(id);
    nodes += k;
    ++rows;
  }
  EXPECT_EQ(rows, j["subproblems"].get<std::uint64_t>());
  EXPECT_EQ(ids.size(), rows);  // one row per subproblem
  EXPECT_EQ(nodes, j["nodes"].get<std::uint64_t>());
  // No temporary file is left beside it.
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().string().find(path + ".tmp"), std::string::npos) << entry.path();

  const Outcome sim = run("", "simulate " + path + " --procs 4 --node-cores 2 --json");
  ASSERT_EQ(sim.status, 0) << sim.err;
  const auto s = nlohmann::json::parse(sim.out);
  EXPECT_EQ(s["workers"], 4);
  EXPECT_EQ(s["arenas"], 2);
  EXPECT_EQ(s["tasks"], rows);
  EXPECT_GT(s["efficiency"].get<double>(), 0.0);
  EXPECT_LE(s["efficiency"].get<double>(), 1.0 + 1e-9);
  const Outcome amdahl = run("", "simulate " + path + " --procs 4 --serial-seconds 1000 --json");
  ASSERT_EQ(amdahl.status, 0) << amdahl.err;
  EXPECT_LT(nlohmann::json::parse(amdahl.out)["speedup"].get<double>(), 1.01);
  const Outcome text = run("", "simulate " + path + " --procs 1");
  EXPECT_NE(text.out.find("efficiency   1"), std::string::npos) << text.out;
  EXPECT_EQ(s["order"], "largest");
  // A join run keeps its plan's order, and the replay does the same unless told otherwise.
  count_json("", "--n 12 --kernel join --threads 2 --task-stats " + path);
  std::ifstream joined(path);
  std::getline(joined, line);
  ASSERT_TRUE(std::getline(joined, line));
  EXPECT_EQ(line.substr(line.size() - 4), ",1,0") << line;  // plan order, not resumed
  for (const auto& [order, want] : {std::pair{"", "plan"}, {" --order largest", "largest"}}) {
    const Outcome o = run("", "simulate " + path + " --procs 4 --json" + order);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(nlohmann::json::parse(o.out)["order"], want) << order;
  }
  std::remove(path.c_str());
}

// The study scripts, on boards small enough to take a moment.
std::string script(const std::string& name) {
  return std::string("NQCOUNT=") + NQCOUNT_BIN + " " + NQ_SOURCE_DIR + "/scripts/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(Numa, ScalingScriptWritesCsvAndPlot) {
  const std::string dir = temp_path("scaling");
  const Outcome r = shell(script("scaling") + " --n 9 --threads 1,2,3 --repeat 2 --out " + dir);
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream csv(read_text(dir + "/scaling.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "n,threads,seconds,speedup,efficiency,nodes_per_s");
  int rows = 0;
  while (std::getline(csv, line)) {
    EXPECT_EQ(line.rfind("9," + std::to_string(rows + 1) + ",", 0), 0u) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 3);
  EXPECT_GT(std::filesystem::file_size(dir + "/scaling.png"), 1000u);
  EXPECT_NE(read_text(dir + "/machine.txt").find(" CPUs"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/ceiling.csv"));  // only with --ceiling
  // --ceiling: T independent one-thread copies at once, their throughput against one copy.
  const Outcome c =
      shell(script("scaling") + " --n 9 --threads 2,3 --repeat 1 --ceiling --out " + dir);
  ASSERT_EQ(c.status, 0) << c.err;
  std::istringstream ceiling(read_text(dir + "/ceiling.csv"));
  std::getline(ceiling, line);
  EXPECT_EQ(line, "n,threads,seconds,ceiling");
  rows = 0;
  while (std::getline(ceiling, line)) {
    EXPECT_EQ(line.rfind("9," + std::to_string(rows + 2) + ",", 0), 0u) << line;
    const double value = std::stod(line.substr(line.rfind(',') + 1));
    EXPECT_GT(value, 0.0) << line;  // a sum of t1 / t_k over the copies
    ++rows;
  }
  EXPECT_EQ(rows, 2);
  for (const char* bad : {"--n 9 --threads 1,x --out /tmp", "--n 9 --threads 1", "--bogus"}) {
    const Outcome b = shell(script("scaling") + " " + bad);
    EXPECT_EQ(b.status, 2) << bad;
  }
  std::filesystem::remove_all(dir);
}

TEST(Numa, SimulateScalingScriptSweepsTheWorkers) {
  const std::string dir = temp_dir("simscaling");
  const auto j = count_json("", "--n 11 --threads 2 --task-stats " + dir + "/t.csv");
  ASSERT_TRUE(j.contains("subproblems"));
  const Outcome r = shell(script("simulate-scaling") + " " + dir + "/t.csv --procs 8 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["workers"], 8);
  std::istringstream csv(read_text(dir + "/simulated-scaling.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "procs,makespan,speedup,efficiency");
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 11);  // P = 1, 2, 4, ..., 1024
  EXPECT_GT(std::filesystem::file_size(dir + "/simulated-scaling.png"), 1000u);
  const Outcome bad = shell(script("simulate-scaling") + " " + dir + "/t.csv --procs 0");
  EXPECT_EQ(bad.status, 2);
  std::filesystem::remove_all(dir);
}

TEST(Numa, EngineCountsTheSameWithAndWithoutNuma) {
  for (int threads : {1, 2, 5}) {
    nq::CountConfig c;
    c.n = 11;
    c.threads = threads;
    c.numa = true;
    const auto a = nq::count(c);
    c.numa = false;
    const auto b = nq::count(c);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(a->orbits.total == b->orbits.total);
    EXPECT_TRUE(a->orbits.unique == b->orbits.unique);
    EXPECT_TRUE(a->nodes == b->nodes);
    int planned = 0;
    for (const auto& arena : a->arenas) planned += arena.threads;
    EXPECT_EQ(planned, threads);
    ASSERT_EQ(b->arenas.size(), 1u);
    EXPECT_EQ(b->arenas[0].node, -1);
    EXPECT_FALSE(b->arenas[0].pinned);
  }
}

// As many threads as CPUs: each worker bound to its own (worker_cpus), which --numa off leaves to
// the operating system, as it does a count with fewer threads than CPUs.
TEST(Numa, OneCpuAWorkerWhenTheThreadsMatchTheCpus) {
  const std::vector<int> allowed = nq::allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  nq::CountConfig c;
  c.n = 12;
  c.threads = static_cast<int>(allowed.size());
  const auto pinned = nq::count(c);
  ASSERT_TRUE(pinned.ok());
  std::vector<int> bound;
  for (const auto& arena : pinned->arenas) {
    EXPECT_EQ(arena.worker_cpus.size(), static_cast<std::size_t>(arena.threads)) << arena.node;
    bound.insert(bound.end(), arena.worker_cpus.begin(), arena.worker_cpus.end());
  }
  std::sort(bound.begin(), bound.end());
  EXPECT_EQ(bound, allowed);
  EXPECT_EQ(nq::allowed_cpus(), allowed);  // the calling thread's mask is its own again
  c.numa = false;
  const auto off = nq::count(c);
  ASSERT_TRUE(off.ok());
  EXPECT_TRUE(off->arenas[0].worker_cpus.empty());
  EXPECT_TRUE(off->orbits.total == pinned->orbits.total);
  c.numa = true;
  c.threads = static_cast<int>(allowed.size()) + 1;
  const auto more = nq::count(c);
  ASSERT_TRUE(more.ok());
  if (more->arenas.size() == 1) {
    EXPECT_TRUE(more->arenas[0].worker_cpus.empty());
  }
}

TEST(Numa, TaskStatsInTheEngineCoverEverySubproblem) {
  nq::CountConfig c;
  c.n = 10;
  c.threads = 2;
  c.task_stats = true;
  const auto r = nq::count(c);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->tasks.size(), r->subproblems);
  nq::u128 nodes = 0;
  for (std::size_t i = 0; i < r->tasks.size(); ++i) {
    EXPECT_EQ(r->tasks[i].id, i);
    EXPECT_GE(r->tasks[i].seconds, 0.0);
    EXPECT_GE(r->tasks[i].estimate, 1.0);
    nodes += r->tasks[i].nodes;
  }
  EXPECT_TRUE(nodes == r->nodes);
}

}  // namespace
