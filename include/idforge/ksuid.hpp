// Ksuid: a KSUID as its reference implementation (github.com/segmentio/ksuid) defines it.
//
//   binary  20 bytes, network order:  timestamp 32 | payload 128
//           timestamp = Unix seconds - 1400000000 (the KSUID epoch, 2014-05-13T16:53:20Z),
//           an unsigned 32-bit number, so KSUIDs run out in 2150-06-19T23:21:35Z
//           payload = 128 bits from the CSPRNG (random.hpp)
//   text    27 characters of base62 (0-9A-Za-z, the order that sorts in ASCII), the
//           160-bit value zero-padded on the left. The largest, "aWgEPTl1tmebfsQzFP4bxwgy80V",
//           is 2^160 - 1; a 27-character text above it does not fit 160 bits and is rejected.
//
// Ordering is byte order, which is also the order of the text, and is creation order to the
// second. KSUID has 160 bits, so unlike UUID, ULID and TypeID it has no 128-bit form.
// Generation is stateless (like segmentio's ksuid.New()): each ID takes the clock's second
// and 16 fresh CSPRNG bytes, so IDs of the same second are unordered among themselves.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "idforge/clock.hpp"
#include "idforge/parse_status.hpp"

namespace idforge {

/// A KSUID. A regular value: copy, compare, hash.
class Ksuid {
 public:
  using Bytes = std::array<std::uint8_t, 20>;
  using Payload = std::array<std::uint8_t, 16>;
  /// Length of the text form.
  static constexpr std::size_t kTextSize = 27;
  /// The KSUID epoch in Unix seconds: 2014-05-13T16:53:20Z.
  static constexpr std::int64_t kEpochUnixSeconds = 1'400'000'000;

  /// The nil KSUID (all zero, "000000000000000000000000000").
  constexpr Ksuid() noexcept = default;
  /// From 20 bytes in network order.
  constexpr explicit Ksuid(const Bytes& bytes) noexcept : bytes_(bytes) {}
  /// From its parts: seconds since the KSUID epoch and the 16-byte payload.
  static constexpr Ksuid from_parts(std::uint32_t timestamp, const Payload& payload) noexcept {
    Ksuid k;
    for (int i = 0; i < 4; ++i) k.bytes_[i] = static_cast<std::uint8_t>(timestamp >> (24 - 8 * i));
    for (int i = 0; i < 16; ++i) k.bytes_[4 + i] = payload[i];
    return k;
  }
  /// The largest KSUID (all ones), "aWgEPTl1tmebfsQzFP4bxwgy80V".
  static constexpr Ksuid max() noexcept {
    Bytes b{};
    for (auto& x : b) x = 0xFF;
    return Ksuid(b);
  }

  /// The 20 bytes, network order.
  constexpr const Bytes& bytes() const noexcept { return bytes_; }
  /// Seconds since the KSUID epoch.
  constexpr std::uint32_t timestamp() const noexcept {
    return (std::uint32_t{bytes_[0]} << 24) | (std::uint32_t{bytes_[1]} << 16) |
           (std::uint32_t{bytes_[2]} << 8) | bytes_[3];
  }
  /// Creation time in Unix seconds.
  constexpr std::int64_t unix_seconds() const noexcept { return kEpochUnixSeconds + timestamp(); }
  /// The 128-bit payload.
  constexpr Payload payload() const noexcept {
    Payload p{};
    for (int i = 0; i < 16; ++i) p[i] = bytes_[4 + i];
    return p;
  }

  /// Parses 27 base62 characters. Throws ParseError with position and rule.
  static Ksuid parse(std::string_view text);
  /// Parses; nullopt if text is not a KSUID. Never throws.
  static std::optional<Ksuid> try_parse(std::string_view text) noexcept;

  /// Writes the 27 characters (no terminator) at out; returns out + 27.
  char* to_chars(char* out) const noexcept;
  /// The 27-character text, e.g. "0ujtsYcgvSTl8PAuAdqWYSMnLOv".
  std::string to_string() const;

  friend constexpr bool operator==(const Ksuid&, const Ksuid&) noexcept = default;
  friend constexpr std::strong_ordering operator<=>(const Ksuid& a, const Ksuid& b) noexcept {
    for (std::size_t i = 0; i < a.bytes_.size(); ++i)
      if (auto c = a.bytes_[i] <=> b.bytes_[i]; c != 0) return c;
    return std::strong_ordering::equal;
  }

 private:
  Bytes bytes_{};
};

/// Parses text as a KSUID into out without throwing or allocating; out is unchanged on failure.
ParseStatus parse_ksuid(std::string_view text, Ksuid& out) noexcept;

/// The KSUID for a Unix time in seconds and a payload. Throws Error(errc::clock_before_epoch)
/// before 2014-05-13T16:53:20Z and Error(errc::time_exhausted) after 2150-06-19T23:21:35Z.
/// Draws nothing (the compose_ rule of uuid_generator.hpp); Ksuid::from_parts takes the raw
/// 32-bit timestamp instead and checks nothing.
Ksuid compose_ksuid(std::int64_t unix_seconds, const Ksuid::Payload& payload);

/// A new KSUID: the clock's second and 16 bytes from the calling thread's CSPRNG.
/// Thread-safe and fork-safe (the CSPRNG reseeds in a child); stateless, so KSUID has no
/// generator class and no Shared variant. Throws as compose_ksuid does.
Ksuid new_ksuid(Clock& clock = SystemClock::instance());

}  // namespace idforge

/// Hashes the payload (uniform for generated KSUIDs) and the time.
template <>
struct std::hash<idforge::Ksuid> {
  std::size_t operator()(const idforge::Ksuid& k) const noexcept {
    std::uint64_t x = k.timestamp();
    for (int i = 4; i < 20; ++i) x = (x ^ k.bytes()[i]) * 0x100000001B3ull;
    return static_cast<std::size_t>(x ^ (x >> 29));
  }
};
