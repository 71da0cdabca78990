// Ulid: a ULID as its specification (github.com/ulid/spec) defines it.
//
//   binary  16 bytes, network order:  unix_ms 48 | random 80
//   text    26 characters of Crockford base32 (0123456789ABCDEFGHJKMNPQRSTVWXYZ):
//           10 for the time (the first holds 3 bits, so it is at most '7'), 16 for the
//           random part. Written uppercase; parsed case-insensitively, with I and L read as
//           1 and O as 0; U and anything else outside the alphabet is rejected, and so is a
//           first character above '7' (the value would exceed 128 bits).
//
// Ordering is byte order, which is also the order of the text. The 16 bytes are the same as
// those of a UUID with the same value (to_uuid/from_uuid), as the spec's binary layout says;
// such a UUID has no meaningful version or variant.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "idforge/parse_status.hpp"
#include "idforge/uuid.hpp"

namespace idforge {

class Ulid;
IDFORGE_TEXT_INLINE_ABI inline ParseStatus parse_ulid(std::string_view text, Ulid& out) noexcept;

/// A ULID. A regular value: copy, compare, hash.
class Ulid {
 public:
  using Bytes = std::array<std::uint8_t, 16>;
  /// Length of the text form.
  static constexpr std::size_t kTextSize = 26;
  /// Bits of the random part.
  static constexpr int kRandomBits = 80;

  /// The all-zero ULID "00000000000000000000000000".
  constexpr Ulid() noexcept = default;
  /// From 16 bytes in network order.
  constexpr explicit Ulid(const Bytes& bytes) noexcept : bytes_(bytes) {}
  /// From the big-endian halves: high = bytes 0-7, low = bytes 8-15.
  static constexpr Ulid from_u64(std::uint64_t high, std::uint64_t low) noexcept {
    return Ulid(Uuid::from_u64(high, low).bytes());
  }
  /// From its parts: unix_ms (low 48 bits kept), the random part's top 16 and low 64 bits.
  static constexpr Ulid from_parts(std::uint64_t unix_ms, std::uint16_t random_high,
                                   std::uint64_t random_low) noexcept {
    return from_u64(((unix_ms & 0xFFFF'FFFF'FFFFull) << 16) | random_high, random_low);
  }
  /// The same 16 bytes as a ULID.
  static constexpr Ulid from_uuid(const Uuid& u) noexcept { return Ulid(u.bytes()); }

  /// The 16 bytes, network order.
  constexpr const Bytes& bytes() const noexcept { return bytes_; }
  /// Bytes 0-7 as a big-endian number.
  constexpr std::uint64_t high() const noexcept { return Uuid(bytes_).high(); }
  /// Bytes 8-15 as a big-endian number.
  constexpr std::uint64_t low() const noexcept { return Uuid(bytes_).low(); }
  /// The 48-bit time in Unix ms.
  constexpr std::uint64_t unix_ms() const noexcept { return high() >> 16; }
  /// The top 16 bits of the 80-bit random part.
  constexpr std::uint16_t random_high() const noexcept {
    return static_cast<std::uint16_t>(high());
  }
  /// The low 64 bits of the random part.
  constexpr std::uint64_t random_low() const noexcept { return low(); }
  /// The same 16 bytes as a Uuid.
  constexpr Uuid to_uuid() const noexcept { return Uuid(bytes_); }

  /// Parses 26 Crockford base32 characters. Throws ParseError with position and rule.
  static Ulid parse(std::string_view text);
  /// Parses; nullopt if text is not a ULID. Never throws.
  static std::optional<Ulid> try_parse(std::string_view text) noexcept;

  /// Writes the 26 uppercase characters (no terminator) at out; returns out + 26.
  /// Inline down to one indirect call into the vector code chosen for this CPU; code compiled
  /// for AVX2 gets the AVX2 kernel itself inline (detail/text_inline.hpp).
  IDFORGE_TEXT_INLINE_ABI char* to_chars(char* out) const noexcept {
    return IDFORGE_TEXT_INLINE(ulid_to_chars)(bytes_.data(), out);
  }
  /// The 26-character text, e.g. "01ARZ3NDEKTSV4RRFFQ69G5FAV".
  std::string to_string() const;

  friend constexpr bool operator==(const Ulid&, const Ulid&) noexcept = default;
  friend constexpr std::strong_ordering operator<=>(const Ulid& a, const Ulid& b) noexcept {
    return a.to_uuid() <=> b.to_uuid();
  }

 private:
  // No ABI tag here: the declaration above carries it, and GCC warns of one on a friend.
  friend ParseStatus parse_ulid(std::string_view text, Ulid& out) noexcept;
  Bytes bytes_{};
};

namespace detail {
/// Why text is not a ULID (out of line; text failed the fast path).
ParseStatus ulid_parse_error(std::string_view text) noexcept;
}  // namespace detail

/// Parses text as a ULID into out without throwing or allocating; out is unchanged on failure.
/// A valid ULID costs one indirect call into the vector code.
IDFORGE_TEXT_INLINE_ABI inline ParseStatus parse_ulid(std::string_view text, Ulid& out) noexcept {
  if (text.size() == Ulid::kTextSize &&
      IDFORGE_TEXT_INLINE(ulid_from_chars)(text.data(), out.bytes_.data())) [[likely]]
    return {};
  return detail::ulid_parse_error(text);
}

/// Writes the 26-character text of every ULID in ids at out, separator between two (none
/// after the last); returns the end. out must hold
/// batch_text_size(ids.size(), Ulid::kTextSize, separator) characters (uuid.hpp).
char* to_chars(std::span<const Ulid> ids, char* out, std::string_view separator = {}) noexcept;

}  // namespace idforge

/// Hashes the 16 bytes.
template <>
struct std::hash<idforge::Ulid> {
  std::size_t operator()(const idforge::Ulid& u) const noexcept {
    return std::hash<idforge::Uuid>{}(u.to_uuid());
  }
};
