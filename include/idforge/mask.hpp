// Masking: a keyed, reversible permutation that turns an internal key (a sequence value, a
// Snowflake, a UUIDv7) into a public ID that reveals neither order, count, time nor machine,
// and maps back with the key. docs/PUBLIC-IDS.md says when to use it and what it does not
// promise; idforge/public_id.hpp gives the short text form with its key ID and checks.
//
// Modes (each a Feistel network of detail/feistel.hpp, 10 rounds of SipHash-2-4):
//   u63       1..2^63-1 -> 1..2^63-1: a positive BIGINT stays a positive BIGINT
//             (63-bit network, cycle-walked past 0)
//   u128      any 128 bits -> 128 bits (a UUID's bytes; the result is not a valid UUID)
//   v7_as_v4  UUIDv7 -> a valid UUIDv4 (version 4, RFC 9562 variant): the 122 bits that are
//             not version or variant go through a 122-bit network, so the v7 comes back
//             exactly and the v4 shows no time
//
// Two faces: MaskKey::mask() and unmask() are noexcept and return a fault code, so a C ABI
// can wrap them (plain values in and out, a code for what went wrong); mask_u63() and its
// siblings throw an Error whose message names the offending value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "idforge/detail/feistel.hpp"
#include "idforge/error.hpp"
#include "idforge/uuid.hpp"

namespace idforge {

/// Which permutation. Stable numbering (a C ABI passes it as an int).
enum class MaskMode : std::uint8_t {
  u63 = 0,       ///< positive 63-bit integers (BIGINT, Snowflake)
  u128 = 1,      ///< 128-bit values (any UUID's bytes)
  v7_as_v4 = 2,  ///< UUIDv7 <-> UUIDv4-shaped
};

/// "u63", "u128", "v7".
const char* to_string(MaskMode mode) noexcept;
/// Parses "u63" (also "int", "bigint"), "u128" (also "uuid"), "v7" (also "v7_as_v4").
/// Throws ParseError naming the value and the accepted names.
MaskMode parse_mask_mode(std::string_view name);

/// Why a masking call failed. Stable numbering; ok = 0.
enum class MaskFault : std::uint8_t {
  ok = 0,
  out_of_domain,  ///< u63: value outside 1..2^63-1 (or high half not 0)
  not_v7,         ///< v7_as_v4 mask: not a version-7 RFC 9562 UUID
  not_v4,         ///< v7_as_v4 unmask: not a version-4 RFC 9562 UUID
  bad_length,     ///< public text: no mode has this length
  bad_character,  ///< public text: a character outside the alphabet
  mistyped,       ///< public text: the check character does not match
  unknown_key,    ///< public text: made with a key ID the keyring does not hold
  not_ours,       ///< public text: the keyed tag does not match, or the value cannot be ours
};

/// A short phrase for a fault ("value outside 1..2^63-1", ...).
const char* to_string(MaskFault fault) noexcept;
/// The error category of a fault: invalid_argument, parse_error, key_error or not_ours.
errc to_errc(MaskFault fault) noexcept;

/// A value of any mode: u63 in low with high = 0; a UUID as its big-endian halves
/// (Uuid::high(), Uuid::low()).
struct MaskValue {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  friend constexpr bool operator==(const MaskValue&, const MaskValue&) = default;
  /// The UUID with these halves.
  Uuid to_uuid() const noexcept { return Uuid::from_u64(high, low); }
  /// The halves of u.
  static MaskValue of(const Uuid& u) noexcept { return {u.high(), u.low()}; }
};

/// Largest u63 value: 2^63 - 1, the largest BIGINT.
inline constexpr std::uint64_t kMaskMaxU63 = (std::uint64_t{1} << 63) - 1;

/// One masking key: its ID (which key of a keyring made a public ID) and the networks and
/// tag key derived from its 32-byte secret. Copyable; every copy wipes its keys when
/// destroyed. Immutable, so one key serves any number of threads.
class MaskKey {
 public:
  /// Bytes of a key's secret.
  static constexpr std::size_t kSecretBytes = detail::kFeistelSecretBytes;
  /// Largest key ID: a public ID spends one base58 character on it.
  static constexpr unsigned kMaxId = 57;

  /// Derives the key's networks from secret. Throws Error(errc::key_error) for an id above
  /// kMaxId or a secret of all zero bytes (a placeholder, not a key).
  MaskKey(unsigned id, const unsigned char (&secret)[kSecretBytes]);
  MaskKey(const MaskKey&) = default;
  MaskKey& operator=(const MaskKey&) = default;
  ~MaskKey();

  /// The key ID, 0..kMaxId.
  unsigned id() const noexcept { return id_; }

  /// Masks value in mode into out. Faults: out_of_domain (u63), not_v7 (v7_as_v4).
  MaskFault mask(MaskMode mode, MaskValue value, MaskValue& out) const noexcept;
  /// Inverse of mask(). Faults: out_of_domain (u63), not_v4 (v7_as_v4).
  MaskFault unmask(MaskMode mode, MaskValue masked, MaskValue& out) const noexcept;

  /// u63: masks 1..2^63-1. Throws Error(errc::invalid_argument) naming the value otherwise.
  std::uint64_t mask_u63(std::uint64_t value) const;
  /// u63: inverse of mask_u63(), same domain and error.
  std::uint64_t unmask_u63(std::uint64_t masked) const;
  /// u128: masks any 128 bits (the result need not be a valid UUID).
  Uuid mask_u128(const Uuid& value) const noexcept;
  /// u128: inverse of mask_u128().
  Uuid unmask_u128(const Uuid& masked) const noexcept;
  /// v7_as_v4: a UUIDv7 to a UUIDv4-shaped ID. Throws Error(errc::invalid_argument) naming
  /// the UUID when it is not version 7 with the RFC 9562 variant.
  Uuid mask_v7(const Uuid& v7) const;
  /// v7_as_v4: back to the exact UUIDv7. Throws Error(errc::invalid_argument) naming the
  /// UUID when it is not version 4 with the RFC 9562 variant.
  Uuid unmask_v4(const Uuid& v4) const;

  /// The keyed tag of a masked value, which public IDs carry to tell ours from not ours:
  /// SipHash-2-4 under the key's tag key of (mode, masked), 64 bits.
  std::uint64_t tag(MaskMode mode, MaskValue masked) const noexcept;

 private:
  unsigned id_;
  detail::Feistel u63_, u122_, u128_;
  unsigned char tag_key_[16] = {};
};

// ---------------------------------------------------------------------------------------
// Values as text, the same for the command line and the service

/// A value and the mode it belongs to.
struct MaskInput {
  MaskMode mode = MaskMode::u63;
  MaskValue value;
};

/// Reads an internal value: decimal digits are u63 (1..2^63-1); a UUID in any text form
/// (idforge/uuid.hpp) is v7_as_v4 when it is a UUIDv7, else u128. A given mode overrides
/// the choice, and the text must suit it. Throws ParseError naming the text and the rule.
MaskInput parse_mask_input(std::string_view text, std::optional<MaskMode> mode = std::nullopt);
/// Reads a masked value (no key ID, no check): decimal digits are u63; a UUID is v7_as_v4
/// when it is version 4 with the RFC 9562 variant, else u128. A u128 result looks like a
/// v4 1 time in 64, so u128 values read back need mode u128 given. Throws ParseError.
MaskInput parse_masked_input(std::string_view text, std::optional<MaskMode> mode = std::nullopt);
/// A value's text: decimal for u63, the canonical UUID otherwise.
std::string format_mask_value(MaskMode mode, MaskValue value);

}  // namespace idforge
