// The AVX2 path's table: the kernels of idforge/detail/text_avx2.hpp (inline there, so that
// code compiled for AVX2 can call them directly) and the batch writers around them.
#include "text_kernels.hpp"

#if IDFORGE_TEXT_X86

#include <immintrin.h>

#include <cstring>

#include "idforge/detail/text_avx2.hpp"

#define IDFORGE_AVX2 __attribute__((target("avx2")))

namespace idforge::detail {
namespace {

using avx2::store16;
using avx2::ulid_from_chars;
using avx2::ulid_to_chars;
using avx2::uuid_from_chars;
using avx2::uuid_from_hex;
using avx2::uuid_to_chars;
using avx2::uuid_to_hex;

// ---------------------------------------------------------------------------------------
// Batches (see text_kernels_ssse3.cpp for the separator store)

template <WriteFn Write>
IDFORGE_AVX2 char* write_n(const Bytes16* values, std::size_t n, const char* sep,
                           std::size_t sep_size, char* out) noexcept {
  if (n == 0) return out;
  if (sep_size == 1) {
    // One byte store: cheaper than the 16-byte one below, which crosses a cache line for most
    // of the 37- or 27-byte strides of a newline-separated batch.
    const char c = *sep;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      out = Write(values[i].data(), out);
      *out++ = c;
    }
  } else if (sep_size <= 16) {
    alignas(16) char padded[16] = {};
    std::memcpy(padded, sep, sep_size);
    const __m128i s = _mm_load_si128(reinterpret_cast<const __m128i*>(padded));
    for (std::size_t i = 0; i + 1 < n; ++i) {
      out = Write(values[i].data(), out);
      store16(out, s);
      out += sep_size;
    }
  } else {
    for (std::size_t i = 0; i + 1 < n; ++i) {
      out = Write(values[i].data(), out);
      std::memcpy(out, sep, sep_size);
      out += sep_size;
    }
  }
  return Write(values[n - 1].data(), out);
}

}  // namespace

const TextKernels kAvx2TextKernels = {
    uuid_to_chars,          uuid_to_hex,          uuid_from_chars,
    uuid_from_hex,          ulid_to_chars,        ulid_from_chars,
    write_n<uuid_to_chars>, write_n<uuid_to_hex>, write_n<ulid_to_chars>,
};

}  // namespace idforge::detail

#endif  // IDFORGE_TEXT_X86
