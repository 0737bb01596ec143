// `nqcount group [--orientation composition|paper]`: the multiplication table of the eight
// permutation operations po1..po8 (the D4 group acting on solutions), each entry computed from
// the operations' definitions (engine/algebra/algebra.hpp, compose). composition (the default):
// row f, column g holds f∘g, apply g first, then f. paper: row f, column g holds g∘f, apply f
// first, then g: the transpose, the orientation of Zhang & Zhang's Table 1. The header says
// which.
#include <iostream>
#include <string>

#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "engine/algebra/algebra.hpp"

namespace nq::cli {

int run_group(const GroupArgs& args) {
  const bool paper = args.orientation == "paper";
  // The entry of row f, column g.
  auto entry = [paper](PermOp f, PermOp g) {
    return std::string(info(paper ? compose(g, f) : compose(f, g)).name);
  };
  const std::string corner = paper ? "g∘f" : "f∘g";
  const std::string meaning =
      paper ? "row f, column g: g∘f (apply f first, then g), the orientation of the paper's Table 1"
            : "row f, column g: f∘g (apply g first, then f), the transpose of the paper's Table 1 "
              "(--orientation paper prints the paper's)";
  if (args.json) {
    nlohmann::json elements = nlohmann::json::array();
    for (PermOp op : kAllPermOps)
      elements.push_back(
          {{"name", info(op).name}, {"formula", info(op).formula}, {"meaning", info(op).meaning}});
    nlohmann::json table = nlohmann::json::object();
    for (PermOp f : kAllPermOps)
      for (PermOp g : kAllPermOps)
        table[std::string(info(f).name)][std::string(info(g).name)] = entry(f, g);
    std::cout << nlohmann::json{{"orientation", args.orientation},
                                {"composition", paper ? "g∘f: apply f first, then g; table[f][g]"
                                                      : "f∘g: apply g first, then f; table[f][g]"},
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
  text += "\n" + meaning + "\n\n  " + corner;
  for (PermOp g : kAllPermOps) text += "  " + std::string(info(g).name);
  text += "\n";
  for (PermOp f : kAllPermOps) {
    text += "  " + std::string(info(f).name);
    for (PermOp g : kAllPermOps) text += "  " + entry(f, g);
    text += "\n";
  }
  std::cout << text;
  return 0;
}

}  // namespace nq::cli
