// Which text kernel a header's inline code calls. Code compiled for AVX2 (-mavx2,
// -march=x86-64-v3 or newer; the compiler defines __AVX2__) calls the AVX2 kernels of
// text_avx2.hpp directly, and code compiled for SSSE3 without AVX2 (-mssse3,
// -march=x86-64-v2) the SSSE3 ones of text_ssse3.hpp, so they inline into the caller as a
// compile-time SIMD codec would; everything else (baseline x86-64, the library itself) calls
// through the run-time choice of text_dispatch.hpp, which picks the best path this CPU has.
// Either way the output and the errors are the same (the paths are tested against each
// other), but a forced path (use_text_path) only reaches the run-time kind.
//
// The inline functions that call these kernels (Uuid::to_chars, to_hex_chars, parse_uuid,
// Ulid::to_chars, parse_ulid) carry an ABI tag in such code, so their symbols differ from the
// baseline ones: a program that links translation units built for AVX2 with baseline ones
// keeps each one's own copy, and baseline code never runs AVX2 instructions or skips a forced
// path because the linker kept the other copy.
#pragma once

#include "idforge/detail/text_dispatch.hpp"

#if !defined(IDFORGE_TEXT_SCALAR_ONLY) && defined(__AVX2__) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#include "idforge/detail/text_avx2.hpp"
/// The kernel for operation m, chosen at compile time: the inline AVX2 one.
#define IDFORGE_TEXT_INLINE(m) (::idforge::detail::avx2::m)
/// On every inline function that calls IDFORGE_TEXT_INLINE: a symbol of its own.
#define IDFORGE_TEXT_INLINE_ABI [[gnu::abi_tag("idforge_avx2")]]
#elif !defined(IDFORGE_TEXT_SCALAR_ONLY) && defined(__SSSE3__) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#include "idforge/detail/text_ssse3.hpp"
/// The kernel for operation m, chosen at compile time: the inline SSSE3 one.
#define IDFORGE_TEXT_INLINE(m) (::idforge::detail::ssse3::m)
#define IDFORGE_TEXT_INLINE_ABI [[gnu::abi_tag("idforge_ssse3")]]
#else
/// The kernel for operation m, chosen at run time.
#define IDFORGE_TEXT_INLINE(m) IDFORGE_TEXT_KERNEL(m)
#define IDFORGE_TEXT_INLINE_ABI
#endif
