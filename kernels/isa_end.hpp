// Closes the target region that kernels/isa_begin.hpp opened. No #pragma once.
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#pragma GCC diagnostic pop
#endif
