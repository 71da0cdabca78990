// The Snowflake value type: a 64-bit ID and the fields it decodes to under a layout.
#pragma once

#include <compare>
#include <cstdint>

#include "idforge/snowflake_layout.hpp"

namespace idforge {

/// The fields of one Snowflake ID under one layout.
struct SnowflakeParts {
  std::uint64_t tick = 0;        ///< ticks since the layout's epoch
  std::int64_t unix_ms = 0;      ///< epoch + tick * tick_ms
  std::uint64_t datacenter = 0;  ///< 0 when the layout has no datacenter bits
  std::uint64_t worker = 0;      ///< the node's low worker_bits
  std::uint64_t node = 0;        ///< datacenter and worker together
  std::uint64_t sequence = 0;    ///< counter inside the tick
  friend bool operator==(const SnowflakeParts&, const SnowflakeParts&) = default;
};

/// A 64-bit Snowflake ID. Ordering is numeric, which is time order for every layout.
class Snowflake {
 public:
  constexpr Snowflake() noexcept = default;
  constexpr explicit Snowflake(std::uint64_t value) noexcept : value_(value) {}
  constexpr std::uint64_t value() const noexcept { return value_; }
  /// The value as a signed BIGINT (what a database column stores).
  constexpr std::int64_t as_int64() const noexcept { return static_cast<std::int64_t>(value_); }
  friend constexpr auto operator<=>(Snowflake, Snowflake) noexcept = default;

 private:
  std::uint64_t value_ = 0;
};

/// Packs fields into an ID. Fields must fit their bits (checked: throws errc::invalid_argument
/// naming the field, its value and its width). unix_ms in parts is ignored; tick counts.
Snowflake compose(const Layout& layout, const SnowflakeParts& parts);

/// Splits an ID into its fields. Throws errc::invalid_argument if a signed layout's ID has
/// its top bit set (no generator with that layout could have made it).
SnowflakeParts decompose(const Layout& layout, Snowflake id);

}  // namespace idforge
