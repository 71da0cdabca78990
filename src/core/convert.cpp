#include "idforge/convert.hpp"

#include <algorithm>

#include "idforge/detail/atomic_u128.hpp"
#include "idforge/error.hpp"
#include "idforge/ksuid.hpp"
#include "idforge/typeid.hpp"
#include "idforge/ulid.hpp"

namespace idforge {
namespace {

using u128 = detail::u128;

constexpr char kBase62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
constexpr std::size_t kBase62Size = 22;

int base62_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  if (c >= 'a' && c <= 'z') return c - 'a' + 36;
  return -1;
}

u128 to_u128(const Uuid& u) noexcept {
  return (static_cast<u128>(u.high()) << 64) | u.low();
}

Uuid from_u128(u128 v) noexcept {
  return Uuid::from_u64(static_cast<std::uint64_t>(v >> 64), static_cast<std::uint64_t>(v));
}

bool is_decimal_or_0x(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) return true;
  return !s.empty() && s.size() <= 20 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

[[noreturn]] void throw_not_128(std::string_view text, const char* what) {
  throw Error(errc::invalid_argument,
              "'" + std::string(text) + "' is " + what +
                  "; only UUID, ULID, TypeID, 32-digit hex and 22-character "
                  "base62 carry 128 bits and convert");
}

}  // namespace

char* encode_base62_128(const Uuid& bits, char* out) noexcept {
  u128 v = to_u128(bits);
  for (std::size_t i = kBase62Size; i-- > 0;) {
    out[i] = kBase62[static_cast<int>(v % 62)];
    v /= 62;
  }
  return out + kBase62Size;
}

Uuid decode_base62_128(std::string_view text) {
  if (text.size() != kBase62Size)
    throw ParseError("base62 128-bit ID", text, std::min(text.size(), kBase62Size),
                     "a 128-bit base62 ID is exactly 22 characters (0-9, A-Z, a-z)");
  const u128 max = ~static_cast<u128>(0);
  u128 v = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const int d = base62_value(text[i]);
    if (d < 0)
      throw ParseError("base62 128-bit ID", text, i, "expected a base62 character (0-9, A-Z, a-z)");
    if (v > (max - static_cast<u128>(d)) / 62)
      throw ParseError("base62 128-bit ID", text, 0,
                       "value exceeds 128 bits (the largest is 7n42DGM5Tflk9n8mt7Fhc7)");
    v = v * 62 + static_cast<u128>(d);
  }
  return from_u128(v);
}

Id128Target parse_id128_target(std::string_view spec) {
  Id128Target t;
  if (spec == "uuid")
    t.form = Id128Form::uuid;
  else if (spec == "ulid")
    t.form = Id128Form::ulid;
  else if (spec == "hex")
    t.form = Id128Form::hex;
  else if (spec == "base62")
    t.form = Id128Form::base62;
  else if (spec == "typeid" || spec.starts_with("typeid:")) {
    t.form = Id128Form::type_id;
    if (spec.size() > 6) {
      t.prefix = std::string(spec.substr(7));
      const ParseStatus st = check_typeid_prefix(t.prefix);
      if (!st.ok()) throw ParseError("TypeID prefix", t.prefix, st.position, st.reason);
    }
  } else {
    throw ParseError("conversion target", spec, 0,
                     "expected uuid, ulid, typeid, typeid:PREFIX, hex or base62");
  }
  return t;
}

Id128 read_id128(std::string_view text) {
  if (text.find('_') != std::string_view::npos)
    return {TypeId::parse(text).uuid(), Id128Form::type_id};
  switch (text.size()) {
    case Ulid::kTextSize:
      return {Ulid::parse(text).to_uuid(), Id128Form::ulid};
    case kBase62Size:
      return {decode_base62_128(text), Id128Form::base62};
    case Ksuid::kTextSize:
      (void)Ksuid::parse(text);  // malformed: say why; well-formed: say it does not fit
      throw_not_128(text, "a KSUID: 160 bits (32-bit time + 128-bit payload), no 128-bit form");
    case Uuid::kHexSize:
      return {Uuid::parse(text), Id128Form::hex};
    default:
      break;
  }
  if (text.size() == Uuid::kTextSize || text.starts_with('{') || text.size() == Uuid::kTextSize + 9)
    return {Uuid::parse(text), Id128Form::uuid};
  if (is_decimal_or_0x(text)) throw_not_128(text, "a Snowflake (64 bits), not a 128-bit ID");
  throw ParseError("128-bit ID", text, 0,
                   "unrecognised shape: expected a UUID (8-4-4-4-12, 32 hex digits, {braced} or "
                   "urn:uuid:), a ULID (26 Crockford base32), a TypeID (prefix_ + 26 base32) or "
                   "22 base62 characters");
}

std::string write_id128(const Uuid& bits, const Id128Target& target) {
  switch (target.form) {
    case Id128Form::uuid:
      return bits.to_string();
    case Id128Form::ulid:
      return Ulid::from_uuid(bits).to_string();
    case Id128Form::type_id:
      return TypeId(target.prefix, bits).to_string();
    case Id128Form::hex:
      return bits.to_hex();
    case Id128Form::base62: {
      std::string s(kBase62Size, '\0');
      encode_base62_128(bits, s.data());
      return s;
    }
  }
  return bits.to_string();
}

std::string convert_id(std::string_view text, std::string_view target) {
  const Id128Target t = parse_id128_target(target);
  return write_id128(read_id128(text).bits, t);
}

}  // namespace idforge
