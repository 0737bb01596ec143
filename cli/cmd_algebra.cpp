// The D4 algebra tools: `orbit`, `edit`, `orbits`, and `count --algo dp` (the cross-check).
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "algebra/algebra.hpp"
#include "algebra/dp.hpp"
#include "algebra/orbits.hpp"
#include "cli/commands.hpp"
#include "cli/io/stdout_stream.hpp"
#include "cli/output.hpp"
#include "count/known.hpp"

namespace nq::cli {
namespace {

// The user's text, shortened for an error line.
std::string quoted(const std::string& s) {
  return "'" + (s.size() <= 40 ? s : s.substr(0, 37) + "...") + "'";
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> parts(1);
  for (char ch : s) {
    if (ch == ',')
      parts.emplace_back();
    else if (ch != ' ')
      parts.back().push_back(ch);
  }
  return parts;
}

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;  // 9 digits: no overflow of int
  for (char ch : s)
    if (ch < '0' || ch > '9') return false;
  return true;
}

// "2,4,1,3" -> {1, 3, 0, 2}: 1-based rows in, 0-based out, checked to be a permutation.
Expected<Perm> parse_perm(const std::string& text) {
  const std::string what = "--perm " + quoted(text);
  const std::vector<std::string> parts = split_commas(text);
  if (parts.size() > static_cast<std::size_t>(kMaxPermN))
    return Error{what + ": more than " + std::to_string(kMaxPermN) + " entries"};
  const int n = static_cast<int>(parts.size());
  Perm p(parts.size());
  std::vector<char> seen(parts.size(), 0);
  for (int i = 0; i < n; ++i) {
    const bool digits =
        !parts[i].empty() && parts[i].find_first_not_of("0123456789") == std::string::npos;
    if (digits && !all_digits(parts[i]))  // too many digits for an int
      return Error{what + ": " + quoted(parts[i]) + " is out of range; the rows are 1.." +
                   std::to_string(n)};
    if (!all_digits(parts[i]))
      return Error{what + ": entry " + std::to_string(i + 1) + " " + quoted(parts[i]) +
                   " is not a whole number; expected comma-separated rows 1.." + std::to_string(n) +
                   ", e.g. 2,4,1,3"};
    const int v = std::stoi(parts[i]);
    if (v < 1 || v > n)
      return Error{what + ": " + std::to_string(v) + " is out of range; a permutation of " +
                   std::to_string(n) + " entries uses the rows 1.." + std::to_string(n)};
    if (seen[v - 1])
      return Error{what + ": " + std::to_string(v) +
                   " appears twice; a permutation lists each row once"};
    seen[v - 1] = 1;
    p[i] = v - 1;
  }
  return p;
}

// "0.5" -> 1, "3" -> 6: a position in the paper's coordinates, doubled.
Expected<int> parse_position(const std::string& token, const std::string& what) {
  const std::size_t dot = token.find('.');
  const std::string whole = token.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : token.substr(dot + 1);
  const bool ok = all_digits(whole) && (dot == std::string::npos || frac == "5" || frac == "0");
  if (!ok || whole.size() > 8)
    return Error{what + ": " + quoted(token) +
                 " is not a position; expected a whole number (a queen's row or column) or a "
                 "half-integer such as 0.5 (a gap)"};
  return 2 * std::stoi(whole) + (frac == "5" ? 1 : 0);
}

Expected<std::vector<int>> parse_positions(const std::string& text, std::size_t count,
                                           const std::string& flag) {
  const std::string what = flag + " " + quoted(text);
  const std::vector<std::string> parts = split_commas(text);
  if (parts.size() != count)
    return Error{what + ": expected " + std::to_string(count) + " comma-separated positions (" +
                 (count == 2 ? "R,C" : "R,C,R2,C2") + ")"};
  std::vector<int> out;
  for (const std::string& s : parts) {
    auto v = parse_position(s, what);
    if (!v) return v.error();
    out.push_back(*v);
  }
  return out;
}

std::string perm_text(const Perm& p) {
  std::string s;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(p[i] + 1);
  }
  return s;
}

nlohmann::json perm_json(const Perm& p) {
  nlohmann::json a = nlohmann::json::array();
  for (int v : p) a.push_back(v + 1);
  return a;
}

std::string paper_position(int doubled) {
  return std::to_string(doubled / 2) + (doubled % 2 ? ".5" : "");
}

// The solution's symmetry, from its stabilizer. For a solution (n > 1) it is a group of
// rotations: {po1}, {po1, po7} or {po1, po6, po7, po8}. Bits: po1 = 0x01, po6 = 0x20,
// po7 = 0x40, po8 = 0x80.
std::string symmetry_name(const OrbitInfo& o) {
  const unsigned stab = o.stabilizer;
  if (stab == 0x01) return "none";
  if (stab == 0xff) return "all";  // n = 1
  if (stab == 0xe1) return "90";
  if (stab == 0x41) return "180";
  return "reflection";  // only a permutation that is not a solution
}

std::string symmetry_text(const std::string& s) {
  if (s == "none") return "none (trivial stabilizer)";
  if (s == "90") return "90° (invariant under the rotation by 90°, hence 180°)";
  if (s == "180") return "180° (invariant under the rotation by 180° only)";
  if (s == "all") return "every operation fixes it";
  return "a reflection fixes it";
}

std::string triples_text(const std::vector<SignatureTriple>& t) {
  if (t.empty()) return "(none: fewer than three queens)";
  std::string s;
  for (const SignatureTriple& x : t) {
    if (!s.empty()) s += ' ';
    s += '(';
    s += std::to_string(x.ab2);
    s += ',';
    s += std::to_string(x.area);
    s += ',';
    s += std::to_string(x.bc2);
    s += ')';
  }
  return s;
}

nlohmann::json triples_json(const std::vector<SignatureTriple>& t) {
  nlohmann::json a = nlohmann::json::array();
  for (const SignatureTriple& x : t) a.push_back({x.ab2, x.area, x.bc2});
  return a;
}

}  // namespace

int run_orbit(const OrbitArgs& args) {
  auto parsed = parse_perm(args.perm);
  if (!parsed) {
    print_error(parsed.error().message);
    return 2;
  }
  const Perm& p = *parsed;
  const bool solution = is_solution(p);
  const OrbitInfo o = orbit_of(p);
  const Signature sig = signature(p);
  const std::string sym = symmetry_name(o);
  if (args.json) {
    nlohmann::json j;
    j["n"] = p.size();
    j["perm"] = perm_json(p);
    j["is_solution"] = solution;
    nlohmann::json images = nlohmann::json::array();
    for (PermOp op : kAllPermOps) {
      const PermOpInfo& i = info(op);
      const Perm& img = o.images[static_cast<int>(op)];
      images.push_back({{"name", i.name},
                        {"operation", i.formula},
                        {"meaning", i.meaning},
                        {"perm", perm_json(img)},
                        {"is_solution", solution}});  // D4 maps solutions to solutions
    }
    j["images"] = images;
    j["canonical"] = perm_json(o.canonical);
    j["orbit_size"] = o.size;
    j["symmetry"] = sym;
    nlohmann::json stab = nlohmann::json::array();
    for (PermOp op : kAllPermOps)
      if ((o.stabilizer >> static_cast<int>(op)) & 1u) stab.push_back(info(op).name);
    j["stabilizer"] = stab;
    j["signature"] = {{"x", triples_json(sig.x)}, {"y", triples_json(sig.y)}};
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::ostringstream out;
  out << "permutation  " << perm_text(p) << "  (n = " << p.size() << ", "
      << (solution ? "a solution" : "NOT a solution: two queens share a diagonal") << ")\n";
  out << "images\n";
  for (PermOp op : kAllPermOps) {
    const PermOpInfo& i = info(op);
    std::string label = std::string(i.name) + "  " + std::string(i.formula);
    if (i.formula != i.meaning) label += " (" + std::string(i.meaning) + ")";
    // Pad by characters, not bytes: the labels hold '∘' and '°'.
    std::size_t width = 0;
    for (unsigned char ch : label) width += (ch & 0xc0) != 0x80;
    out << "  " << label << std::string(width < 52 ? 52 - width : 1, ' ')
        << perm_text(o.images[static_cast<int>(op)]) << "\n";
  }
  out << "canonical    " << perm_text(o.canonical) << "\n";
  out << "orbit size   " << o.size << "\n";
  out << "symmetry     " << symmetry_text(sym) << "\n";
  out << "signature x  " << triples_text(sig.x) << "\n";
  out << "signature y  " << triples_text(sig.y) << "\n";
  if (!solution) out << "note         not a solution: its images are not solutions either\n";
  std::cout << out.str();
  return 0;
}

int run_edit(const EditArgs& args) {
  auto parsed = parse_perm(args.perm);
  if (!parsed) {
    print_error(parsed.error().message);
    return 2;
  }
  const int given = !args.inc.empty() + !args.del.empty() + !args.mov.empty();
  if (given != 1) {
    print_error("give exactly one of --inc R,C, --del R,C or --mov R,C,R2,C2");
    return 2;
  }
  Edit e;
  std::string op_text;
  if (!args.mov.empty()) {
    auto v = parse_positions(args.mov, 4, "--mov");
    if (!v) {
      print_error(v.error().message);
      return 2;
    }
    e = {EditKind::kMov, (*v)[0], (*v)[1], (*v)[2], (*v)[3]};
    op_text = "Mov(" + paper_position(e.row2) + ", " + paper_position(e.col2) + ", " +
              paper_position(e.new_row2) + ", " + paper_position(e.new_col2) + ")";
  } else {
    const bool inc = !args.inc.empty();
    auto v = parse_positions(inc ? args.inc : args.del, 2, inc ? "--inc" : "--del");
    if (!v) {
      print_error(v.error().message);
      return 2;
    }
    e = {inc ? EditKind::kInc : EditKind::kDel, (*v)[0], (*v)[1]};
    op_text = std::string(inc ? "Inc(" : "Del(") + paper_position(e.row2) + ", " +
              paper_position(e.col2) + ")";
  }
  auto result = apply_edit(*parsed, e);
  if (!result) {
    print_error(op_text + ": " + result.error().message);
    return 2;
  }
  const Perm& r = *result;
  const bool solution = is_solution(r);
  if (args.json) {
    nlohmann::json j;
    j["perm"] = perm_json(*parsed);
    j["operation"] = op_text;
    j["result"] = perm_json(r);
    j["n"] = r.size();
    j["is_solution"] = solution;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << op_text << " on " << perm_text(*parsed) << "\n"
              << "result  " << (r.empty() ? "(no queens)" : perm_text(r)) << "  (n = " << r.size()
              << ", " << (solution ? "a solution" : "not a solution") << ")\n";
  }
  return 0;
}

int run_orbits(const OrbitsArgs& args) {
  const int n = args.n;
  const bool algebraic = args.method == "algebraic";
  std::vector<Orbit> orbits;
  AlgebraicOrbits grown;
  if (algebraic) {
    auto a = algebraic_orbits(n);
    if (!a) {
      print_error(a.error().message);
      return 2;
    }
    grown = std::move(a.value());
    orbits = grown.orbits;
  } else {
    auto e = enumerate_orbits(n);
    if (!e) {
      print_error(e.error().message);
      return 2;
    }
    orbits = std::move(e.value());
  }
  bool matches = true;
  if (algebraic) {
    auto e = enumerate_orbits(n);
    if (!e) {
      print_error(e.error().message);
      return 2;
    }
    matches = e->size() == orbits.size();
    for (std::size_t i = 0; matches && i < orbits.size(); ++i)
      matches = (*e)[i].canonical == orbits[i].canonical && (*e)[i].size == orbits[i].size;
  }
  std::uint64_t by_size[9] = {}, total = 0;
  for (const Orbit& o : orbits) {
    ++by_size[o.size];
    total += static_cast<std::uint64_t>(o.size);
  }
  const SignatureCheck sig = check_signatures(orbits);
  const bool sig_bug = !sig.not_invariant.empty();

  if (args.json) {
    nlohmann::json j;
    j["n"] = n;
    j["method"] = args.method;
    j["count"] = orbits.size();
    j["total"] = total;
    j["sizes"] = {{"1", by_size[1]}, {"2", by_size[2]}, {"4", by_size[4]}, {"8", by_size[8]}};
    nlohmann::json list = nlohmann::json::array();
    for (const Orbit& o : orbits)
      list.push_back({{"canonical", perm_json(o.canonical)}, {"size", o.size}});
    j["orbits"] = std::move(list);
    nlohmann::json counter = nlohmann::json::array();
    for (const SignatureCollision& c : sig.collisions)
      counter.push_back(
          {perm_json(orbits[c.first].canonical), perm_json(orbits[c.second].canonical)});
    nlohmann::json bad = nlohmann::json::array();
    for (std::size_t k : sig.not_invariant) bad.push_back(perm_json(orbits[k].canonical));
    j["signatures"] = {{"distinct", sig.distinct},
                       {"separates_orbits", sig.collisions.empty()},
                       {"counterexamples", counter},
                       {"invariant_within_orbits", !sig_bug},
                       {"not_invariant", bad}};
    if (algebraic) {
      const AlgebraicLevel& l = grown.levels.back();
      nlohmann::json levels = nlohmann::json::array();
      for (const AlgebraicLevel& x : grown.levels)
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
      j["seeds"] = l.seeds;
      j["from_inc"] = l.from_inc;
      j["from_mov"] = l.from_mov;
      j["inc_steps"] = l.inc_steps;
      j["mov_steps"] = l.mov_steps;
      j["double_mov_steps"] = l.double_mov_steps;
      j["levels"] = std::move(levels);
      j["matches_enumerate"] = matches;
    }
    StdoutStream out;
    out.put(j.dump());
    out.put('\n');
  } else {
    std::ostringstream head;
    head << "# n = " << n << ", method " << args.method << ": " << orbits.size()
         << " orbits (U2=" << by_size[2] << " U4=" << by_size[4] << " U8=" << by_size[8] << "), "
         << total << " solutions\n";
    if (algebraic) {
      for (const AlgebraicLevel& x : grown.levels) {
        head << "# level n = " << x.n << ": ";
        if (x.by_enumeration) {
          head << x.orbits << " orbits, the base, by enumeration\n";
          continue;
        }
        head << "from " << x.seeds << " orbits of n = " << x.n - 1 << ", Inc found " << x.from_inc
             << " (" << x.inc_steps << " steps), Mov closure " << x.from_mov << " (" << x.mov_steps
             << " steps), double moves " << x.orbits << " (" << x.double_mov_steps << " steps)\n";
      }
      const AlgebraicLevel& l = grown.levels.back();
      head << "# the paper's Inc and Mov alone found " << l.from_mov << " of " << l.orbits
           << " orbits at n = " << n << "\n";
      head << "# matches enumerate: " << (matches ? "yes" : "NO") << "\n";
    }
    head << "# signatures: " << sig.distinct << " distinct among " << orbits.size() << " orbits; "
         << (sig.collisions.empty() ? "no counterexample to the claim that they separate orbits"
                                    : "COUNTEREXAMPLE to the claim that they separate orbits")
         << "\n";
    for (const SignatureCollision& c : sig.collisions)
      head << "# counterexample: " << perm_text(orbits[c.first].canonical) << " and "
           << perm_text(orbits[c.second].canonical) << " have equal signatures\n";
    for (std::size_t k : sig.not_invariant)
      head << "# BUG: the members of " << perm_text(orbits[k].canonical)
           << " have different signatures\n";
    head << "# canonical size\n";
    StdoutStream out;
    out.put(head.str());
    for (const Orbit& o : orbits) {
      if (out.failed()) break;
      out.put(perm_text(o.canonical));
      out.put(' ');
      out.put_int(o.size);
      out.put('\n');
    }
    out.flush();
    if (out.failed() && !out.closed()) {
      print_error("cannot write the output: " + out.error_text());
      return 1;
    }
  }
  if (!sig.collisions.empty())
    std::cerr << "nqcount: note: " << sig.collisions.size()
              << " pair(s) of orbits share a signature: a counterexample to the paper's claim\n";
  if (sig_bug) {
    print_error("signature not invariant within an orbit (a bug; see the output)");
    return 1;
  }
  if (!matches) {
    std::cerr << "nqcount: the algebraic search does not match the enumeration for n = " << n
              << "\n";
    return 1;
  }
  return 0;
}

int run_count_dp(const CountArgs& args) {
  auto out = count_by_closed_lines(args.n);
  if (!out) {
    print_error(out.error().message);
    return 2;
  }
  const DpResult& r = *out;
  const auto known = known_value(r.n);
  const bool match = known && r.total == known->total;
  if (args.json) {
    nlohmann::json j;
    j["n"] = r.n;
    j["algo"] = "dp";
    j["total"] = r.total;
    j["peak_states"] = r.peak_states;
    j["merges"] = r.merges;
    j["seconds"] = r.seconds;
    j["verified"] = known ? nlohmann::json(match) : nlohmann::json(nullptr);
    std::cout << j.dump() << "\n";
  } else {
    std::ostringstream o;
    o << std::left;
    auto line = [&](const char* k, const std::string& v) { o << std::setw(13) << k << v << "\n"; };
    line("n", std::to_string(r.n));
    line("total", std::to_string(r.total));
    line("algo", "dp (Rivin-Zabih, closed-line sets; total only)");
    line("peak states", std::to_string(r.peak_states));
    line("merges", std::to_string(r.merges));
    std::ostringstream secs;
    secs << std::fixed << std::setprecision(3) << r.seconds;
    line("seconds", secs.str());
    if (args.verify)
      line("verified", !known  ? "no known value"
                       : match ? "yes, matches the known table"
                               : "NO: the known table says total " + std::to_string(known->total));
    std::cout << o.str();
  }
  if (args.verify && known && !match) {
    std::cerr << "nqcount: verify FAILED for n = " << r.n << "\n";
    return 1;
  }
  return 0;
}

}  // namespace nq::cli
