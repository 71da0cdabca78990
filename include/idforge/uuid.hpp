// Uuid: a 128-bit UUID as RFC 9562 defines it (§4), held as 16 bytes in network order.
//
//   byte  0    1    2    3    4    5    6    7    8    9    10   11   12   13   14   15
//        [.................. layout depends on the version ..........................]
//                                     ^ver (high nibble of byte 6)
//                                               ^variant (high bits of byte 8)
//
// Ordering is byte order (memcmp order), which for UUIDv7 is creation order (§5.7).
//
// Text forms (all parse; to_chars/to_string write the first):
//   canonical  8-4-4-4-12 hex with hyphens, 36 chars; written lowercase, parsed in either case
//   hex        32 hex digits, no hyphens
//   braced     {8-4-4-4-12}, 38 chars (the Microsoft GUID form)
//   urn        urn:uuid:8-4-4-4-12, 45 chars (RFC 9562 §4; prefix in either case)
#pragma once

#include <array>
#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "idforge/detail/text_inline.hpp"
#include "idforge/parse_status.hpp"

namespace idforge {

/// The variant field (RFC 9562 §4.1): which family of layouts the other bits follow.
enum class UuidVariant : std::uint8_t {
  ncs,        ///< 0b0xx: Apollo NCS, reserved (the nil UUID reads as this)
  rfc9562,    ///< 0b10x: the layouts of RFC 9562 (versions 1-8)
  microsoft,  ///< 0b110: reserved, Microsoft backward compatibility
  future,     ///< 0b111: reserved for the future (the max UUID reads as this)
};

/// Name of a variant: "NCS", "RFC 9562", "Microsoft", "future".
const char* to_string(UuidVariant v) noexcept;

class Uuid;
IDFORGE_TEXT_INLINE_ABI inline ParseStatus parse_uuid(std::string_view text, Uuid& out) noexcept;

/// A UUID of any version. A regular value: copy it freely, compare it, hash its bytes.
class Uuid {
 public:
  using Bytes = std::array<std::uint8_t, 16>;
  /// Length of the canonical text form.
  static constexpr std::size_t kTextSize = 36;
  /// Length of the hex form (no hyphens).
  static constexpr std::size_t kHexSize = 32;

  /// The nil UUID (all zero, §5.9).
  constexpr Uuid() noexcept = default;
  /// From 16 bytes in network order.
  constexpr explicit Uuid(const Bytes& bytes) noexcept : bytes_(bytes) {}
  /// From the big-endian 64-bit halves: high = bytes 0-7, low = bytes 8-15.
  static constexpr Uuid from_u64(std::uint64_t high, std::uint64_t low) noexcept {
    // Two byte swaps and a bit_cast: two stores on the hot path of every generator.
    const std::array<std::uint64_t, 2> be{to_big_endian(high), to_big_endian(low)};
    return Uuid(std::bit_cast<Bytes>(be));
  }
  /// The nil UUID 00000000-0000-0000-0000-000000000000 (§5.9).
  static constexpr Uuid nil() noexcept { return Uuid(); }
  /// The max UUID ffffffff-ffff-ffff-ffff-ffffffffffff (§5.10).
  static constexpr Uuid max() noexcept { return from_u64(~std::uint64_t{0}, ~std::uint64_t{0}); }

  /// The 16 bytes, network order.
  constexpr const Bytes& bytes() const noexcept { return bytes_; }
  /// Bytes 0-7 as a big-endian number.
  constexpr std::uint64_t high() const noexcept { return load_be(0); }
  /// Bytes 8-15 as a big-endian number.
  constexpr std::uint64_t low() const noexcept { return load_be(8); }

  /// The version nibble (§4.2): 1-8 for RFC 9562 UUIDs; 0 for nil, 15 for max.
  constexpr int version() const noexcept { return bytes_[6] >> 4; }
  /// The variant field (§4.1).
  constexpr UuidVariant variant() const noexcept {
    const std::uint8_t b = bytes_[8];
    if ((b & 0x80) == 0) return UuidVariant::ncs;
    if ((b & 0xC0) == 0x80) return UuidVariant::rfc9562;
    if ((b & 0xE0) == 0xC0) return UuidVariant::microsoft;
    return UuidVariant::future;
  }
  /// True for the nil UUID.
  constexpr bool is_nil() const noexcept { return (high() | low()) == 0; }
  /// True for the max UUID.
  constexpr bool is_max() const noexcept { return (high() & low()) == ~std::uint64_t{0}; }

  /// Parses any of the four text forms above. Throws ParseError with position and rule.
  static Uuid parse(std::string_view text);
  /// Parses any of the four text forms; nullopt if text is not a UUID. Never throws.
  static std::optional<Uuid> try_parse(std::string_view text) noexcept;

  /// Writes the canonical lowercase form (36 chars, no terminator) at out; returns out + 36.
  /// Inline down to one indirect call into the vector code chosen for this CPU; code compiled
  /// for AVX2 gets the AVX2 kernel itself inline (detail/text_inline.hpp).
  IDFORGE_TEXT_INLINE_ABI char* to_chars(char* out) const noexcept {
    return IDFORGE_TEXT_INLINE(uuid_to_chars)(bytes_.data(), out);
  }
  /// Writes the 32 lowercase hex digits at out; returns out + 32.
  IDFORGE_TEXT_INLINE_ABI char* to_hex_chars(char* out) const noexcept {
    return IDFORGE_TEXT_INLINE(uuid_to_hex)(bytes_.data(), out);
  }
  /// The canonical lowercase form, e.g. "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".
  std::string to_string() const;
  /// 32 lowercase hex digits.
  std::string to_hex() const;
  /// "urn:uuid:" + canonical.
  std::string to_urn() const;

  friend constexpr bool operator==(const Uuid& a, const Uuid& b) noexcept {
    return a.high() == b.high() && a.low() == b.low();
  }
  friend constexpr std::strong_ordering operator<=>(const Uuid& a, const Uuid& b) noexcept {
    if (auto c = a.high() <=> b.high(); c != 0) return c;
    return a.low() <=> b.low();
  }

 private:
  static constexpr std::uint64_t to_big_endian(std::uint64_t v) noexcept {
    if constexpr (std::endian::native == std::endian::little)
      return __builtin_bswap64(v);
    else
      return v;
  }
  constexpr std::uint64_t load_be(int at) const noexcept {
    return to_big_endian(std::bit_cast<std::array<std::uint64_t, 2>>(bytes_)[at / 8]);
  }
  // No ABI tag here: the declaration above carries it, and GCC warns of one on a friend.
  friend ParseStatus parse_uuid(std::string_view text, Uuid& out) noexcept;
  Bytes bytes_{};
};

namespace detail {
/// parse_uuid for every form and every error (out of line).
ParseStatus parse_uuid_any(std::string_view text, Uuid& out) noexcept;
}  // namespace detail

/// Parses text as a UUID into out without throwing or allocating; the status says where
/// and why it failed. out is unchanged on failure. The canonical form of a valid UUID costs
/// one indirect call into the vector code; every other case goes out of line.
IDFORGE_TEXT_INLINE_ABI inline ParseStatus parse_uuid(std::string_view text, Uuid& out) noexcept {
  if (text.size() == Uuid::kTextSize &&
      IDFORGE_TEXT_INLINE(uuid_from_chars)(text.data(), out.bytes_.data())) [[likely]]
    return {};
  return detail::parse_uuid_any(text, out);
}

/// Characters that count values of each characters take written with separator between
/// two of them (none after the last): the room the batch writers below need.
constexpr std::size_t batch_text_size(std::size_t count, std::size_t each,
                                      std::string_view separator = {}) noexcept {
  return count == 0 ? 0 : count * each + (count - 1) * separator.size();
}

/// Writes the canonical text of every UUID in ids at out, separator between two (none after
/// the last): "\n" for lines, "\",\"" between the strings of a JSON array. Returns the end;
/// out must hold batch_text_size(ids.size(), Uuid::kTextSize, separator) characters.
/// One call for the whole batch: the vector code path is chosen once, not once per ID.
char* to_chars(std::span<const Uuid> ids, char* out, std::string_view separator = {}) noexcept;

/// As to_chars, with the 32 hex digits of each UUID (batch_text_size(n, Uuid::kHexSize, sep)).
char* to_hex_chars(std::span<const Uuid> ids, char* out, std::string_view separator = {}) noexcept;

}  // namespace idforge

/// Hashes the 16 bytes (they are already uniform for v4 and v7).
template <>
struct std::hash<idforge::Uuid> {
  std::size_t operator()(const idforge::Uuid& u) const noexcept {
    const std::uint64_t x = u.high() ^ (u.low() * 0x9E3779B97F4A7C15ull);
    return static_cast<std::size_t>(x ^ (x >> 29));
  }
};
