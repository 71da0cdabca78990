// The fields of each UUID version (RFC 9562 §5), packed and unpacked. Pure functions: the
// generators build on compose_v4/compose_v7, inspect on the decompose_* functions.
//
// v1 (§5.1)  time_low 32 | time_mid 16 | ver 4 | time_high 12 | var 2 | clock_seq 14 | node 48
// v2 (DCE)   local_id 32 | time_mid 16 | ver 4 | time_high 12 | var 2 | clock_seq 6 |
//            local_domain 8 | node 48  (DCE 1.1 Security; RFC 9562 §5.2 defers to it): v1
//            with time_low and the low clock_seq byte given to a POSIX UID/GID and its domain
// v6 (§5.6)  time_high 32 | time_mid 16 | ver 4 | time_low 12 | var 2 | clock_seq 14 | node 48
//            both carry a 60-bit count of 100 ns intervals since 1582-10-15 00:00 UTC
// v4 (§5.4)  random_a 48 | ver 4 | random_b 12 | var 2 | random_c 62
// v7 (§5.7)  unix_ts_ms 48 | ver 4 | rand_a 12 | var 2 | rand_b 62
// v8 (§5.8)  custom_a 48 | ver 4 | custom_b 12 | var 2 | custom_c 62
#pragma once

#include <cstdint>
#include <optional>

#include "idforge/uuid.hpp"

namespace idforge {

/// 100 ns intervals from the Gregorian epoch (1582-10-15) to the Unix epoch (§5.1).
inline constexpr std::int64_t kGregorianToUnix100ns = 0x01B21DD213814000;
/// Widths of the 48 | ver 4 | 12 | var 2 | 62 split that v4, v7 and v8 share (§5.4, §5.7,
/// §5.8), from the most significant bit.
inline constexpr int kUuidSplitABits = 48;  ///< unix_ts_ms (v7), random_a (v4), custom_a (v8)
inline constexpr int kUuidVersionBits = 4;  ///< ver
inline constexpr int kUuidSplitBBits = 12;  ///< rand_a (v7), random_b (v4), custom_b (v8)
inline constexpr int kUuidVariantBits = 2;  ///< var (0b10 for RFC 9562)
inline constexpr int kUuidSplitCBits = 62;  ///< rand_b (v7), random_c (v4), custom_c (v8)
static_assert(kUuidSplitABits + kUuidVersionBits + kUuidSplitBBits + kUuidVariantBits +
                  kUuidSplitCBits ==
              128);

/// The largest value the 48-bit millisecond field of v7 (and ULID) holds.
inline constexpr std::uint64_t kMaxUnixMs48 = (std::uint64_t{1} << 48) - 1;

/// Version 1 and 6: the 60-bit Gregorian timestamp and what surrounds it.
struct UuidGregorianFields {
  std::uint64_t timestamp = 0;  ///< 100 ns intervals since 1582-10-15 (60 bits)
  std::int64_t unix_100ns = 0;  ///< the same instant in 100 ns since the Unix epoch
  std::int64_t unix_ms = 0;     ///< the same, floored to ms
  std::uint16_t clock_seq = 0;  ///< 14 bits
  std::uint64_t node = 0;       ///< 48 bits (a MAC address or random)
};

/// Version 2 (DCE Security): v1 less its time_low, so the timestamp is known only to
/// 2^32 x 100 ns (429.4967296 s); timestamp and unix_ms hold the earliest instant it can be.
struct UuidV2Fields {
  std::uint64_t timestamp = 0;    ///< 100 ns since 1582-10-15, low 32 bits zero (60 bits)
  std::int64_t unix_ms = 0;       ///< the same, floored to ms
  std::uint32_t local_id = 0;     ///< POSIX UID or GID (or an org ID), per local_domain
  std::uint8_t local_domain = 0;  ///< 0 person (UID), 1 group (GID), 2 org
  std::uint8_t clock_seq = 0;     ///< 6 bits
  std::uint64_t node = 0;         ///< 48 bits
};

/// Version 7: time and the 74 bits after it.
struct UuidV7Fields {
  std::uint64_t unix_ms = 0;  ///< 48-bit Unix milliseconds
  std::uint16_t rand_a = 0;   ///< 12 bits (idforge: the top of its counter, see UuidV7Stamp)
  std::uint64_t rand_b = 0;   ///< 62 bits
};

/// Versions 4 and 8 (and any other 48 | 12 | 62 split): the three fields around version
/// and variant. For v4 they are random_a/b/c, for v8 custom_a/b/c.
struct UuidSplitFields {
  std::uint64_t a = 0;  ///< 48 bits
  std::uint16_t b = 0;  ///< 12 bits
  std::uint64_t c = 0;  ///< 62 bits
};

/// Sets version (high nibble of byte 6) and the RFC 9562 variant (0b10) over 128 bits.
constexpr Uuid with_version(std::uint64_t high, std::uint64_t low, int version) noexcept {
  high = (high & ~std::uint64_t{0xF000}) | (static_cast<std::uint64_t>(version & 15) << 12);
  low = (low & ~(std::uint64_t{3} << 62)) | (std::uint64_t{2} << 62);
  return Uuid::from_u64(high, low);
}

/// A version 4 UUID from 128 random bits (6 of them are replaced by version and variant).
constexpr Uuid compose_v4(std::uint64_t random_high, std::uint64_t random_low) noexcept {
  return with_version(random_high, random_low, 4);
}

/// A version 7 UUID from its fields; unix_ms keeps its low 48 bits, rand_a 12, rand_b 62.
constexpr Uuid compose_v7(std::uint64_t unix_ms, std::uint16_t rand_a,
                          std::uint64_t rand_b) noexcept {
  return with_version((unix_ms << 16) | (rand_a & 0xFFFu), rand_b, 7);
}

/// The 48 | 12 | 62 fields of any UUID (meaningful for v4, v7, v8).
constexpr UuidSplitFields decompose_split(const Uuid& u) noexcept {
  return {u.high() >> 16, static_cast<std::uint16_t>(u.high() & 0xFFF),
          u.low() & ((std::uint64_t{1} << 62) - 1)};
}

/// The fields of a version 7 UUID (the version is not checked).
constexpr UuidV7Fields decompose_v7(const Uuid& u) noexcept {
  const UuidSplitFields s = decompose_split(u);
  return {s.a, s.b, s.c};
}

/// The fields of a version 1 UUID (the version is not checked).
UuidGregorianFields decompose_v1(const Uuid& u) noexcept;
/// The fields of a version 6 UUID (the version is not checked).
UuidGregorianFields decompose_v6(const Uuid& u) noexcept;
/// The fields of a version 2 UUID (the version is not checked).
UuidV2Fields decompose_v2(const Uuid& u) noexcept;

/// Creation time in Unix ms for the versions that carry one (1, 6, 7 of the RFC 9562
/// variant); nullopt for every other UUID.
std::optional<std::int64_t> embedded_unix_ms(const Uuid& u) noexcept;

}  // namespace idforge
