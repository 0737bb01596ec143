// `nqcount edit --perm P (--inc R,C | --del R,C | --mov R,C,R2,C2)`: the Inc, Del and Mov
// operators of the algebra on one solution.
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

int run_edit(const EditArgs& args) {
  const std::optional<Perm> parsed = perm_argument(args.perm);
  if (!parsed) return 2;
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

}  // namespace nq::cli
