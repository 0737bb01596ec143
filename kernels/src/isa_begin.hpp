// Opens the target region of the instruction-set target NQ_ISA (a record of
// kernels/CMakeLists.txt, e.g. `#define NQ_ISA avx2`): every function defined until
// kernels/src/isa_end.hpp is compiled for the record's features, NQ_ISA_FEATURES, and nothing else
// of the program is (a target region, not a -m flag, so the standard library's inline functions,
// included before it, stay baseline x86-64). NQ_ISA_NAME is the record's name as a string, for
// make_isa_target (kernels/src/isa_targets.hpp). No #pragma once: included once per ISA source.

#define NQ_ISA_CAT_(a, b) a##b
#define NQ_ISA_CAT(a, b) NQ_ISA_CAT_(a, b)
#define NQ_ISA_STR_(x) #x
#define NQ_ISA_STR(x) NQ_ISA_STR_(x)
#define NQ_ISA_FEATURES NQ_ISA_CAT(NQ_ISA_, NQ_ISA)
#define NQ_ISA_NAME NQ_ISA_STR(NQ_ISA)
#define NQ_ISA_PRAGMA(x) _Pragma(#x)

// GCC 12's AVX-512 headers trip -Wuninitialized on their own _mm512_undefined_* placeholders
// (GCC bug 105593, fixed in GCC 13); the warning is about the header, not the kernels' code.
#if defined(__clang__)
#define NQ_ISA_PUSH(features) \
  NQ_ISA_PRAGMA(clang attribute push(__attribute__((target(features))), apply_to = function))
NQ_ISA_PUSH(NQ_ISA_FEATURES)
#else
#define NQ_ISA_PUSH(features) NQ_ISA_PRAGMA(GCC target(features))
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC push_options
NQ_ISA_PUSH(NQ_ISA_FEATURES)
#endif
#undef NQ_ISA_PUSH
