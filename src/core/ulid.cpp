#include "idforge/ulid.hpp"

#include "idforge/error.hpp"

namespace idforge {
namespace {

constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// Crockford value of a character, 0x80 for 'U'/'u' (named in the error) and 0xFF for
// anything else outside the alphabet. OR-ing lookups and testing 0x80 finds any bad one.
struct Base32Values {
  std::uint8_t v[256];
};
constexpr Base32Values make_values() {
  Base32Values t{};
  for (int i = 0; i < 256; ++i) t.v[i] = 0xFF;
  for (int i = 0; i < 32; ++i) {
    const char c = kAlphabet[i];
    t.v[static_cast<unsigned char>(c)] = static_cast<std::uint8_t>(i);
    if (c >= 'A' && c <= 'Z')
      t.v[static_cast<unsigned char>(c - 'A' + 'a')] = static_cast<std::uint8_t>(i);
  }
  t.v['I'] = t.v['i'] = t.v['L'] = t.v['l'] = 1;
  t.v['O'] = t.v['o'] = 0;
  t.v['U'] = t.v['u'] = 0x80;
  return t;
}
constexpr Base32Values kValues = make_values();

// Writes the N low 5-bit groups of v, most significant first. Every character is its own
// shift and lookup (no chain through v), so the CPU works on all of them at once.
template <int N>
inline void encode_groups(std::uint64_t v, char* out) noexcept {
  for (int i = 0; i < N; ++i) out[i] = kAlphabet[(v >> (5 * (N - 1 - i))) & 31];
}

// Reads N characters as 5-bit groups; the OR of all lookups goes to bad.
template <int N>
inline std::uint64_t decode_groups(const char* p, std::uint8_t& bad) noexcept {
  std::uint64_t v = 0;
  std::uint8_t b = 0;
  for (int i = 0; i < N; ++i) {
    const std::uint8_t d = kValues.v[static_cast<unsigned char>(p[i])];
    b |= d;
    v |= static_cast<std::uint64_t>(d & 31) << (5 * (N - 1 - i));
  }
  bad |= b;
  return v;
}

}  // namespace

UlidParseStatus parse_ulid(std::string_view text, Ulid& out) noexcept {
  if (text.size() != Ulid::kTextSize)
    return {text.size() < Ulid::kTextSize ? text.size() : Ulid::kTextSize,
            "a ULID is exactly 26 Crockford base32 characters"};
  const char* p = text.data();
  std::uint8_t bad = 0;
  // 10 characters of time (50 bits, of which the top 2 must be zero), then 2 x 8 characters
  // of 40 random bits each.
  const std::uint64_t time = decode_groups<10>(p, bad);
  const std::uint64_t r_hi = decode_groups<8>(p + 10, bad);
  const std::uint64_t r_lo = decode_groups<8>(p + 18, bad);
  if (bad & 0x80) [[unlikely]] {
    for (std::size_t i = 0; i < Ulid::kTextSize; ++i) {
      const std::uint8_t d = kValues.v[static_cast<unsigned char>(p[i])];
      if (d == 0x80) return {i, "'U' is not in Crockford's base32 alphabet"};
      if (d == 0xFF) return {i, "expected a Crockford base32 character (0-9, A-Z except U)"};
    }
  }
  if (time >> 48) return {0, "first character above '7': the value would exceed 128 bits"};
  out = Ulid::from_u64((time << 16) | (r_hi >> 24), (r_hi << 40) | r_lo);
  return {};
}

Ulid Ulid::parse(std::string_view text) {
  Ulid u;
  const UlidParseStatus st = parse_ulid(text, u);
  if (!st.ok()) throw ParseError("ULID", text, st.position, st.reason);
  return u;
}

std::optional<Ulid> Ulid::try_parse(std::string_view text) noexcept {
  Ulid u;
  if (!parse_ulid(text, u).ok()) return std::nullopt;
  return u;
}

char* Ulid::to_chars(char* out) const noexcept {
  const std::uint64_t h = high(), l = low();
  encode_groups<10>(h >> 16, out);                               // 48-bit time
  encode_groups<8>(((h & 0xFFFF) << 24) | (l >> 40), out + 10);  // random bits 79..40
  encode_groups<8>(l & 0xFF'FFFF'FFFFull, out + 18);             // random bits 39..0
  return out + kTextSize;
}

std::string Ulid::to_string() const {
  std::string s(kTextSize, '\0');
  to_chars(s.data());
  return s;
}

}  // namespace idforge
