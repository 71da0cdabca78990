// Key128: the one key type of the index lab. Every ID kind the lab compares (Snowflake,
// UUIDv7, ULID, UUIDv4) is held as a 128-bit unsigned value whose numeric order is the
// order a database index sorts it in: a UUID or ULID as its 16 bytes read big-endian
// (memcmp order, which is also PostgreSQL's uuid order and the order of its lowercase hex
// text), a Snowflake as its 64-bit value in `hi` with `lo` = 0.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>

namespace idforge::lab {

/// A 128-bit key compared as an unsigned number: `hi` first, then `lo`.
struct Key128 {
  std::uint64_t hi = 0;  ///< bytes 0..7 of the big-endian form
  std::uint64_t lo = 0;  ///< bytes 8..15
  friend constexpr bool operator==(const Key128&, const Key128&) = default;
  friend constexpr std::strong_ordering operator<=>(const Key128&, const Key128&) = default;
};

/// The 16 bytes of k, big-endian (the BINARY(16) / BLOB / uuid form).
std::array<unsigned char, 16> to_bytes(const Key128& k) noexcept;

/// k as a 36-character lowercase UUID string (8-4-4-4-12); sorts like k.
std::string to_uuid_text(const Key128& k);

/// k as 32 lowercase hex digits without dashes.
std::string to_hex(const Key128& k);

}  // namespace idforge::lab
