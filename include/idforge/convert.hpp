// convert: rewrite a 128-bit ID in another of its text forms. UUID, ULID and TypeID all
// carry exactly 128 bits (the ULID spec and the TypeID spec both map them byte for byte
// onto a UUID), so any of them converts to any other without loss:
//
//   uuid     canonical 8-4-4-4-12, lowercase (input: any form Uuid::parse takes)
//   ulid     26 Crockford base32 characters, uppercase
//   typeid   [prefix_] + 26 strict lowercase base32 characters
//   hex      32 lowercase hex digits (input: the same, via Uuid::parse)
//   base62   22 characters of 0-9A-Za-z, zero-padded (2^128 < 62^22), so text order is
//            numeric order; input: exactly 22 base62 characters, value below 2^128
//
// What does not convert, and says so: a KSUID (160 bits: 32-bit time + 128-bit payload) and
// a Snowflake (64 bits). A UUID of a version without a Unix-ms time (v4, say) converts to a
// ULID all the same; that ULID's "time" is then whatever its first 48 bits hold.
#pragma once

#include <string>
#include <string_view>

#include "idforge/uuid.hpp"

namespace idforge {

/// The text forms of a 128-bit ID.
enum class Id128Form { uuid, ulid, type_id, hex, base62 };

/// Where a conversion goes: a form, and for TypeID its prefix.
struct Id128Target {
  Id128Form form = Id128Form::uuid;
  std::string prefix;  ///< TypeID only; "" writes no prefix
};

/// Parses "uuid", "ulid", "typeid", "typeid:PREFIX", "hex" or "base62". Throws ParseError
/// for an unknown form or a prefix that breaks the TypeID rules.
Id128Target parse_id128_target(std::string_view spec);

/// A 128-bit ID read from text, and the form it was read as.
struct Id128 {
  Uuid bits;
  Id128Form form = Id128Form::uuid;
};

/// Reads any 128-bit text form by its shape: a TypeID (has '_'), a ULID or bare TypeID
/// suffix (26 characters: both mean the same bits), base62 (22), a UUID in any of its forms
/// (32, 36, 38, 45). Throws ParseError for malformed text and Error(errc::invalid_argument)
/// for a well-formed KSUID or Snowflake, which have no 128-bit form.
Id128 read_id128(std::string_view text);

/// Writes bits in the target form.
std::string write_id128(const Uuid& bits, const Id128Target& target);

/// read_id128 then write_id128: e.g. convert_id("01ARZ3NDEKTSV4RRFFQ69G5FAV", "uuid").
std::string convert_id(std::string_view text, std::string_view target);

/// Writes the 22-character base62 form of a 128-bit value at out; returns out + 22.
char* encode_base62_128(const Uuid& bits, char* out) noexcept;
/// Reads exactly 22 base62 characters below 2^128. Throws ParseError with position and rule.
Uuid decode_base62_128(std::string_view text);

}  // namespace idforge
