#include "engine/count/reducer.hpp"

namespace nq {

Expected<OrbitCounts> finish_orbits(u128 total, u128 sym4, u128 sym2) {
  if (sym4 + sym2 > total || (total - sym4 - sym2) % 8 != 0 || sym4 % 4 != 0 || sym2 % 2 != 0)
    return Error{"internal error: orbit weights do not divide exactly (total " + to_string(total) +
                 ", sym4 " + to_string(sym4) + ", sym2 " + to_string(sym2) + ")"};
  OrbitCounts o;
  o.total = total;
  o.u8 = (total - sym4 - sym2) / 8;
  o.u4 = sym4 / 4;
  o.u2 = sym2 / 2;
  o.unique = o.u2 + o.u4 + o.u8;
  return o;
}

}  // namespace nq
