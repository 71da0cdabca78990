// The SSSE3 path's table: the kernels of idforge/detail/text_ssse3.hpp (inline there, so
// that code compiled for SSSE3 can call them directly) and the batch writers around them.
// Only text_dispatch.cpp calls through the table, after the CPU said it has SSSE3.
#include "text_kernels.hpp"

#if IDFORGE_TEXT_X86

#include <immintrin.h>

#include <cstring>

#include "idforge/detail/text_ssse3.hpp"

#define IDFORGE_SSSE3 __attribute__((target("ssse3")))

namespace idforge::detail {
namespace {

using ssse3::store;
using ssse3::ulid_from_chars;
using ssse3::ulid_to_chars;
using ssse3::uuid_from_chars;
using ssse3::uuid_from_hex;
using ssse3::uuid_to_chars;
using ssse3::uuid_to_hex;

// ---------------------------------------------------------------------------------------
// Batches: a separator of up to 16 bytes is written with one 16-byte store, whose excess
// the next value's text overwrites (the last value gets no separator, so nothing is
// written past the end).

template <WriteFn Write>
IDFORGE_SSSE3 char* write_n(const Bytes16* values, std::size_t n, const char* sep,
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
      store(out, s);
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

const TextKernels kSsse3TextKernels = {
    uuid_to_chars,          uuid_to_hex,          uuid_from_chars,
    uuid_from_hex,          ulid_to_chars,        ulid_from_chars,
    write_n<uuid_to_chars>, write_n<uuid_to_hex>, write_n<ulid_to_chars>,
};

}  // namespace idforge::detail

#endif  // IDFORGE_TEXT_X86
