// `nqcount orbit --perm P`: the images of a solution under D4, its canonical form, orbit size
// and signature.
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "cli/io/perm_text.hpp"
#include "cli/io/stdout_stream.hpp"
#include "engine/algebra/algebra.hpp"
#include "engine/algebra/orbits.hpp"
#include "engine/count/count.hpp"

namespace nq::cli {

int run_orbit(const OrbitArgs& args) {
  const std::optional<Perm> parsed = perm_argument(args.perm);
  if (!parsed) return 2;
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

}  // namespace nq::cli
