#include "idforge/mask.hpp"

#include <sodium.h>

#include <bit>
#include <charconv>
#include <cstring>
#include <string>

#include "mask_bits.hpp"

namespace idforge {
namespace {

using detail::is_rfc_version;
using detail::join122;
using detail::split122;

bool in_u63(const MaskValue& v) noexcept {
  return v.high == 0 && v.low >= 1 && v.low <= kMaskMaxU63;
}

std::string u63_message(std::uint64_t value) {
  return "value " + std::to_string(value) + " is outside 1.." + std::to_string(kMaskMaxU63) +
         " (u63 masks positive BIGINT values)";
}

// Runs in the first member initialiser, so a bad ID or secret fails before any key is derived.
const unsigned char (&checked_secret(unsigned id, const unsigned char (&secret)[32]))[32] {
  if (id > MaskKey::kMaxId)
    throw Error(errc::key_error, "mask key ID " + std::to_string(id) + " is above the largest, " +
                                     std::to_string(MaskKey::kMaxId));
  unsigned char zero[MaskKey::kSecretBytes] = {};
  if (sodium_memcmp(secret, zero, sizeof zero) == 0)
    throw Error(errc::key_error,
                "mask key " + std::to_string(id) + " is all zero bytes: a placeholder, not a key");
  return secret;
}

}  // namespace

const char* to_string(MaskMode mode) noexcept {
  switch (mode) {
    case MaskMode::u63:
      return "u63";
    case MaskMode::u128:
      return "u128";
    case MaskMode::v7_as_v4:
      return "v7";
  }
  return "?";
}

MaskMode parse_mask_mode(std::string_view name) {
  if (name == "u63" || name == "int" || name == "bigint") return MaskMode::u63;
  if (name == "u128" || name == "uuid") return MaskMode::u128;
  if (name == "v7" || name == "v7_as_v4") return MaskMode::v7_as_v4;
  throw ParseError("mask mode", name, 0, "expected u63, u128 or v7");
}

const char* to_string(MaskFault fault) noexcept {
  switch (fault) {
    case MaskFault::ok:
      return "ok";
    case MaskFault::out_of_domain:
      return "value outside 1..2^63-1";
    case MaskFault::not_v7:
      return "not a version-7 RFC 9562 UUID";
    case MaskFault::not_v4:
      return "not a version-4 RFC 9562 UUID";
    case MaskFault::bad_length:
      return "no public ID has this length";
    case MaskFault::bad_character:
      return "character outside the alphabet";
    case MaskFault::mistyped:
      return "check character does not match: mistyped";
    case MaskFault::unknown_key:
      return "made with a key this keyring does not hold";
    case MaskFault::not_ours:
      return "keyed check does not match: not made with this key";
  }
  return "?";
}

errc to_errc(MaskFault fault) noexcept {
  switch (fault) {
    case MaskFault::ok:
    case MaskFault::out_of_domain:
    case MaskFault::not_v7:
    case MaskFault::not_v4:
      return errc::invalid_argument;
    case MaskFault::bad_length:
    case MaskFault::bad_character:
    case MaskFault::mistyped:
      return errc::parse_error;
    case MaskFault::unknown_key:
      return errc::key_error;
    case MaskFault::not_ours:
      return errc::not_ours;
  }
  return errc::invalid_argument;
}

// ---------------------------------------------------------------------------------------
// MaskKey

MaskKey::MaskKey(unsigned id, const unsigned char (&secret)[kSecretBytes])
    : id_(id), u63_(checked_secret(id, secret), 63), u122_(secret, 122), u128_(secret, 128) {
  detail::derive_subkey(tag_key_, detail::kTagSubkeyId, secret);
}

MaskKey::~MaskKey() {
  sodium_memzero(tag_key_, sizeof tag_key_);
}

MaskFault MaskKey::mask(MaskMode mode, MaskValue value, MaskValue& out) const noexcept {
  switch (mode) {
    case MaskMode::u63:
      if (!in_u63(value)) return MaskFault::out_of_domain;
      out = {0, detail::encrypt_positive(u63_, value.low)};
      return MaskFault::ok;
    case MaskMode::u128:
      u128_.encrypt(value.high, value.low);
      out = value;
      return MaskFault::ok;
    case MaskMode::v7_as_v4: {
      if (!is_rfc_version(value, 7)) return MaskFault::not_v7;
      std::uint64_t a, b;
      split122(value, a, b);
      u122_.encrypt(a, b);
      out = join122(a, b, 4);
      return MaskFault::ok;
    }
  }
  return MaskFault::out_of_domain;
}

MaskFault MaskKey::unmask(MaskMode mode, MaskValue masked, MaskValue& out) const noexcept {
  switch (mode) {
    case MaskMode::u63:
      if (!in_u63(masked)) return MaskFault::out_of_domain;
      out = {0, detail::decrypt_positive(u63_, masked.low)};
      return MaskFault::ok;
    case MaskMode::u128:
      u128_.decrypt(masked.high, masked.low);
      out = masked;
      return MaskFault::ok;
    case MaskMode::v7_as_v4: {
      if (!is_rfc_version(masked, 4)) return MaskFault::not_v4;
      std::uint64_t a, b;
      split122(masked, a, b);
      u122_.decrypt(a, b);
      out = join122(a, b, 7);
      return MaskFault::ok;
    }
  }
  return MaskFault::out_of_domain;
}

std::uint64_t MaskKey::mask_u63(std::uint64_t value) const {
  if (value == 0 || value > kMaskMaxU63) throw Error(errc::invalid_argument, u63_message(value));
  return detail::encrypt_positive(u63_, value);
}

std::uint64_t MaskKey::unmask_u63(std::uint64_t masked) const {
  if (masked == 0 || masked > kMaskMaxU63) throw Error(errc::invalid_argument, u63_message(masked));
  return detail::decrypt_positive(u63_, masked);
}

Uuid MaskKey::mask_u128(const Uuid& value) const noexcept {
  std::uint64_t a = value.high(), b = value.low();
  u128_.encrypt(a, b);
  return Uuid::from_u64(a, b);
}

Uuid MaskKey::unmask_u128(const Uuid& masked) const noexcept {
  std::uint64_t a = masked.high(), b = masked.low();
  u128_.decrypt(a, b);
  return Uuid::from_u64(a, b);
}

Uuid MaskKey::mask_v7(const Uuid& v7) const {
  MaskValue out;
  if (mask(MaskMode::v7_as_v4, MaskValue::of(v7), out) != MaskFault::ok)
    throw Error(errc::invalid_argument,
                "UUID " + v7.to_string() + " is not a UUIDv7 (version " +
                    std::to_string(v7.version()) + ", variant " + to_string(v7.variant()) +
                    "); v7 masking takes version 7 with the RFC 9562 variant");
  return out.to_uuid();
}

Uuid MaskKey::unmask_v4(const Uuid& v4) const {
  MaskValue out;
  if (unmask(MaskMode::v7_as_v4, MaskValue::of(v4), out) != MaskFault::ok)
    throw Error(errc::invalid_argument,
                "UUID " + v4.to_string() + " is not a UUIDv4 (version " +
                    std::to_string(v4.version()) + ", variant " + to_string(v4.variant()) +
                    "); a v7 masked to v4 has version 4 with the RFC 9562 variant");
  return out.to_uuid();
}

std::uint64_t MaskKey::tag(MaskMode mode, MaskValue masked) const noexcept {
  unsigned char in[17];
  in[0] = static_cast<unsigned char>(mode);
  for (int k = 0; k < 8; ++k) {
    in[1 + k] = static_cast<unsigned char>(masked.high >> (8 * k));
    in[9 + k] = static_cast<unsigned char>(masked.low >> (8 * k));
  }
  unsigned char out[8];
  crypto_shorthash(out, in, sizeof in, tag_key_);
  std::uint64_t t;
  std::memcpy(&t, out, 8);
  if constexpr (std::endian::native == std::endian::big) t = __builtin_bswap64(t);
  return t;
}

// ---------------------------------------------------------------------------------------
// Values as text

namespace {

bool all_digits(std::string_view t) noexcept {
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

// Where the version digit (the 13th hex digit) of a parsed UUID text sits, for messages.
std::size_t version_position(std::string_view text) noexcept {
  std::size_t i = text.size() == 45 ? 9 : 0, seen = 0;  // urn:uuid: holds a hex 'd'
  for (; i < text.size(); ++i) {
    const char c = text[i];
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (hex && ++seen == 13) return i;
  }
  return 0;
}

MaskInput read_value(std::string_view text, std::optional<MaskMode> mode,
                     unsigned auto_uuid_version, const char* what) {
  if (all_digits(text)) {
    if (mode && *mode != MaskMode::u63)
      throw ParseError(
          what, text, 0,
          std::string("a number is a u63 value; mode ") + to_string(*mode) + " takes a UUID");
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || v == 0 || v > kMaskMaxU63)
      throw ParseError(what, text, 0, "a u63 value is from 1 to 9223372036854775807");
    return {MaskMode::u63, {0, v}};
  }
  Uuid u;
  const ParseStatus st = parse_uuid(text, u);
  if (!st.ok())
    throw ParseError(what, text, st.position,
                     std::string("neither a number (u63) nor a UUID: ") + st.reason);
  const MaskValue v = MaskValue::of(u);
  if (mode == MaskMode::u63) throw ParseError(what, text, 0, "mode u63 takes a number, not a UUID");
  const MaskMode m = mode                                           ? *mode
                     : detail::is_rfc_version(v, auto_uuid_version) ? MaskMode::v7_as_v4
                                                                    : MaskMode::u128;
  if (m == MaskMode::v7_as_v4 && !detail::is_rfc_version(v, auto_uuid_version))
    throw ParseError(what, text, version_position(text),
                     "mode v7 takes a UUID of version " + std::to_string(auto_uuid_version) +
                         " with the RFC 9562 variant; this one has version " +
                         std::to_string(u.version()) + ", variant " + to_string(u.variant()));
  return {m, v};
}

}  // namespace

MaskInput parse_mask_input(std::string_view text, std::optional<MaskMode> mode) {
  return read_value(text, mode, 7, "value to mask");
}

MaskInput parse_masked_input(std::string_view text, std::optional<MaskMode> mode) {
  return read_value(text, mode, 4, "masked value");
}

std::string format_mask_value(MaskMode mode, MaskValue value) {
  return mode == MaskMode::u63 ? std::to_string(value.low) : value.to_uuid().to_string();
}

}  // namespace idforge
