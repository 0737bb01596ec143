// Empty: the target nq_test_pch exists to make the tests' precompiled header (CMakeLists.txt).
