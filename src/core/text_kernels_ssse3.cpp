// The SSSE3 path's table: the kernels of idforge/detail/text_ssse3.hpp (inline there, so
// that code compiled for SSSE3 can call them directly) and the batch writers around them.
// Only text_dispatch.cpp calls through the table, after the CPU said it has SSSE3.
#include "text_kernels.hpp"

#if IDFORGE_TEXT_X86

#include <immintrin.h>

#include <cstring>

#include "idforge/detail/text_ssse3.hpp"

#define IDFORGE_TEXT_BATCH_TARGET __attribute__((target("ssse3")))

namespace idforge::detail {
namespace {

using ssse3::store16;
using ssse3::ulid_from_chars;
using ssse3::ulid_to_chars;
using ssse3::uuid_from_chars;
using ssse3::uuid_from_hex;
using ssse3::uuid_to_chars;
using ssse3::uuid_to_hex;

#include "text_kernels_batch.inc"

}  // namespace

const TextKernels kSsse3TextKernels = {
    uuid_to_chars,          uuid_to_hex,          uuid_from_chars,
    uuid_from_hex,          ulid_to_chars,        ulid_from_chars,
    write_n<uuid_to_chars>, write_n<uuid_to_hex>, write_n<ulid_to_chars>,
};

}  // namespace idforge::detail

#endif  // IDFORGE_TEXT_X86
