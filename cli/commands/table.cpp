// `nqcount table [--n N]`: the known values of Q(n) and unique(n) (the project's own copy of the
// reference table, for checking).
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/commands/commands.hpp"
#include "cli/io/output.hpp"
#include "engine/count/known.hpp"

namespace nq::cli {

int run_table(const TableArgs& args) {
  nlohmann::json rows = nlohmann::json::array();
  std::ostringstream o;
  o << std::left << std::setw(4) << "n" << std::setw(22) << "total"
    << "unique\n";
  for (const KnownValue& k : known_values()) {
    if (args.n != 0 && k.n != args.n) continue;
    rows.push_back({{"n", k.n}, {"total", k.total}, {"unique", k.unique}});
    o << std::setw(4) << k.n << std::setw(22) << k.total << k.unique << "\n";
  }
  if (args.json)
    std::cout << rows.dump() << "\n";
  else
    std::cout << o.str();
  return 0;
}

}  // namespace nq::cli
