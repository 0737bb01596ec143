// Closes the target region that kernels/src/isa_begin.hpp opened. No #pragma once.
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#pragma GCC diagnostic pop
#endif
