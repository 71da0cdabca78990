// Which code writes and reads UUID and ULID text. The library is built for baseline x86-64;
// the vector paths are compiled beside the portable one with per-function target
// attributes and chosen once, on first use, from what the CPU reports (CPUID through
// __builtin_cpu_supports). Every path gives the same output and the same errors; tests,
// fuzzers and benchmarks force each in turn through the functions below.
//
// Building with IDFORGE_TEXT_SCALAR_ONLY defined (CMake: -DIDFORGE_TEXT_SCALAR_ONLY=ON), or
// for a CPU other than x86-64, compiles the portable path alone.
#pragma once

#include <cstdint>

namespace idforge::detail {

/// A code path of the text codecs, slowest first.
enum class TextPath : std::uint8_t {
  scalar,  ///< portable C++: table lookups, one character at a time
  ssse3,   ///< 128-bit vectors with byte shuffles (pshufb)
  avx2,    ///< 256-bit vectors
};

/// Every path, slowest first.
inline constexpr TextPath kTextPaths[] = {TextPath::scalar, TextPath::ssse3, TextPath::avx2};

/// "scalar", "ssse3", "avx2".
const char* to_string(TextPath path) noexcept;

/// Whether path is compiled into this build and this CPU runs it.
bool text_path_available(TextPath path) noexcept;

/// The path in use (the best available one unless another was forced).
TextPath text_path() noexcept;

/// Uses path from now on, in every thread; false (and nothing changes) if it is unavailable.
/// For tests, fuzzers and benchmarks: switch while no other thread formats or parses.
bool use_text_path(TextPath path) noexcept;

/// Goes back to the best available path.
void use_best_text_path() noexcept;

}  // namespace idforge::detail
