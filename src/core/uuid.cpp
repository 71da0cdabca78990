#include "idforge/uuid.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "idforge/error.hpp"

namespace idforge {
namespace {

// ---------------------------------------------------------------------------------------
// Tables, built at compile time

struct HexPairs {
  char pairs[256][2];
};
constexpr HexPairs make_hex_pairs() {
  HexPairs t{};
  constexpr char digits[] = "0123456789abcdef";
  for (int i = 0; i < 256; ++i) {
    t.pairs[i][0] = digits[i >> 4];
    t.pairs[i][1] = digits[i & 15];
  }
  return t;
}
constexpr HexPairs kHexPairs = make_hex_pairs();

// Hex digit value, or 0xF0 for anything else: OR-ing a run of lookups and testing 0xF0
// tells whether any character was bad without a branch per character.
struct HexValues {
  std::uint8_t v[256];
};
constexpr HexValues make_hex_values() {
  HexValues t{};
  for (int i = 0; i < 256; ++i) t.v[i] = 0xF0;
  for (int i = 0; i < 10; ++i) t.v['0' + i] = static_cast<std::uint8_t>(i);
  for (int i = 0; i < 6; ++i) {
    t.v['a' + i] = static_cast<std::uint8_t>(10 + i);
    t.v['A' + i] = static_cast<std::uint8_t>(10 + i);
  }
  return t;
}
constexpr HexValues kHexValues = make_hex_values();

// Where the 32 digits of the canonical form start: groups 8-4-4-4-12.
constexpr std::size_t kHyphens[4] = {8, 13, 18, 23};
constexpr char kUrnPrefix[] = "urn:uuid:";
constexpr std::size_t kUrnPrefixSize = sizeof kUrnPrefix - 1;

// Decodes 2 * n hex digits at p into n bytes. Returns false if any digit is bad.
inline bool decode_hex(const char* p, std::size_t n, std::uint8_t* out) noexcept {
  std::uint8_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t hi = kHexValues.v[static_cast<unsigned char>(p[2 * i])];
    const std::uint8_t lo = kHexValues.v[static_cast<unsigned char>(p[2 * i + 1])];
    bad |= hi | lo;
    out[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return (bad & 0xF0) == 0;
}

#if defined(__SSE2__)
// 16 hex characters -> 8 bytes, in both 64-bit halves of the result's low lane order.
// Returns a mask whose bits are set for every invalid character (0 = all valid).
// SSE2 is part of x86-64 itself, so this needs no CPU dispatch.
inline int hex16(__m128i c, __m128i& nibbles) noexcept {
  const __m128i lower = _mm_or_si128(c, _mm_set1_epi8(0x20));  // 'A'-'F' -> 'a'-'f'
  // Signed compares: bytes >= 0x80 are negative and fail both ranges.
  const __m128i is_digit = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)),
                                         _mm_cmplt_epi8(c, _mm_set1_epi8('9' + 1)));
  const __m128i is_alpha = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                                         _mm_cmplt_epi8(lower, _mm_set1_epi8('f' + 1)));
  // '0'-'9' -> low nibble; 'a'-'f' -> low nibble (1-6) + 9.
  nibbles = _mm_add_epi8(_mm_and_si128(c, _mm_set1_epi8(0x0F)),
                         _mm_and_si128(is_alpha, _mm_set1_epi8(9)));
  return ~_mm_movemask_epi8(_mm_or_si128(is_digit, is_alpha)) & 0xFFFF;
}

// Two runs of 16 hex characters -> 16 bytes. Returns false if any character is not hex.
inline bool hex32(__m128i c0, __m128i c1, std::uint8_t* out) noexcept {
  __m128i n0, n1;
  const int bad = hex16(c0, n0) | hex16(c1, n1);
  // Each 16-bit lane holds (first digit, second digit); make it first << 4 | second.
  const __m128i lo_mask = _mm_set1_epi16(0x000F);
  const __m128i b0 =
      _mm_or_si128(_mm_slli_epi16(_mm_and_si128(n0, lo_mask), 4), _mm_srli_epi16(n0, 8));
  const __m128i b1 =
      _mm_or_si128(_mm_slli_epi16(_mm_and_si128(n1, lo_mask), 4), _mm_srli_epi16(n1, 8));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(b0, b1));
  return bad == 0;
}

inline __m128i load16(const char* p) noexcept {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// Byte masks selecting lanes [from, to): constants the compiler folds into the code.
template <int From, int To>
inline __m128i lanes() noexcept {
  constexpr auto on = [](int i) { return static_cast<char>(i >= From && i < To ? -1 : 0); };
  return _mm_setr_epi8(on(0), on(1), on(2), on(3), on(4), on(5), on(6), on(7), on(8), on(9), on(10),
                       on(11), on(12), on(13), on(14), on(15));
}

// 16 bytes -> 32 lowercase hex digits: d0 holds digits 0-15, d1 digits 16-31. Nibbles are
// split with a shift and a mask, interleaved high-first, and mapped to ASCII with one
// compare ('0' + n, plus 39 more for 'a'-'f'): no table lookups, about 10 instructions.
inline void hex_encode32(const std::uint8_t* bytes, __m128i& d0, __m128i& d1) noexcept {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
  const __m128i nibble = _mm_set1_epi8(0x0F);
  const __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), nibble);
  const __m128i lo = _mm_and_si128(b, nibble);
  const auto ascii = [](__m128i n) {
    const __m128i letter = _mm_cmpgt_epi8(n, _mm_set1_epi8(9));
    return _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8('0')),
                        _mm_and_si128(letter, _mm_set1_epi8('a' - '0' - 10)));
  };
  d0 = ascii(_mm_unpacklo_epi8(hi, lo));
  d1 = ascii(_mm_unpackhi_epi8(hi, lo));
}
#endif

inline bool is_hex(char c) noexcept {
  return kHexValues.v[static_cast<unsigned char>(c)] < 16;
}

// The canonical 36 characters starting at text[at]; positions in errors count from text[0].
[[gnu::always_inline]] inline UuidParseStatus parse_canonical(std::string_view text, std::size_t at,
                                                              Uuid::Bytes& b) noexcept {
  const char* p = text.data() + at;
  if (((p[8] ^ '-') | (p[13] ^ '-') | (p[18] ^ '-') | (p[23] ^ '-')) != 0) [[unlikely]] {
    for (std::size_t h : kHyphens)
      if (p[h] != '-') return {at + h, "expected '-' between the 8-4-4-4-12 groups"};
  }
#if defined(__SSE2__)
  // Gather the 32 digits with overlapping loads: digits 0-15 are text 0-7, 9-12, 14-17;
  // digits 16-31 are text 19-22, 24-35. No load reaches past text[35].
  const __m128i d0 = _mm_or_si128(_mm_or_si128(_mm_and_si128(load16(p), lanes<0, 8>()),
                                               _mm_and_si128(load16(p + 1), lanes<8, 12>())),
                                  _mm_and_si128(load16(p + 2), lanes<12, 16>()));
  const __m128i d1 = _mm_or_si128(_mm_and_si128(load16(p + 19), lanes<0, 4>()),
                                  _mm_and_si128(load16(p + 20), lanes<4, 16>()));
  if (hex32(d0, d1, b.data())) [[likely]]
    return {};
#else
  char digits[32];
  std::memcpy(digits, p, 8);
  std::memcpy(digits + 8, p + 9, 4);
  std::memcpy(digits + 12, p + 14, 4);
  std::memcpy(digits + 16, p + 19, 4);
  std::memcpy(digits + 20, p + 24, 12);
  if (decode_hex(digits, 16, b.data())) [[likely]]
    return {};
#endif
  for (std::size_t i = 0; i < Uuid::kTextSize; ++i)
    if (i != 8 && i != 13 && i != 18 && i != 23 && !is_hex(p[i]))
      return {at + i, "expected a hex digit (0-9, a-f, A-F)"};
  return {at, "expected a hex digit"};  // unreachable: decode_hex found a bad digit
}

bool iequal_prefix(std::string_view text, std::string_view lower_prefix) noexcept {
  if (text.size() < lower_prefix.size()) return false;
  for (std::size_t i = 0; i < lower_prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_prefix[i]) return false;
  }
  return true;
}

}  // namespace

const char* to_string(UuidVariant v) noexcept {
  switch (v) {
    case UuidVariant::ncs:
      return "NCS";
    case UuidVariant::rfc9562:
      return "RFC 9562";
    case UuidVariant::microsoft:
      return "Microsoft";
    case UuidVariant::future:
      return "future";
  }
  return "unknown";
}

UuidParseStatus parse_uuid(std::string_view text, Uuid& out) noexcept {
  Uuid::Bytes b;
  UuidParseStatus st;
  const std::size_t n = text.size();
  if (n == Uuid::kTextSize) [[likely]] {
    st = parse_canonical(text, 0, b);
  } else if (n == Uuid::kHexSize) {
#if defined(__SSE2__)
    const bool ok = hex32(load16(text.data()), load16(text.data() + 16), b.data());
#else
    const bool ok = decode_hex(text.data(), 16, b.data());
#endif
    if (!ok) {
      for (std::size_t i = 0; i < n; ++i)
        if (!is_hex(text[i])) return {i, "expected a hex digit (0-9, a-f, A-F)"};
    }
  } else if (!text.empty() && text[0] == '{') {
    if (n != Uuid::kTextSize + 2)
      return {n < Uuid::kTextSize + 2 ? n : Uuid::kTextSize + 2,
              "braced form is '{' + 36 characters (8-4-4-4-12) + '}', 38 in all"};
    st = parse_canonical(text, 1, b);
    if (st.ok() && text[n - 1] != '}') return {n - 1, "expected '}' closing the braced form"};
  } else if (iequal_prefix(text, kUrnPrefix)) {
    if (n != kUrnPrefixSize + Uuid::kTextSize)
      return {n < kUrnPrefixSize + Uuid::kTextSize ? n : kUrnPrefixSize + Uuid::kTextSize,
              "URN form is 'urn:uuid:' + 36 characters (8-4-4-4-12), 45 in all"};
    st = parse_canonical(text, kUrnPrefixSize, b);
  } else {
    // Point at where the text stops matching every form: its end if it is a prefix of a
    // longer form, else the first character past 36.
    return {n < Uuid::kTextSize ? n : Uuid::kTextSize,
            "expected 36 characters (8-4-4-4-12), 32 hex digits, {braced} or urn:uuid:"};
  }
  if (!st.ok()) return st;
  out = Uuid(b);
  return {};
}

Uuid Uuid::parse(std::string_view text) {
  Uuid u;
  const UuidParseStatus st = parse_uuid(text, u);
  if (!st.ok()) throw ParseError("UUID", text, st.position, st.reason);
  return u;
}

std::optional<Uuid> Uuid::try_parse(std::string_view text) noexcept {
  Uuid u;
  if (!parse_uuid(text, u).ok()) return std::nullopt;
  return u;
}

char* Uuid::to_hex_chars(char* out) const noexcept {
#if defined(__SSE2__)
  __m128i d0, d1;
  hex_encode32(bytes_.data(), d0, d1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), d0);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), d1);
#else
  for (std::size_t i = 0; i < 16; ++i) std::memcpy(out + 2 * i, kHexPairs.pairs[bytes_[i]], 2);
#endif
  return out + kHexSize;
}

char* Uuid::to_chars(char* out) const noexcept {
#if defined(__SSE2__)
  // Place the 32 digits around the hyphens with byte shifts and lane masks (SSE2 has no
  // byte shuffle): text 0-15 = digits 0-7 '-' 8-11 '-' 12-13; text 16-31 = digits 14-15 '-'
  // 16-19 '-' 20-27; text 32-35 = digits 28-31.
  __m128i d0, d1;
  hex_encode32(bytes_.data(), d0, d1);
  constexpr char h = '-';
  const __m128i a =
      _mm_or_si128(_mm_or_si128(_mm_and_si128(d0, lanes<0, 8>()),
                                _mm_and_si128(_mm_slli_si128(d0, 1), lanes<9, 13>())),
                   _mm_or_si128(_mm_and_si128(_mm_slli_si128(d0, 2), lanes<14, 16>()),
                                _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, h, 0, 0, 0, 0, h, 0, 0)));
  const __m128i b =
      _mm_or_si128(_mm_or_si128(_mm_and_si128(_mm_srli_si128(d0, 14), lanes<0, 2>()),
                                _mm_and_si128(_mm_slli_si128(d1, 3), lanes<3, 7>())),
                   _mm_or_si128(_mm_and_si128(_mm_slli_si128(d1, 4), lanes<8, 16>()),
                                _mm_setr_epi8(0, 0, h, 0, 0, 0, 0, h, 0, 0, 0, 0, 0, 0, 0, 0)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), a);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), b);
  const std::int32_t tail = _mm_cvtsi128_si32(_mm_srli_si128(d1, 12));
  std::memcpy(out + 32, &tail, 4);
  return out + kTextSize;
#else
  char* p = out;
  for (std::size_t i = 0; i < 16; ++i) {
    std::memcpy(p, kHexPairs.pairs[bytes_[i]], 2);
    p += 2;
    if (i == 3 || i == 5 || i == 7 || i == 9) *p++ = '-';
  }
  return p;
#endif
}

std::string Uuid::to_string() const {
  std::string s(kTextSize, '\0');
  to_chars(s.data());
  return s;
}

std::string Uuid::to_hex() const {
  std::string s(kHexSize, '\0');
  to_hex_chars(s.data());
  return s;
}

std::string Uuid::to_urn() const {
  return kUrnPrefix + to_string();
}

}  // namespace idforge
