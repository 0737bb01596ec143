#include "base/threads.hpp"

#include <tbb/info.h>

namespace nq {

int hardware_threads() {
  return tbb::info::default_concurrency();
}

}  // namespace nq
