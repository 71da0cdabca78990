// TypeId: a TypeID as its specification (github.com/jetify-com/typeid, spec/README.md,
// version 0.3.0) defines it: a type prefix, an underscore, and a UUID in 26 characters of
// base32.
//
//   user_01h455vb4pex5vsknk084sn02q
//   prefix  0..63 characters of [a-z_], not starting or ending with '_'
//           (regex ^([a-z]([a-z_]*[a-z])?)?$); the empty prefix drops the separator too
//   suffix  the 128 bits with two zero bits in front, as 26 groups of 5 bits, most
//           significant first, in 0123456789abcdefghjkmnpqrstvwxyz. Strictly lowercase and
//           without Crockford's aliases (no I/L/O decoding); the first character is at most
//           '7' (anything larger would need 129 bits).
//
// The suffix is the same bit grouping as a ULID's text (ulid.hpp), only lowercase and strict.
// Parsing accepts any 128 bits (the spec: other UUID versions may be encoded); generation
// always makes a UUIDv7 (the spec: "the generated UUID suffix MUST decode to a valid UUIDv7"),
// taken from a UuidV7Generator (TypeIdGenerator, one thread) or a SharedUuidV7Generator
// (SharedTypeIdGenerator, any threads), so the IDs one generator makes are strictly increasing.
//
// A TypeId holds its prefix inline (at most 63 bytes), so making and copying one never
// allocates.
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
#include "idforge/uuid.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {

/// Checks a TypeID prefix against the specification's rules; the position is within prefix.
ParseStatus check_typeid_prefix(std::string_view prefix) noexcept;

/// Writes the 26-character lowercase base32 suffix of u at out; returns out + 26.
char* encode_typeid_suffix(const Uuid& u, char* out) noexcept;

/// Decodes a 26-character suffix (strict: lowercase alphabet only, first character at most
/// '7') into out; out is unchanged on failure. Positions count from the suffix's start.
ParseStatus decode_typeid_suffix(std::string_view suffix, Uuid& out) noexcept;

/// A TypeID: prefix + UUID. A regular value: copy, compare (prefix, then UUID), hash.
class TypeId {
 public:
  /// Longest prefix the specification allows.
  static constexpr std::size_t kMaxPrefixSize = 63;
  /// Length of the suffix.
  static constexpr std::size_t kSuffixSize = 26;
  /// Longest text: 63 + '_' + 26.
  static constexpr std::size_t kMaxTextSize = kMaxPrefixSize + 1 + kSuffixSize;

  /// The empty prefix and the nil UUID: "00000000000000000000000000".
  constexpr TypeId() noexcept = default;
  /// From a prefix and a UUID of any version. Throws ParseError if prefix breaks a rule.
  TypeId(std::string_view prefix, const Uuid& uuid);

  /// The type prefix ("" when there is none).
  std::string_view prefix() const noexcept { return {prefix_.data(), prefix_size_}; }
  /// The 128 bits as a UUID.
  constexpr const Uuid& uuid() const noexcept { return uuid_; }
  /// Length of the text form: the prefix, '_' if the prefix is not empty, and 26.
  std::size_t text_size() const noexcept {
    return prefix_size_ + (prefix_size_ ? 1 : 0) + kSuffixSize;
  }

  /// Parses "prefix_suffix" or a bare suffix. Throws ParseError with position and rule.
  static TypeId parse(std::string_view text);
  /// Parses; nullopt if text is not a TypeID. Never throws.
  static std::optional<TypeId> try_parse(std::string_view text) noexcept;

  /// Writes the text form (text_size() characters, no terminator) at out; returns the end.
  char* to_chars(char* out) const noexcept;
  /// The text form, e.g. "user_01h455vb4pex5vsknk084sn02q".
  std::string to_string() const;

  friend bool operator==(const TypeId& a, const TypeId& b) noexcept {
    return a.prefix() == b.prefix() && a.uuid_ == b.uuid_;
  }
  friend std::strong_ordering operator<=>(const TypeId& a, const TypeId& b) noexcept {
    if (auto c = a.prefix().compare(b.prefix()); c != 0) return c <=> 0;
    return a.uuid_ <=> b.uuid_;
  }

 private:
  friend ParseStatus parse_typeid(std::string_view text, TypeId& out) noexcept;
  template <bool Shared>
  friend class BasicTypeIdGenerator;
  // Only after the prefix was checked.
  void set_unchecked(std::string_view prefix, const Uuid& uuid) noexcept;

  std::array<char, kMaxPrefixSize> prefix_{};
  std::uint8_t prefix_size_ = 0;
  Uuid uuid_{};
};

/// Parses text as a TypeID into out without throwing or allocating; out is unchanged on
/// failure. The text splits at its last '_'; without one, it is a bare suffix.
ParseStatus parse_typeid(std::string_view text, TypeId& out) noexcept;

/// TypeIDs of one prefix, their UUIDs from a UuidV7Generator (Shared = false: one thread)
/// or a SharedUuidV7Generator (Shared = true: any threads, lock-free): strictly increasing,
/// same clock and counter rules (uuid_generator.hpp). Use the names below.
template <bool Shared>
class BasicTypeIdGenerator {
 public:
  /// Checks prefix once (throws ParseError); reads time from clock, which must outlive it.
  explicit BasicTypeIdGenerator(std::string_view prefix, Clock& clock = SystemClock::instance());
  BasicTypeIdGenerator(const BasicTypeIdGenerator&) = delete;
  BasicTypeIdGenerator& operator=(const BasicTypeIdGenerator&) = delete;

  /// The next TypeID. Allocation-free; throws only as the UUIDv7 generator's next() does.
  TypeId next();
  /// The prefix every ID of this generator carries.
  std::string_view prefix() const noexcept { return template_.prefix(); }
  /// Unix ms of the last issued ID; kNoUnixMs (clock.hpp) if none.
  std::int64_t last_unix_ms() const noexcept { return uuids_.last_unix_ms(); }

 private:
  TypeId template_;
  MonotonicGenerator<UuidV7Stamp, Shared> uuids_;
};

/// TypeIDs for one thread; make one per thread, or share a SharedTypeIdGenerator.
using TypeIdGenerator = BasicTypeIdGenerator<false>;
/// TypeIDs shared by any number of threads: every ID is greater than every one it returned
/// before on any thread.
using SharedTypeIdGenerator = BasicTypeIdGenerator<true>;

extern template class BasicTypeIdGenerator<false>;
extern template class BasicTypeIdGenerator<true>;

}  // namespace idforge

/// Hashes prefix and UUID.
template <>
struct std::hash<idforge::TypeId> {
  std::size_t operator()(const idforge::TypeId& t) const noexcept {
    return std::hash<std::string_view>{}(t.prefix()) * 31 + std::hash<idforge::Uuid>{}(t.uuid());
  }
};
