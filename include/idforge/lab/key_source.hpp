// Where the lab's keys come from. A KeySource hands out keys of one kind in creation order.
//
// Snowflake keys come from core's SharedSnowflakeGenerator (Twitter layout) on a ManualClock that
// advances 1 ms every `keys_per_ms` keys, as in seed 003's demos ("each request comes 1 ms
// after the one before"), so they are the real generator's output and still repeatable.
//
// UUIDv7, ULID and UUIDv4 keys come from the lab's *key models*: deterministic generators
// seeded by `seed`, so the same seed gives the same keys (the demo and the simulator need
// that). They have exactly the shape an index sees:
//   v7-shaped: 48-bit Unix ms | version 7 | 74 bits (rand_a 12, variant, rand_b 62) that are
//              random at each new millisecond and +1 for each further key in that
//              millisecond (RFC 9562 section 6.2, monotonic random), so keys only ever grow;
//   ULID-shaped: 48-bit Unix ms | 80 bits, random at each new millisecond, +1 within it;
//   v4-shaped: 122 random bits with version 4 and variant 10 (RFC 9562 section 5.4).
// The bits come from xoshiro256** seeded through splitmix64: fine for a model of where keys
// land, and NOT a source for real IDs (real UUIDs need a CSPRNG).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "idforge/lab/key128.hpp"
#include "idforge/lab/key_kind.hpp"

namespace idforge::lab {

/// Hands out keys of one kind, in creation order.
class KeySource {
 public:
  virtual ~KeySource() = default;
  /// The next key.
  virtual Key128 next() = 0;
  /// Fills out with the next out.size() keys (same as calling next() that often).
  virtual void fill(std::span<Key128> out) {
    for (Key128& k : out) k = next();
  }
  /// The kind of key this source makes.
  virtual KeyKind kind() const noexcept = 0;
};

/// How a key source runs its clock and seeds its randomness.
struct KeySourceOptions {
  std::uint64_t seed = 1;  ///< same seed, same keys (key models)
  std::int64_t start_unix_ms =
      1'704'067'200'000;             ///< 2024-01-01T00:00:00Z; must be >= 2010-11-04 for Snowflake
  std::uint32_t keys_per_ms = 1;     ///< keys made in each millisecond; >= 1
  std::uint64_t snowflake_node = 1;  ///< node ID of the Snowflake generator (0..1023)
};

/// A repeatable source for kind: core's SharedSnowflakeGenerator on a ManualClock for snowflake,
/// the lab's seeded key models for the others (see the top of this header). Throws
/// Error(errc::invalid_argument) for keys_per_ms == 0 and core's errors for a bad node.
std::unique_ptr<KeySource> make_model_key_source(KeyKind kind,
                                                 const KeySourceOptions& options = {});

/// Core's real generators on the system clock: UuidV7Generator, new_uuid_v4() and UlidGenerator
/// (CSPRNG, not seedable, so not repeatable), and SharedSnowflakeGenerator (Twitter layout, node
/// options.snowflake_node). What `idforge lab db` inserts by default; the demo and the
/// simulator keep the seeded models because they must repeat.
std::unique_ptr<KeySource> make_real_key_source(KeyKind kind, const KeySourceOptions& options = {});

}  // namespace idforge::lab
