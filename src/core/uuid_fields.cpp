#include "idforge/uuid_fields.hpp"

namespace idforge {
namespace {

// Floor division: Gregorian times before 1970 must round towards the past, like every
// other time idforge prints.
std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

UuidGregorianFields finish(std::uint64_t timestamp, const Uuid& u) noexcept {
  UuidGregorianFields f;
  f.timestamp = timestamp;
  f.unix_100ns = static_cast<std::int64_t>(timestamp) - kGregorianToUnix100ns;
  f.unix_ms = floor_div(f.unix_100ns, 10'000);
  f.clock_seq = static_cast<std::uint16_t>((u.low() >> 48) & 0x3FFF);
  f.node = u.low() & 0xFFFF'FFFF'FFFFull;
  return f;
}

}  // namespace

UuidGregorianFields decompose_v1(const Uuid& u) noexcept {
  const std::uint64_t h = u.high();
  const std::uint64_t time_low = h >> 32, time_mid = (h >> 16) & 0xFFFF, time_high = h & 0xFFF;
  return finish((time_high << 48) | (time_mid << 32) | time_low, u);
}

UuidGregorianFields decompose_v6(const Uuid& u) noexcept {
  const std::uint64_t h = u.high();
  const std::uint64_t time_high = h >> 32, time_mid = (h >> 16) & 0xFFFF, time_low = h & 0xFFF;
  return finish((time_high << 28) | (time_mid << 12) | time_low, u);
}

UuidV2Fields decompose_v2(const Uuid& u) noexcept {
  const std::uint64_t h = u.high(), l = u.low();
  const std::uint64_t time_mid = (h >> 16) & 0xFFFF, time_high = h & 0xFFF;
  UuidV2Fields f;
  f.timestamp = (time_high << 48) | (time_mid << 32);
  f.unix_ms = floor_div(static_cast<std::int64_t>(f.timestamp) - kGregorianToUnix100ns, 10'000);
  f.local_id = static_cast<std::uint32_t>(h >> 32);
  f.clock_seq = static_cast<std::uint8_t>((l >> 56) & 0x3F);
  f.local_domain = static_cast<std::uint8_t>((l >> 48) & 0xFF);
  f.node = l & 0xFFFF'FFFF'FFFFull;
  return f;
}

std::optional<std::int64_t> embedded_unix_ms(const Uuid& u) noexcept {
  if (u.variant() != UuidVariant::rfc9562) return std::nullopt;
  switch (u.version()) {
    case 1:
      return decompose_v1(u).unix_ms;
    case 6:
      return decompose_v6(u).unix_ms;
    case 7:
      return static_cast<std::int64_t>(decompose_v7(u).unix_ms);
    default:
      return std::nullopt;
  }
}

}  // namespace idforge
