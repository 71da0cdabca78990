// Which text kernel a header's inline code calls. Code compiled for AVX2 (-mavx2,
// -march=x86-64-v3 or newer; the compiler defines __AVX2__) calls the AVX2 kernels of
// text_avx2.hpp directly, and code compiled for SSSE3 without AVX2 (-mssse3,
// -march=x86-64-v2) the SSSE3 ones of text_ssse3.hpp, so they inline into the caller as a
// compile-time SIMD codec would; everything else (baseline x86-64, the library itself) calls
// through the run-time choice of text_dispatch.hpp, which picks the best path this CPU has.
// Either way the output and the errors are the same (the paths are tested against each
// other), but a forced path (use_text_path) only reaches the run-time kind.
//
// Like any header code built with -mavx2 or -mssse3, a program that mixes such translation
// units with baseline ones may run that code on any CPU: build for a CPU level only what runs
// on it.
#pragma once

#include "idforge/detail/text_dispatch.hpp"

#if !defined(IDFORGE_TEXT_SCALAR_ONLY) && defined(__AVX2__) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#include "idforge/detail/text_avx2.hpp"
/// The kernel for operation m, chosen at compile time: the inline AVX2 one.
#define IDFORGE_TEXT_INLINE(m) (::idforge::detail::avx2::m)
#elif !defined(IDFORGE_TEXT_SCALAR_ONLY) && defined(__SSSE3__) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#include "idforge/detail/text_ssse3.hpp"
/// The kernel for operation m, chosen at compile time: the inline SSSE3 one.
#define IDFORGE_TEXT_INLINE(m) (::idforge::detail::ssse3::m)
#else
/// The kernel for operation m, chosen at run time.
#define IDFORGE_TEXT_INLINE(m) IDFORGE_TEXT_KERNEL(m)
#endif
