#include "idforge/int_codec.hpp"

#include <array>

#include "idforge/error.hpp"

namespace idforge {
namespace {

constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
constexpr char kBase62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Decoding tables: -1 invalid; Crockford also maps i/l to 1 and o to 0 (its spec's aliases).
constexpr std::array<signed char, 256> make_crockford_table() {
  std::array<signed char, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 32; ++i) {
    t[static_cast<unsigned char>(kCrockford[i])] = static_cast<signed char>(i);
    const char c = kCrockford[i];
    if (c >= 'A' && c <= 'Z')
      t[static_cast<unsigned char>(c - 'A' + 'a')] = static_cast<signed char>(i);
  }
  t['I'] = t['i'] = t['L'] = t['l'] = 1;
  t['O'] = t['o'] = 0;
  return t;
}
constexpr std::array<signed char, 256> make_table(const char* alphabet, int n) {
  std::array<signed char, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < n; ++i)
    t[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
  return t;
}
constexpr auto kCrockfordTable = make_crockford_table();
constexpr auto kBase62Table = make_table(kBase62, 62);
constexpr auto kDecimalTable = make_table("0123456789", 10);
constexpr auto kHexTable = [] {
  auto t = make_table("0123456789abcdef", 16);
  for (int i = 0; i < 6; ++i) t['A' + i] = static_cast<signed char>(10 + i);
  return t;
}();

std::string printable(char c) {
  if (c >= 0x21 && c < 0x7f) return std::string("'") + c + "'";
  static const char* hex = "0123456789abcdef";
  const auto u = static_cast<unsigned char>(c);
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

[[noreturn]] void fail(IntEncoding e, std::string_view text, std::size_t pos,
                       const std::string& why) {
  throw ParseError(std::string(to_string(e)) + " ID", text, pos, why);
}

std::uint64_t decode_digits(std::string_view text, std::string_view digits, std::size_t offset,
                            IntEncoding e, const std::array<signed char, 256>& table, unsigned base,
                            std::size_t max_len, const char* alphabet_name) {
  if (digits.empty()) fail(e, text, offset, "no digits");
  if (digits.size() > max_len)
    fail(e, text, offset + max_len,
         "too long: " + std::to_string(digits.size()) + " characters, at most " +
             std::to_string(max_len));
  if (e == IntEncoding::base32 && digits.size() == 13 &&
      kCrockfordTable[static_cast<unsigned char>(digits[0])] > 15)
    fail(e, text, offset, "first of 13 characters is at most 'F': more would need 65 bits");
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    const int d = table[static_cast<unsigned char>(digits[i])];
    if (d < 0)
      fail(e, text, offset + i,
           printable(digits[i]) + " is not a " + alphabet_name +
               (e == IntEncoding::base32 && (digits[i] == 'U' || digits[i] == 'u')
                    ? " (Crockford excludes U)"
                    : ""));
    if (v > (~std::uint64_t{0} - static_cast<unsigned>(d)) / base)
      fail(e, text, offset + i, "value exceeds 2^64-1");
    v = v * base + static_cast<unsigned>(d);
  }
  return v;
}

}  // namespace

IntEncoding parse_int_encoding(std::string_view name) {
  if (name == "dec" || name == "decimal") return IntEncoding::decimal;
  if (name == "hex") return IntEncoding::hex;
  if (name == "base32" || name == "crockford") return IntEncoding::base32;
  if (name == "base62") return IntEncoding::base62;
  throw ParseError("encoding name", name, 0, "expected dec, hex, base32 or base62");
}

const char* to_string(IntEncoding e) noexcept {
  switch (e) {
    case IntEncoding::decimal:
      return "decimal";
    case IntEncoding::hex:
      return "hex";
    case IntEncoding::base32:
      return "base32";
    case IntEncoding::base62:
      return "base62";
  }
  return "?";
}

char* encode_base32_u64(std::uint64_t v, char* out) noexcept {
  for (int i = 12; i >= 0; --i, v >>= 5) out[i] = kCrockford[v & 31];
  return out + 13;
}

char* encode_base62_u64(std::uint64_t v, char* out) noexcept {
  for (int i = 10; i >= 0; --i, v /= 62) out[i] = kBase62[v % 62];
  return out + 11;
}

std::string encode_u64(std::uint64_t v, IntEncoding e) {
  switch (e) {
    case IntEncoding::decimal:
      return std::to_string(v);
    case IntEncoding::hex: {
      std::string s(16, '0');
      static const char* hex = "0123456789abcdef";
      for (int i = 15; i >= 0; --i, v >>= 4) s[i] = hex[v & 15];
      return s;
    }
    case IntEncoding::base32: {
      std::string s(13, '0');
      encode_base32_u64(v, s.data());
      return s;
    }
    case IntEncoding::base62: {
      std::string s(11, '0');
      encode_base62_u64(v, s.data());
      return s;
    }
  }
  return {};
}

std::uint64_t decode_u64(std::string_view text, IntEncoding e) {
  switch (e) {
    case IntEncoding::decimal:
      return decode_digits(text, text, 0, e, kDecimalTable, 10, 20, "decimal digit");
    case IntEncoding::hex: {
      const std::size_t skip = text.starts_with("0x") || text.starts_with("0X") ? 2 : 0;
      return decode_digits(text, text.substr(skip), skip, e, kHexTable, 16, 16, "hex digit");
    }
    case IntEncoding::base32:
      return decode_digits(text, text, 0, e, kCrockfordTable, 32, 13, "Crockford base32 character");
    case IntEncoding::base62:
      return decode_digits(text, text, 0, e, kBase62Table, 62, 11, "base62 character");
  }
  return 0;
}

}  // namespace idforge
