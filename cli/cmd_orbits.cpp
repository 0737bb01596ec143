// `nqcount orbits --n N [--method enumerate|algebraic]`: every orbit of an n-board, by
// enumeration or grown algebraically from the orbits of n-1, checked against the enumeration.
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "algebra/algebra.hpp"
#include "algebra/orbits.hpp"
#include "cli/commands.hpp"
#include "cli/io/stdout_stream.hpp"
#include "cli/output.hpp"
#include "cli/perm_text.hpp"
#include "count/known.hpp"

namespace nq::cli {

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

}  // namespace nq::cli
