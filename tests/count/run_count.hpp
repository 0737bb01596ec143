// A whole count from a test, failing the test if the engine refuses it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/count/count.hpp"

namespace nq::test {

// count() of an n-board with `threads`, `kernel` and split depth `split` (-1: the default).
inline CountResult run(int n, int threads, const std::string& kernel = "auto", int split = -1) {
  CountConfig c;
  c.n = n;
  c.threads = threads;
  c.kernel = kernel;
  c.split_rows = split;
  auto r = count(c);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : CountResult{};
}

}  // namespace nq::test
