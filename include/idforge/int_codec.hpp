// Text encodings of 64-bit IDs. Every encoder writes a fixed-width form (except decimal) so
// that text order equals numeric order; every parser rejects bad input with a ParseError
// that names the position and the rule.
//
//   decimal  1..20 digits, no sign, no leading '+', value <= 2^64-1
//   hex      16 lowercase digits; parse: 1..16 digits, optional 0x, either case
//   base32   Crockford: 13 uppercase characters; parse: 1..13 characters, case-insensitive,
//            I/L read as 1 and O as 0, U rejected, first of 13 at most 'F' (65 bits > 64)
//   base62   0-9A-Za-z (the order that sorts in ASCII): 11 characters; parse: 1..11,
//            value <= 2^64-1
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace idforge {

/// The text encodings of a 64-bit ID.
enum class IntEncoding { decimal, hex, base32, base62 };

/// Parses an encoding name: "dec"/"decimal", "hex", "base32"/"crockford", "base62".
/// Throws ParseError.
IntEncoding parse_int_encoding(std::string_view name);
/// The canonical name of an encoding ("decimal", "hex", "base32", "base62").
const char* to_string(IntEncoding e) noexcept;

/// Encodes value in the given encoding (fixed width except decimal).
std::string encode_u64(std::uint64_t value, IntEncoding e);
/// Decodes text in the given encoding; throws ParseError naming position and rule.
std::uint64_t decode_u64(std::string_view text, IntEncoding e);

/// Writes the fixed-width Crockford base32 form (13 chars) into out; returns out + 13.
char* encode_base32_u64(std::uint64_t value, char* out) noexcept;
/// Writes the fixed-width base62 form (11 chars) into out; returns out + 11.
char* encode_base62_u64(std::uint64_t value, char* out) noexcept;

}  // namespace idforge
