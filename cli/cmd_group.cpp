// `nqcount group`: the multiplication table of the eight permutation operations po1..po8 (the
// D4 group acting on solutions), each entry computed from the operations' definitions
// (engine/algebra/algebra.hpp, compose). Row f, column g holds f∘g: apply g first, then f.
#include <iostream>
#include <string>

#include "algebra/algebra.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"

namespace nq::cli {

int run_group(const GroupArgs& args) {
  if (args.json) {
    nlohmann::json elements = nlohmann::json::array();
    for (PermOp op : kAllPermOps)
      elements.push_back(
          {{"name", info(op).name}, {"formula", info(op).formula}, {"meaning", info(op).meaning}});
    nlohmann::json table = nlohmann::json::object();
    for (PermOp f : kAllPermOps)
      for (PermOp g : kAllPermOps)
        table[std::string(info(f).name)][std::string(info(g).name)] = info(compose(f, g)).name;
    std::cout << nlohmann::json{{"composition", "f∘g: apply g first, then f; table[f][g]"},
                                {"elements", elements},
                                {"table", table}}
                     .dump()
              << "\n";
    return 0;
  }
  std::string text;
  for (PermOp op : kAllPermOps)
    text += std::string(info(op).name) + " = " + std::string(info(op).formula) + " (" +
            std::string(info(op).meaning) + ")\n";
  text += "\nrow f, column g: f∘g (apply g first, then f)\n\n  f∘g";
  for (PermOp g : kAllPermOps) text += "  " + std::string(info(g).name);
  text += "\n";
  for (PermOp f : kAllPermOps) {
    text += "  " + std::string(info(f).name);
    for (PermOp g : kAllPermOps) text += "  " + std::string(info(compose(f, g)).name);
    text += "\n";
  }
  std::cout << text;
  return 0;
}

}  // namespace nq::cli
