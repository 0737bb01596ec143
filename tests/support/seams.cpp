// Linked into the programs' test builds only (nqcount-testing, nqcount-mpi-testing): installs
// the environment seams (testing.hpp) before main.
#include "tests/support/testing.hpp"

namespace {

[[maybe_unused]] const bool g_installed = [] {
  nq::test_support::install_environment_seams();
  return true;
}();

}  // namespace
