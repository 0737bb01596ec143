#include <gtest/gtest.h>
TEST(SolveCli, Placeholder) {}
