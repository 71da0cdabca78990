// The AVX2 path's table: the kernels of idforge/detail/text_avx2.hpp (inline there, so that
// code compiled for AVX2 can call them directly) and the batch writers around them.
#include "text_kernels.hpp"

#if IDFORGE_TEXT_X86

#include <immintrin.h>

#include <cstring>

#include "idforge/detail/text_avx2.hpp"

#define IDFORGE_TEXT_BATCH_TARGET __attribute__((target("avx2")))

namespace idforge::detail {
namespace {

using avx2::store16;
using avx2::ulid_from_chars;
using avx2::ulid_to_chars;
using avx2::uuid_from_chars;
using avx2::uuid_from_hex;
using avx2::uuid_to_chars;
using avx2::uuid_to_hex;

#include "text_kernels_batch.inc"

}  // namespace

const TextKernels kAvx2TextKernels = {
    uuid_to_chars,          uuid_to_hex,          uuid_from_chars,
    uuid_from_hex,          ulid_to_chars,        ulid_from_chars,
    write_n<uuid_to_chars>, write_n<uuid_to_hex>, write_n<ulid_to_chars>,
};

}  // namespace idforge::detail

#endif  // IDFORGE_TEXT_X86
