// The kernels behind UUID and ULID text, one table per code path (detail/text_path.hpp).
// Private to the core: the path files (text_kernels_*.cpp) fill one table each;
// text_dispatch.cpp installs one into detail::g_text (detail/text_dispatch.hpp), through
// which uuid.hpp, ulid.hpp and their sources call.
//
// Contract of every kernel, on every path:
//  - *_to_chars/_to_hex write exactly 36 / 32 / 26 characters at out and return the end.
//  - *_from_* read exactly 36 / 32 / 26 characters and return true, having written the 16
//    bytes, when the text is well formed: hyphens at 8, 13, 18, 23 and hex digits elsewhere
//    (UUID), Crockford base32 with a first character of at most '7' (ULID). On false they
//    write nothing; the caller finds the position and the rule with the portable code, so
//    every path reports the same error.
//  - *_n write n values separated by sep (sep_size bytes, any length) and return the end.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "idforge/detail/text_dispatch.hpp"
#include "idforge/detail/text_path.hpp"

#if !defined(IDFORGE_TEXT_SCALAR_ONLY) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define IDFORGE_TEXT_X86 1
#else
#define IDFORGE_TEXT_X86 0
#endif

namespace idforge::detail {

struct TextKernels {
  WriteFn uuid_to_chars;   // 36: 8-4-4-4-12, lowercase
  WriteFn uuid_to_hex;     // 32 lowercase hex digits
  ReadFn uuid_from_chars;  // 36
  ReadFn uuid_from_hex;    // 32
  WriteFn ulid_to_chars;   // 26 uppercase Crockford base32
  ReadFn ulid_from_chars;  // 26
  WriteNFn uuid_to_chars_n;
  WriteNFn uuid_to_hex_n;
  WriteNFn ulid_to_chars_n;
};

extern const TextKernels kScalarTextKernels;
#if IDFORGE_TEXT_X86
extern const TextKernels kSsse3TextKernels;
extern const TextKernels kAvx2TextKernels;
#endif

// ---------------------------------------------------------------------------------------
// Tables and helpers the paths share

/// "0123456789abcdef".
inline constexpr char kHexDigits[] = "0123456789abcdef";
/// Crockford's base32 alphabet.
inline constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Where the hyphens of the canonical UUID form are.
inline constexpr std::size_t kUuidHyphens[4] = {8, 13, 18, 23};

/// Hex digit value, or 0xF0 for anything else: OR-ing lookups and testing 0xF0 tells whether
/// any character was bad without a branch per character.
struct HexValues {
  std::uint8_t v[256];
};
constexpr HexValues make_hex_values() {
  HexValues t{};
  for (int i = 0; i < 256; ++i) t.v[i] = 0xF0;
  for (int i = 0; i < 10; ++i) t.v['0' + i] = static_cast<std::uint8_t>(i);
  for (int i = 0; i < 6; ++i) {
    t.v['a' + i] = static_cast<std::uint8_t>(10 + i);
    t.v['A' + i] = static_cast<std::uint8_t>(10 + i);
  }
  return t;
}
inline constexpr HexValues kHexValues = make_hex_values();

/// Crockford value of a character: 0-31; 0x80 for 'U'/'u' (named in its own error) and 0xFF
/// for anything else outside the alphabet. I and L read as 1, O as 0, either case.
struct Base32Values {
  std::uint8_t v[256];
};
constexpr Base32Values make_base32_values() {
  Base32Values t{};
  for (int i = 0; i < 256; ++i) t.v[i] = 0xFF;
  for (int i = 0; i < 32; ++i) {
    const char c = kCrockford[i];
    t.v[static_cast<unsigned char>(c)] = static_cast<std::uint8_t>(i);
    if (c >= 'A' && c <= 'Z')
      t.v[static_cast<unsigned char>(c - 'A' + 'a')] = static_cast<std::uint8_t>(i);
  }
  for (unsigned char c : {'I', 'i', 'L', 'l'}) t.v[c] = 1;
  for (unsigned char c : {'O', 'o'}) t.v[c] = 0;
  for (unsigned char c : {'U', 'u'}) t.v[c] = 0x80;
  return t;
}
inline constexpr Base32Values kBase32Values = make_base32_values();

}  // namespace idforge::detail
