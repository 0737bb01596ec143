// Whether this build runs under ThreadSanitizer (NQ_TSAN) or AddressSanitizer (NQ_ASAN). oneTBB
// (Debian's build) is not instrumented: TSan cannot see its scheduler hand a task from one thread
// to another, and reports every hand-over as a race. Under TSan the runner therefore starts its
// workers as std::threads (the claim and steal protocol they run is the same code) and plans on one
// thread (docs/testing.md).
#pragma once

#if defined(__SANITIZE_THREAD__)
#define NQ_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NQ_TSAN 1
#endif
#endif
#ifndef NQ_TSAN
#define NQ_TSAN 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define NQ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NQ_ASAN 1
#endif
#endif
#ifndef NQ_ASAN
#define NQ_ASAN 0
#endif
