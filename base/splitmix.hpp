// splitmix64 (Steele, Lea and Flood, 2014): a 64-bit mixer and generator whose output is a
// fixed function of its input, the same on every platform and standard library. The seeded
// draws that must not depend on them (the cross-check's selection, the checked parts of a
// subproblem, the sampled chunk pairs, QS4's per-restart seeds) use it.
#pragma once

#include <cstdint>

namespace nq {

// The step between states: 2^64 over the golden ratio, odd.
inline constexpr std::uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ull;

// One splitmix64 output from the state z: z advanced by the gamma, then mixed.
constexpr std::uint64_t splitmix64(std::uint64_t z) {
  z += kSplitMixGamma;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The generator: next() returns splitmix64 of the state, then advances it.
struct SplitMix64 {
  std::uint64_t state = 0;
  constexpr std::uint64_t operator()() {
    const std::uint64_t z = splitmix64(state);
    state += kSplitMixGamma;
    return z;
  }
};

}  // namespace nq
