#include "tests/support/testing.hpp"

#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/count/runner.hpp"
#include "kernels/kernels.hpp"

namespace nq::test_support {

const detail::JoinOps* join_avx512() {
  const detail::JoinOps& ops = detail::join_ops_avx512();
  return detail::runs_here(*ops.target) ? &ops : nullptr;
}

std::vector<const detail::JoinOps*> join_builds() {
  std::vector<const detail::JoinOps*> builds{&detail::join_ops_scalar()};
  if (const detail::JoinOps* avx512 = join_avx512()) builds.push_back(avx512);
  return builds;
}

void set_join_limits(std::size_t chunk, std::size_t parts) {
  for (const detail::JoinOps* build : join_builds()) build->set_limits(chunk, parts);
}

namespace {

bool listed(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

bool not_disabled(std::string_view name) {
  const char* value = std::getenv("NQ_TEST_DISABLE_KERNELS");
  return !listed(value ? value : "", name);
}

}  // namespace

void install_environment_seams() {
  detail::set_kernel_filter(&not_disabled);
  if (const char* forced = std::getenv("NQ_TEST_CROSS_CHECK_KERNEL"))
    detail::set_cross_check_override(find_kernel(forced));
  if (const char* chunk = std::getenv("NQ_TEST_JOIN_CHUNK")) {
    const std::size_t placements = std::strtoull(chunk, nullptr, 10);
    set_join_limits(placements, placements);
  }
}

}  // namespace nq::test_support
