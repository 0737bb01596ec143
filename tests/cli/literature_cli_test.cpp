// The command line of the literature's methods: count --order/--lookahead, solve --method blnq,
// solve --modular --ldpc, orbits --graph, group; and the one notation list and solve share
// (perm and board formats, list --json, --perm spellings, the batch file).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "tests/cli_runner.hpp"

namespace nq::test {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<long long> numbers_of(const std::string& line) {
  std::vector<long long> v;
  std::istringstream in(line);
  for (long long x; in >> x;) v.push_back(x);
  return v;
}

bool is_solution(const std::vector<long long>& p) {
  const auto n = static_cast<long long>(p.size());
  std::set<long long> rows(p.begin(), p.end()), up, down;
  for (long long i = 0; i < n; ++i) {
    up.insert(p[i] + i);
    down.insert(p[i] - i);
  }
  return rows.size() == p.size() && *rows.begin() == 1 && *rows.rbegin() == n &&
         up.size() == p.size() && down.size() == p.size();
}

TEST(LiteratureCli, OrderAndLookaheadGiveTheSameCounts) {
  const auto plain = nlohmann::json::parse(nqcount("count --n 10 --kernel scalar --json").out);
  for (const char* flags : {"--lookahead", "--order fewest", "--order fewest --lookahead",
                            "--order rows --kernel scalar --lookahead"}) {
    const Outcome r = nqcount(std::string("count --n 10 --json ") + flags);
    ASSERT_EQ(r.status, 0) << flags << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["total"], plain["total"]) << flags;
    EXPECT_EQ(j["unique"], plain["unique"]) << flags;
    EXPECT_NE(j["kernel"].get<std::string>().find("scalar"), std::string::npos) << flags;
  }
  const auto la = nlohmann::json::parse(nqcount("count --n 10 --json --lookahead").out);
  EXPECT_LT(la["nodes"].get<std::uint64_t>(), plain["nodes"].get<std::uint64_t>());
  for (const char* bad :
       {"count --n 10 --lookahead --kernel join", "count --n 10 --order fewest --kernel avx2",
        "count --n 10 --order fewest --kernel reference", "count --n 10 --order sideways",
        "count --n 10 --lookahead --algo dp"})
    expect_usage_error(bad);
}

TEST(LiteratureCli, BlnqReportsStatisticsAndIsReproducible) {
  const Outcome a = nqcount("solve --n 16 --method blnq --budget n2 --runs 20 --seed 5 --json");
  ASSERT_EQ(a.status, 0) << a.err;
  const auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["budget"], 256);
  ASSERT_EQ(j["per_run"].size(), 20u);
  std::uint64_t successes = 0;
  for (const auto& run : j["per_run"]) {
    EXPECT_EQ(run["success"].get<bool>(), run["final_collisions"] == 0);
    successes += run["success"].get<bool>();
  }
  EXPECT_EQ(j["successes"], successes);
  EXPECT_LE(j["distinct_solutions"].get<std::uint64_t>(), successes);
  const auto b = nlohmann::json::parse(
      nqcount("solve --n 16 --method blnq --budget n2 --runs 20 --seed 5 --json --threads 1").out);
  EXPECT_EQ(b["per_run"], j["per_run"]);
  const auto three =
      nlohmann::json::parse(nqcount("solve --n 16 --method blnq --budget 3n --json").out);
  EXPECT_EQ(three["budget"], 48);
  const Outcome text = nqcount("solve --n 8 --method blnq --runs 3 --seed 1");
  ASSERT_EQ(text.status, 0);
  EXPECT_EQ(lines_of(text.out).size(), 2u + 3u + 3u);  // head, runs, mean, errors, success
  for (const char* bad :
       {"solve --n 8 --method blnq --budget x", "solve --n 8 --method blnq --budget 0",
        "solve --n 8 --budget n2", "solve --n 8 --method blnq --runs 0",
        "solve --n 8 --budget-rule total", "solve --n 8 --method blnq --budget-rule all",
        "solve --n 8 --method blnq --format board", "solve --n 8 --method blnq --solutions 2",
        "solve --n 8 --method blnq --time-limit -1"})
    expect_usage_error(bad);
}

TEST(LiteratureCli, BlnqBudgetRules) {
  // The paper's rule (the default) lets a run go past L neighbours in all: the counter of
  // failed tries goes back to 0 after every improving swap. `total` never does.
  const std::string common = "solve --n 10 --method blnq --budget n2 --runs 50 --seed 2 --json";
  const auto paper = nlohmann::json::parse(nqcount(common).out);
  const auto total = nlohmann::json::parse(nqcount(common + " --budget-rule total").out);
  EXPECT_EQ(paper["budget_rule"], "consecutive");
  EXPECT_EQ(paper["budget_spec"], "n2");
  EXPECT_EQ(total["budget_rule"], "total");
  bool beyond = false;
  for (std::size_t k = 0; k < 50; ++k) {
    const auto& p = paper["per_run"][k];
    const auto& t = total["per_run"][k];
    EXPECT_EQ(p["initial_collisions"], t["initial_collisions"]);  // the same starts
    EXPECT_LE(t["neighbours"].get<std::uint64_t>(), 100u);
    if (!p["success"].get<bool>()) {
      EXPECT_GE(p["neighbours"].get<std::uint64_t>(),
                100u + p["improving_moves"].get<std::uint64_t>());
    }
    beyond = beyond || p["neighbours"].get<std::uint64_t>() > 100u;
  }
  EXPECT_TRUE(beyond);
  EXPECT_GT(paper["mean"]["neighbours"].get<double>(), total["mean"]["neighbours"].get<double>());
  // Standard errors of the four means come with them.
  for (const char* key :
       {"initial_collisions", "final_collisions", "neighbours", "improving_moves"}) {
    EXPECT_GT(paper["standard_error"][key].get<double>(), 0) << key;
    EXPECT_LT(paper["standard_error"][key].get<double>(), paper["mean"][key].get<double>()) << key;
  }
}

TEST(LiteratureCli, BlnqWritesItsDistinctVerifiedSolutions) {
  const std::string dir = temp_dir("blnq");
  const std::string common = "solve --n 8 --method blnq --runs 300 --seed 7 --threads 2 ";
  const auto stats = nlohmann::json::parse(nqcount(common + "--json").out);
  const std::uint64_t distinct = stats["distinct_solutions"];
  ASSERT_GT(distinct, 10u);
  ASSERT_LT(distinct, stats["successes"].get<std::uint64_t>());  // repeats are written once

  // perm: one line per distinct solution, each a solution; the report stays on stdout.
  const std::string perm = dir + "/sol.txt";
  const Outcome a = nqcount(common + "--output " + perm);
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.out.find("distinct solutions " + std::to_string(distinct)), std::string::npos);
  std::set<std::vector<long long>> seen;
  for (const std::string& line : lines_of(read_file(perm))) {
    const auto p = numbers_of(line);
    ASSERT_EQ(p.size(), 8u) << line;
    EXPECT_TRUE(is_solution(p)) << line;
    EXPECT_TRUE(seen.insert(p).second) << "written twice: " << line;
  }
  EXPECT_EQ(seen.size(), distinct);

  // json: {"n":8,"solutions":[...]}, the same solutions; --json's record names the file.
  const std::string json = dir + "/sol.json";
  const Outcome b = nqcount(common + "--format json --json --output " + json);
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(b.out)["output"], json);
  EXPECT_EQ(nlohmann::json::parse(b.out)["verified"], true);
  const auto file = nlohmann::json::parse(read_file(json));
  EXPECT_EQ(file["n"], 8);
  std::set<std::vector<long long>> from_json;
  for (const auto& p : file["solutions"]) from_json.insert(p.get<std::vector<long long>>());
  EXPECT_EQ(from_json, seen);

  // board, to stdout: the solutions on stdout, the report on stderr.
  const Outcome c = nqcount(common + "--format board --output -");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(static_cast<std::uint64_t>(std::count(c.out.begin(), c.out.end(), 'Q')), 8 * distinct);
  EXPECT_NE(c.err.find("distinct solutions"), std::string::npos);

  // A run with no success writes an empty list.
  const std::string none = dir + "/none.json";
  ASSERT_EQ(nqcount("solve --n 3 --method blnq --runs 2 --format json --output " + none).status, 0);
  EXPECT_EQ(nlohmann::json::parse(read_file(none))["solutions"].size(), 0u);

  for (const std::string& bad :
       {common + "--format matrix --output " + dir + "/m.mtx", common + "--format json",
        common + "--json --output -",
        std::string("solve --n 300 --method blnq --format board --output -")})
    expect_usage_error(bad);
  EXPECT_FALSE(std::filesystem::exists(dir + "/m.mtx"));
}

TEST(LiteratureCli, BlnqTimeLimitEndsLikeTheOtherMethods) {
  // n = 3 has no solution and L = 10^12 failures in a row would take hours: the limit ends
  // it as it ends solve's other methods: exit 1, "time limit ... nothing written", no file,
  // and --json's record with "verified": false.
  const std::string dir = temp_dir("blnq_limit");
  const std::string file = dir + "/sol.txt";
  const Outcome blnq = nqcount(
      "solve --n 3 --method blnq --budget 1000000000000 --runs 4 --time-limit 0.2 --json "
      "--output " +
      file);
  EXPECT_EQ(blnq.status, 1) << blnq.err;
  EXPECT_NE(blnq.err.find("nqcount: time limit of 0.2 s reached"), std::string::npos) << blnq.err;
  EXPECT_NE(blnq.err.find("nothing written"), std::string::npos) << blnq.err;
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator{}),
            0);
  const auto j = nlohmann::json::parse(blnq.out);
  EXPECT_EQ(j["status"], "time limit");
  EXPECT_EQ(j["verified"], false);
  EXPECT_EQ(j["runs"], 4);
  EXPECT_EQ(j["runs_done"], 0);
  EXPECT_GE(j["seconds"].get<double>(), 0.2);
  // The same shape as another method's time limit.
  const Outcome swap = nqcount("solve --n 200000 --method swap --time-limit 0.2 --json --output " +
                               dir + "/swap.txt");
  EXPECT_EQ(swap.status, blnq.status);
  EXPECT_EQ(nlohmann::json::parse(swap.out)["verified"], false);
  EXPECT_NE(swap.err.find("nqcount: time limit of 0.2 s reached"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/swap.txt"));
  // Text mode: the message only.
  const Outcome text =
      nqcount("solve --n 3 --method blnq --budget 1000000000000 --runs 2 --time-limit 0.2");
  EXPECT_EQ(text.status, 1);
  EXPECT_TRUE(text.out.empty()) << text.out;
  // A limit the runs finish within changes nothing.
  const std::string common = "solve --n 12 --method blnq --runs 20 --seed 3 --json";
  const auto limited = nlohmann::json::parse(nqcount(common + " --time-limit 60").out);
  const auto unlimited = nlohmann::json::parse(nqcount(common).out);
  EXPECT_EQ(limited["per_run"], unlimited["per_run"]);
  EXPECT_FALSE(limited.contains("status"));
}

TEST(LiteratureCli, LdpcWritesACheckedMatrix) {
  const std::string file = temp_path("h.mtx");
  const Outcome r = nqcount("solve --n 13 --modular --ldpc 3,5 --seed 2 --json --output " + file);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"], 39);
  EXPECT_EQ(j["columns"], 65);
  EXPECT_EQ(j["four_cycles"], 0);
  EXPECT_EQ(j["girth_at_least_6"], true);
  EXPECT_EQ(j["row_weight"], nlohmann::json({5, 5}));
  EXPECT_EQ(j["column_weight"], nlohmann::json({3, 3}));
  const std::vector<std::string> rows = lines_of(read_file(file));
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(rows[0], "%%MatrixMarket matrix coordinate pattern general");
  EXPECT_EQ(rows[2], "39 65 195");
  EXPECT_EQ(rows.size(), 3u + 195u);
  // n = 25 with 6 x 6 blocks: 5 * 5 = 0 mod 25, so 4-cycles, reported, exit 1.
  const Outcome cyc = nqcount("solve --n 25 --modular --ldpc 6,6 --output " + temp_path("c.mtx"));
  EXPECT_EQ(cyc.status, 1);
  EXPECT_NE(cyc.out.find("4-cycles"), std::string::npos) << cyc.out;
  for (const char* bad :
       {"solve --n 13 --ldpc 3,5", "solve --n 12 --modular --ldpc 3,5",
        "solve --n 13 --modular --ldpc 3", "solve --n 13 --modular --ldpc 0,5",
        "solve --n 13 --modular --ldpc 14,2", "solve --n 13 --modular --ldpc 3,5 --json"})
    expect_usage_error(bad);
}

// --ldpc-layout paper: block (j,k) shifted by m(j)*k, m = 0, 2, 3, 5, 7, ... (the paper's
// equation (1)), with the same 4-cycle check: n = 7 with 5 block rows has m(4) = 7 = 0 mod 7,
// so 4-cycles (exit 1), where the product layout has none.
TEST(LiteratureCli, LdpcPaperLayout) {
  const std::string file = temp_path("hp.mtx");
  const Outcome r = nqcount(
      "solve --n 13 --modular --ldpc 3,5 --ldpc-layout paper --seed 2 "
      "--json --output " +
      file);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["layout"], "paper");
  EXPECT_EQ(j["row_multipliers"], nlohmann::json({0, 2, 3}));
  EXPECT_EQ(j["four_cycles"], 0);
  EXPECT_EQ(j["row_weight"], nlohmann::json({5, 5}));
  EXPECT_EQ(j["column_weight"], nlohmann::json({3, 3}));
  EXPECT_EQ(lines_of(read_file(file)).size(), 3u + 195u);
  const auto product = nlohmann::json::parse(
      nqcount("solve --n 13 --modular --ldpc 3,5 --seed 2 --json --output " + file).out);
  EXPECT_EQ(product["layout"], "product");
  EXPECT_EQ(product["row_multipliers"], nlohmann::json({0, 1, 2}));
  for (const char* layout : {"product", "paper"}) {
    const Outcome c = nqcount("solve --n 7 --modular --ldpc 5,2 --seed 1 --ldpc-layout " +
                              std::string(layout) + " --output " + temp_path("c7.mtx"));
    const bool paper = std::string(layout) == "paper";
    EXPECT_EQ(c.status, paper ? 1 : 0) << layout << ": " << c.out << c.err;
    EXPECT_NE(c.out.find(paper ? "4-cycles" : "no 4-cycles (girth >= 6)"), std::string::npos)
        << c.out;
    EXPECT_NE(c.out.find(paper ? "paper layout" : "product layout"), std::string::npos) << c.out;
  }
  for (const char* bad : {"solve --n 13 --modular --ldpc 3,5 --ldpc-layout diagonal",
                          "solve --n 13 --modular --ldpc-layout paper"})
    expect_usage_error(bad);
}

// A time limit that ends an --ldpc run says so (not "no verified modular solution"), exit 1,
// nothing written; so does one that ends the writing of H. --memory-limit refuses, before the
// work, a run above it, naming what H's text would take.
TEST(LiteratureCli, LdpcTimeAndMemoryLimits) {
  const std::string file = temp_path("limited.mtx");
  for (const char* n : {"13", "1009"}) {
    const Outcome r = nqcount("solve --n " + std::string(n) +
                              " --modular --ldpc 3,5 --time-limit 1e-6 --output " + file);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("time limit of 0.000001 s reached"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file));
  }
  const Outcome big =
      nqcount("solve --n 1009 --modular --ldpc 80,80 --memory-limit 1M --output " + file);
  EXPECT_EQ(big.status, 2);
  EXPECT_EQ(std::count(big.err.begin(), big.err.end(), '\n'), 1) << big.err;
  EXPECT_NE(big.err.find("of text, above the memory limit of"), std::string::npos) << big.err;
  EXPECT_FALSE(std::filesystem::exists(file));
  // The size the record gives is the file's.
  const Outcome ok =
      nqcount("solve --n 101 --modular --ldpc 9,11 --seed 1 --json --output " + file);
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(ok.out)["bytes"], std::filesystem::file_size(file));
}

// The paper's Figure 3 ends a run when its counter of failed tries passes L: n = 2 (no
// solution) with L = 5 examines 6 neighbours.
TEST(LiteratureCli, BlnqEndsAfterLPlusOneFailuresInARow) {
  const Outcome r = nqcount("solve --method blnq --n 2 --budget 5 --runs 1 --seed 1 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["per_run"][0]["neighbours"], 6);
}

TEST(LiteratureCli, GroupTableNamesAndComposition) {
  const Outcome r = nqcount("group --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& t = j["table"];
  EXPECT_EQ(t["po6"]["po8"], "po1");
  EXPECT_EQ(t["po6"]["po6"], "po7");
  EXPECT_EQ(t["po7"]["po7"], "po1");
  for (const char* f : {"po1", "po2", "po3", "po4", "po5", "po6", "po7", "po8"}) {
    EXPECT_EQ(t["po1"][f], f);
    std::set<std::string> row;
    for (const auto& [g, h] : t[f].items()) row.insert(h.get<std::string>());
    EXPECT_EQ(row.size(), 8u) << f;
  }
  // Cmpl∘Inv = po6 (apply Inv first): table[po4][po2] = po6; Inv∘Cmpl = po8.
  EXPECT_EQ(t["po4"]["po2"], "po6");
  EXPECT_EQ(t["po2"]["po4"], "po8");
  const Outcome text = nqcount("group");
  EXPECT_NE(text.out.find("apply g first"), std::string::npos);
  EXPECT_EQ(lines_of(text.out).size(), 8u + 1u + 1u + 1u + 1u + 8u);
}

// --orientation paper prints the transpose (the paper's Table 1: row f, column g holds g∘f);
// both headers say which table they are.
TEST(LiteratureCli, GroupTableInThePapersOrientation) {
  const auto ours = nlohmann::json::parse(nqcount("group --json").out);
  const Outcome r = nqcount("group --json --orientation paper");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto paper = nlohmann::json::parse(r.out);
  EXPECT_EQ(ours["orientation"], "composition");
  EXPECT_EQ(paper["orientation"], "paper");
  for (const auto& [f, row] : ours["table"].items())
    for (const auto& [g, h] : row.items()) EXPECT_EQ(paper["table"][g][f], h) << f << " " << g;
  // Inv first, then Cmpl: Cmpl∘Inv = po6, in row po2, column po4 of the paper's table.
  EXPECT_EQ(paper["table"]["po2"]["po4"], "po6");
  EXPECT_EQ(paper["table"]["po4"]["po2"], "po8");
  EXPECT_EQ(nqcount("group --orientation composition --json").out, nqcount("group --json").out);
  const Outcome text = nqcount("group");
  EXPECT_NE(text.out.find("the transpose of the paper's Table 1"), std::string::npos) << text.out;
  const Outcome paper_text = nqcount("group --orientation paper");
  ASSERT_EQ(paper_text.status, 0);
  EXPECT_NE(paper_text.out.find("row f, column g: g∘f (apply f first, then g), the orientation of "
                                "the paper's Table 1"),
            std::string::npos)
      << paper_text.out;
  EXPECT_NE(paper_text.out.find("  g∘f  po1"), std::string::npos) << paper_text.out;
  EXPECT_EQ(lines_of(paper_text.out).size(), lines_of(text.out).size());
  expect_usage_error("group --orientation sideways");
}

TEST(LiteratureCli, OrbitGrowthGraph) {
  const std::string dot = temp_path("g.dot"), json = temp_path("g.json");
  ASSERT_EQ(nqcount("orbits --n 7 --method algebraic --graph " + dot).status, 0);
  const std::string text = read_file(dot);
  EXPECT_EQ(text.find("digraph growth {"), text.find("digraph"));
  EXPECT_NE(text.find("Inc("), std::string::npos);
  const Outcome r = nqcount("orbits --n 7 --method algebraic --json --graph " + json);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto g = nlohmann::json::parse(read_file(json));
  const auto summary = nlohmann::json::parse(r.out);
  // One edge per orbit found above the base (n = 5, 6, 7).
  std::size_t grown = 0;
  for (const auto& level : summary["levels"])
    if (!level["by_enumeration"].get<bool>()) grown += level["orbits"].get<std::size_t>();
  EXPECT_EQ(g["edges"].size(), grown);
  std::size_t at7 = 0;
  for (const auto& node : g["nodes"]) at7 += node["n"] == 7;
  EXPECT_EQ(at7, summary["count"].get<std::size_t>());
  expect_usage_error("orbits --n 7 --graph " + temp_path("x.dot"));
}

// docs/literature.md says the growth graph does not depend on the thread count: orbits takes
// --threads, and the graph, the orbits and the report are the same on 1 thread and on 3.
TEST(LiteratureCli, OrbitGrowthGraphIsTheSameAtAnyThreadCount) {
  const std::string one = temp_path("g1.json"), three = temp_path("g3.json");
  const Outcome a = nqcount("orbits --n 8 --method algebraic --json --threads 1 --graph " + one);
  const Outcome b = nqcount("orbits --n 8 --method algebraic --json --threads 3 --graph " + three);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(read_file(one), read_file(three));
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["threads"], 1);
  EXPECT_EQ(jb["threads"], 3);
  EXPECT_EQ(ja["orbits"], jb["orbits"]);
  EXPECT_EQ(ja["levels"], jb["levels"]);
  EXPECT_EQ(nqcount("orbits --n 8 --threads 1").out, nqcount("orbits --n 8 --threads 2").out);
}

// The base orbits are nodes even where no edge names them: n = 4 (2,4,1,3) and n = 1 (1) have
// no growth above the base, n = 2, 3 no orbit; from n = 5 on the base is the source of edges.
TEST(LiteratureCli, OrbitGrowthGraphHoldsTheBase) {
  const std::string json = temp_path("base.json"), dot = temp_path("base.dot");
  for (const auto& [n, canonical] : std::vector<std::pair<int, std::vector<int>>>{
           {4, {2, 4, 1, 3}}, {1, {1}}, {6, {2, 4, 1, 3}}}) {
    const std::string args = "orbits --n " + std::to_string(n) + " --method algebraic --graph ";
    ASSERT_EQ(nqcount(args + json).status, 0) << n;
    const auto g = nlohmann::json::parse(read_file(json));
    bool found = false;
    for (const auto& node : g["nodes"])
      found = found || (node["n"] == canonical.size() && node["canonical"] == canonical);
    EXPECT_TRUE(found) << n << ": " << g.dump();
    if (n <= 4) {
      EXPECT_EQ(g["nodes"].size(), 1u) << n;
      EXPECT_EQ(g["edges"].size(), 0u) << n;
    }
    ASSERT_EQ(nqcount(args + dot).status, 0) << n;
    std::string name;
    for (int v : canonical) name += (name.empty() ? "" : "_") + std::to_string(v);
    EXPECT_NE(read_file(dot).find("\"" + name + "\" [label="), std::string::npos)
        << n << ": " << read_file(dot);
  }
  ASSERT_EQ(nqcount("orbits --n 3 --method algebraic --graph " + json).status, 0);
  EXPECT_EQ(nlohmann::json::parse(read_file(json))["nodes"].size(), 0u);
}

TEST(LiteratureCli, ListAndSolveShareTheirFormats) {
  // perm: space-separated 1-based rows, the same in list and solve.
  const std::vector<std::string> listed = lines_of(nqcount("list --n 8 --limit 3").out);
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0], "1 5 8 6 3 7 2 4");
  const std::string solved = nqcount("solve --n 8 --seed 4").out;
  EXPECT_TRUE(is_solution(numbers_of(solved)));
  EXPECT_EQ(solved.find(','), std::string::npos);
  // board: n rows of n characters, a blank line between boards (none after the last).
  const std::vector<std::string> boards = lines_of(nqcount("list --n 6 --format board").out);
  ASSERT_EQ(boards.size(), 4u * 6u + 3u);
  EXPECT_EQ(boards[0].size(), 6u);
  EXPECT_EQ(boards[6], "");
  const std::vector<std::string> two =
      lines_of(nqcount("solve --n 6 --solutions 2 --format board").out);
  ASSERT_EQ(two.size(), 2u * 6u + 1u);
  EXPECT_EQ(two[6], "");
  // list --json: one object per line, as solve --format json writes one solution.
  const std::vector<std::string> js = lines_of(nqcount("list --n 6 --json").out);
  ASSERT_EQ(js.size(), 4u);
  const auto first = nlohmann::json::parse(js[0]);
  EXPECT_EQ(first["n"], 6);
  EXPECT_EQ(first["solution"], nlohmann::json({2, 4, 6, 1, 3, 5}));
  expect_usage_error("list --n 6 --json --format board");
  const auto solve_json = nlohmann::json::parse(nqcount("solve --n 6 --format json").out);
  EXPECT_EQ(solve_json.size(), first.size());
}

TEST(LiteratureCli, PermAcceptsThreeSpellings) {
  const std::string want = nqcount("orbit --perm 2,4,1,3 --json").out;
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(nqcount("orbit --perm '2 4 1 3' --json").out, want);
  EXPECT_EQ(nqcount("orbit --perm '(2, 4, 1, 3)' --json").out, want);
  EXPECT_EQ(nqcount("orbit --perm ' ( 2,4, 1,3 ) ' --json").out, want);
  for (const char* bad : {"orbit --perm '2,,4,1,3'", "orbit --perm '(2 4 1 3'",
                          "orbit --perm '2 4, 1 3'", "orbit --perm '()'", "orbit --perm '2 4 1 4'"})
    expect_usage_error(bad);
}

TEST(LiteratureCli, BatchTakesManyPerLineABomAndReportsNoSolution) {
  const std::string file = temp_path("batch.txt");
  {
    std::ofstream f(file, std::ios::binary);
    f << "\xEF\xBB\xBF"
      << "8 2 5\n# a comment\n\n3, 12\n";
  }
  const Outcome r = nqcount("solve --batch " + file + " --seed 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> out = lines_of(r.out);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_TRUE(is_solution(numbers_of(out[0])));
  EXPECT_EQ(numbers_of(out[0]).size(), 8u);
  EXPECT_EQ(out[1], "no solution");
  EXPECT_TRUE(is_solution(numbers_of(out[2])));
  EXPECT_EQ(out[3], "no solution");
  EXPECT_EQ(numbers_of(out[4]).size(), 12u);
  const auto j = nlohmann::json::parse(nqcount("solve --batch " + file + " --seed 1 --json").out);
  ASSERT_EQ(j["runs"].size(), 5u);
  EXPECT_EQ(j["runs"][1]["status"], "no solution");
  EXPECT_FALSE(j["runs"][1].contains("solution"));
  EXPECT_TRUE(j["runs"][0].contains("solution"));
  {
    std::ofstream f(file, std::ios::binary);
    f << "8 x 5\n";
  }
  // A bad entry among good ones on a line: reported with its line, the others solved.
  const Outcome bad = nqcount("solve --batch " + file + " --seed 1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.rfind("nqcount: error: " + file + ":1: 'x' is not a board size", 0), 0u)
      << bad.err;
  const std::vector<std::string> good = lines_of(bad.out);
  ASSERT_EQ(good.size(), 2u);
  EXPECT_EQ(numbers_of(good[0]).size(), 8u);
  EXPECT_EQ(numbers_of(good[1]).size(), 5u);
}

}  // namespace
}  // namespace nq::test
