#include "d4.hpp"

namespace nq {

std::string_view sym_name(Sym g) {
  switch (g) {
    case Sym::kIdentity:
      return "identity";
    case Sym::kRot90:
      return "rotation 90";
    case Sym::kRot180:
      return "rotation 180";
    case Sym::kRot270:
      return "rotation 270";
    case Sym::kFlipRows:
      return "reflection (rows)";
    case Sym::kFlipCols:
      return "reflection (columns)";
    case Sym::kTranspose:
      return "reflection (main diagonal)";
    case Sym::kAntiTranspose:
      return "reflection (anti-diagonal)";
  }
  return "?";
}

}  // namespace nq
