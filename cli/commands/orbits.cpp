// `nqcount orbits --n N [--method enumerate|algebraic]`: every orbit of an n-board, by
// enumeration or grown algebraically from the orbits of n-1, checked against the enumeration.
#include "engine/algebra/orbits.hpp"

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "cli/io/output_file.hpp"
#include "cli/io/perm_text.hpp"
#include "cli/io/stdout_stream.hpp"
#include "engine/algebra/algebra.hpp"
#include "engine/count/count.hpp"

namespace nq::cli {
namespace {

std::string perm_digits(const Perm& p) {  // a node's name: "1_3_5_2_4"
  return perm_text(p, '_');
}

std::string step_label(const GrowthEdge& e) {
  switch (e.step) {
    case GrowthStep::kInc:
      return "Inc(" + paper_position(2 * e.row_gap + 1) + "," + paper_position(2 * e.col_gap + 1) +
             ")";
    case GrowthStep::kMov:
      return "Mov";
    case GrowthStep::kDoubleMov:
      return "Mov∘Mov";
  }
  return "";
}

// The growth graph: one node per orbit (every level from the base up), one edge per orbit found
// from n = 5 on, from the orbit it grew from, labelled with the step. DOT, or JSON for a *.json
// file. `base` is the orbits the growth starts from (enumerated, n <= 4): nodes too, with or
// without an edge (at n <= 4 there is no edge at all).
std::string growth_graph(int n, const std::vector<Orbit>& base,
                         const std::vector<GrowthEdge>& edges, bool json) {
  std::map<Perm, int> level_of;  // every orbit named in an edge, by canonical form
  for (const Orbit& o : base) level_of[o.canonical] = static_cast<int>(o.canonical.size());
  for (const GrowthEdge& e : edges) {
    level_of[e.from] = static_cast<int>(e.from.size());
    level_of[e.to] = static_cast<int>(e.to.size());
  }
  if (json) {
    nlohmann::json nodes = nlohmann::json::array(), links = nlohmann::json::array();
    for (const auto& [p, level] : level_of)
      nodes.push_back({{"n", level}, {"canonical", perm_json(p)}});
    for (const GrowthEdge& e : edges) {
      nlohmann::json link{{"step", e.step == GrowthStep::kInc   ? "inc"
                                   : e.step == GrowthStep::kMov ? "mov"
                                                                : "double_mov"},
                          {"from", perm_json(e.from)},
                          {"to", perm_json(e.to)}};
      if (e.step == GrowthStep::kInc)
        link["at"] = {paper_position(2 * e.row_gap + 1), paper_position(2 * e.col_gap + 1)};
      links.push_back(std::move(link));
    }
    return nlohmann::json{{"n", n}, {"nodes", nodes}, {"edges", links}}.dump() + "\n";
  }
  std::string dot = "// nqcount orbits --n " + std::to_string(n) +
                    " --method algebraic: which step found which orbit from which\n"
                    "// render: dot -Tsvg FILE -o growth.svg\ndigraph growth {\n"
                    "  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n";
  std::map<int, std::string> ranks;
  for (const auto& [p, level] : level_of) ranks[level] += " \"" + perm_digits(p) + "\"";
  for (const auto& [level, names] : ranks)
    dot += "  { rank=same;" + names + " }  // n = " + std::to_string(level) + "\n";
  for (const auto& [p, level] : level_of)
    dot += "  \"" + perm_digits(p) + "\" [label=\"" + perm_text(p) + "\"];\n";
  for (const GrowthEdge& e : edges)
    dot += "  \"" + perm_digits(e.from) + "\" -> \"" + perm_digits(e.to) + "\" [label=\"" +
           step_label(e) + "\"" + (e.step == GrowthStep::kInc ? "" : ", style=dashed") + "];\n";
  return dot + "}\n";
}

// What run_orbits found, and prints.
struct OrbitsFound {
  std::vector<Orbit> orbits;
  AlgebraicOrbits grown;
  std::vector<GrowthEdge> edges;
  bool matches = true;  // the algebraic search agrees with the enumeration
  std::uint64_t by_size[9] = {};
  std::uint64_t total = 0;
  SignatureCheck sig;
};

// The orbits by the method asked for (and the growth's edges when `edges` are wanted), checked
// against the enumeration when the method is algebraic, with their sizes and signatures.
Expected<OrbitsFound> find_orbits(const OrbitsArgs& args, bool edges) {
  OrbitsFound f;
  const bool algebraic = args.method == "algebraic";
  if (algebraic) {
    auto a = algebraic_orbits(args.n, edges ? &f.edges : nullptr, args.threads);
    if (!a) return a.error();
    f.grown = std::move(a.value());
    f.orbits = f.grown.orbits;
  }
  auto e = enumerate_orbits(args.n, args.threads);
  if (!e) return e.error();
  if (!algebraic) {
    f.orbits = std::move(e.value());
  } else {
    f.matches = e->size() == f.orbits.size();
    for (std::size_t i = 0; f.matches && i < f.orbits.size(); ++i)
      f.matches = (*e)[i].canonical == f.orbits[i].canonical && (*e)[i].size == f.orbits[i].size;
  }
  for (const Orbit& o : f.orbits) {
    ++f.by_size[o.size];
    f.total += static_cast<std::uint64_t>(o.size);
  }
  f.sig = check_signatures(f.orbits);
  return f;
}

nlohmann::json orbits_json(const OrbitsArgs& args, const OrbitsFound& f) {
  nlohmann::json j;
  j["n"] = args.n;
  j["method"] = args.method;
  j["threads"] = resolve_threads(args.threads);
  j["count"] = f.orbits.size();
  j["total"] = f.total;
  j["sizes"] = {{"1", f.by_size[1]}, {"2", f.by_size[2]}, {"4", f.by_size[4]}, {"8", f.by_size[8]}};
  nlohmann::json list = nlohmann::json::array();
  for (const Orbit& o : f.orbits)
    list.push_back({{"canonical", perm_json(o.canonical)}, {"size", o.size}});
  j["orbits"] = std::move(list);
  nlohmann::json counter = nlohmann::json::array();
  for (const SignatureCollision& c : f.sig.collisions)
    counter.push_back(
        {perm_json(f.orbits[c.first].canonical), perm_json(f.orbits[c.second].canonical)});
  nlohmann::json bad = nlohmann::json::array();
  for (std::size_t k : f.sig.not_invariant) bad.push_back(perm_json(f.orbits[k].canonical));
  j["signatures"] = {{"distinct", f.sig.distinct},
                     {"separates_orbits", f.sig.collisions.empty()},
                     {"counterexamples", counter},
                     {"invariant_within_orbits", f.sig.not_invariant.empty()},
                     {"not_invariant", bad}};
  if (args.method != "algebraic") return j;
  nlohmann::json levels = nlohmann::json::array();
  for (const AlgebraicLevel& x : f.grown.levels)
    levels.push_back({{"n", x.n},
                      {"seeds", x.seeds},
                      {"from_inc", x.from_inc},
                      {"from_mov", x.from_mov},
                      {"orbits", x.orbits},
                      {"inc_steps", x.inc_steps},
                      {"mov_steps", x.mov_steps},
                      {"double_mov_steps", x.double_mov_steps},
                      {"mov_rounds", x.mov_rounds},
                      {"double_mov_rounds", x.double_mov_rounds},
                      {"by_enumeration", x.by_enumeration}});
  const AlgebraicLevel& l = f.grown.levels.back();
  j["seeds"] = l.seeds;
  j["from_inc"] = l.from_inc;
  j["from_mov"] = l.from_mov;
  j["inc_steps"] = l.inc_steps;
  j["mov_steps"] = l.mov_steps;
  j["double_mov_steps"] = l.double_mov_steps;
  j["levels"] = std::move(levels);
  j["matches_enumerate"] = f.matches;
  return j;
}

// The text form's comment lines, above the list of orbits.
std::string orbits_head(const OrbitsArgs& args, const OrbitsFound& f) {
  std::ostringstream head;
  head << "# n = " << args.n << ", method " << args.method << ": " << f.orbits.size()
       << " orbits (U1=" << f.by_size[1] << " U2=" << f.by_size[2] << " U4=" << f.by_size[4]
       << " U8=" << f.by_size[8] << "), " << f.total << " solutions\n";
  if (args.method == "algebraic") {
    for (const AlgebraicLevel& x : f.grown.levels) {
      head << "# level n = " << x.n << ": ";
      if (x.by_enumeration) {
        head << x.orbits << " orbits, the base, by enumeration\n";
        continue;
      }
      head << "from " << x.seeds << " orbits of n = " << x.n - 1 << ", Inc found " << x.from_inc
           << " (" << x.inc_steps << " steps), Mov closure " << x.from_mov << " (" << x.mov_steps
           << " steps), double moves " << x.orbits << " (" << x.double_mov_steps << " steps)\n";
    }
    const AlgebraicLevel& l = f.grown.levels.back();
    head << "# the paper's Inc and Mov alone found " << l.from_mov << " of " << l.orbits
         << " orbits at n = " << args.n << "\n";
    head << "# matches enumerate: " << (f.matches ? "yes" : "NO") << "\n";
  }
  head << "# signatures: " << f.sig.distinct << " distinct among " << f.orbits.size() << " orbits; "
       << (f.sig.collisions.empty() ? "no counterexample to the claim that they separate orbits"
                                    : "COUNTEREXAMPLE to the claim that they separate orbits")
       << "\n";
  for (const SignatureCollision& c : f.sig.collisions)
    head << "# counterexample: " << perm_text(f.orbits[c.first].canonical) << " and "
         << perm_text(f.orbits[c.second].canonical) << " have equal signatures\n";
  for (std::size_t k : f.sig.not_invariant)
    head << "# BUG: the members of " << perm_text(f.orbits[k].canonical)
         << " have different signatures\n";
  head << "# canonical size\n";
  return head.str();
}

// Opens --graph's file when one is asked for; false after printing why it cannot be.
bool open_graph(const OrbitsArgs& args, std::unique_ptr<OutputFile>& graph) {
  if (args.graph.empty()) return true;
  if (args.method != "algebraic") {
    print_error("--graph draws the algebraic growth: use it with --method algebraic");
    return false;
  }
  if (const std::string bad = outputs_error({{"--graph", args.graph}}, args.json); !bad.empty()) {
    print_error(bad);
    return false;
  }
  graph = std::make_unique<OutputFile>(args.graph, "--graph");
  std::string error;
  if (!graph->open(&error)) {
    print_error(error);
    return false;
  }
  return true;
}

}  // namespace

int run_orbits(const OrbitsArgs& args) {
  std::unique_ptr<OutputFile> graph;
  warn_if_oversubscribed(args.threads);
  if (!open_graph(args, graph)) return 2;
  const auto found = find_orbits(args, graph != nullptr);
  if (!found) {
    print_error(found.error().message);
    return 2;
  }
  const OrbitsFound& f = *found;
  if (graph) {
    const bool json = args.graph.size() >= 5 && args.graph.rfind(".json") == args.graph.size() - 5;
    std::string error;
    if (!graph->write(growth_graph(args.n, f.grown.base, f.edges, json), &error) ||
        !graph->commit(&error)) {
      print_error(error);
      return 2;
    }
  }
  StdoutStream out;
  if (args.json) {
    out.put(orbits_json(args, f).dump());
    out.put('\n');
  } else {
    out.put(orbits_head(args, f));
    for (const Orbit& o : f.orbits) {
      if (out.failed()) break;
      out.put(perm_text(o.canonical));
      out.put(' ');
      out.put_int(o.size);
      out.put('\n');
    }
  }
  // One check for both forms: the JSON object is standard output too.
  out.flush();
  if (out.failed() && !out.closed()) {
    print_error("cannot write to standard output: " + out.error_text());
    return 2;
  }
  if (!f.sig.collisions.empty())
    std::cerr << "nqcount: note: " << f.sig.collisions.size()
              << " pair(s) of orbits share a signature: a counterexample to the paper's claim\n";
  if (!f.sig.not_invariant.empty()) {
    print_error("signature not invariant within an orbit (a bug; see the output)");
    return 1;
  }
  if (!f.matches) {
    std::cerr << "nqcount: the algebraic search does not match the enumeration for n = " << args.n
              << "\n";
    return 1;
  }
  return 0;
}

}  // namespace nq::cli
