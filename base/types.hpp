// Plain value types shared by the engine and its callers.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace nq {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang; __extension__ silences -Wpedantic

// The largest board the counting engine and its kernels take: one 32-bit word per row.
inline constexpr int kMaxN = 32;

// An error value: the engine never prints and never exits; it returns one of these.
struct Error {
  std::string message;  // what was wrong and what is allowed, without the "nqcount: error:" prefix
};

// A minimal expected<T, Error> (std::expected is C++23).
template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT: implicit on purpose
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const { return std::get<0>(v_); }
  T& value() { return std::get<0>(v_); }
  const T& operator*() const { return value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// The outcome of a call that returns nothing but can fail: done, or an Error.
template <>
class Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)) {}  // NOLINT: implicit on purpose
  bool ok() const { return !error_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

// The Error of a resource that ran out: an allocation that failed (std::bad_alloc) or a thread
// that could not be started (std::system_error, or the std::runtime_error oneTBB throws when
// pthread_create fails). Any other exception is rethrown.
Error resource_error(std::exception_ptr thrown);

// Calls f(), which returns an Expected, and returns a resource that ran out under it as that
// Expected's Error instead of an exception: the engine's public calls answer with values, even
// out of memory or threads.
template <class F>
auto errors_as_values(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    return resource_error(std::current_exception());
  }
}

// Decimal text of a 128-bit count.
std::string to_string(u128 v);

// Whole numbers as every input of nqcount writes them (options, permutations, batch files, task
// stats): decimal digits only, no sign, no spaces, no leading zero (a lone 0 is fine), at most
// `max`. 010, 0x8, ' 5', +5 and 2.0 are not whole numbers here.
bool parse_decimal(std::string_view text, std::uint64_t& value,
                   std::uint64_t max = ~std::uint64_t{0});

// Shared between a running count and whoever watches it (the CLI's progress line, a signal
// handler). The engine only stores relaxed counters here: one update per batch of subproblems.
struct Monitor {
  std::atomic<std::uint64_t> subproblems_total{0};
  std::atomic<std::uint64_t> subproblems_done{0};
  std::atomic<std::uint64_t> nodes_done{0};
  std::atomic<bool> cancel{false};  // set it to stop the run early; the result says `cancelled`
  // Estimated cost (engine/count/src/cost.hpp) of all subproblems, of those done, and of those a
  // resumed run found done in its checkpoint (done, but not by this run: not part of its rate).
  std::atomic<std::uint64_t> cost_total{0};
  std::atomic<std::uint64_t> cost_done{0};
  std::atomic<std::uint64_t> cost_resumed{0};
};

}  // namespace nq
