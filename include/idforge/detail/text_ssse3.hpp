// The SSSE3 text kernels for UUIDs and ULIDs, as inline functions: 128-bit vectors with byte
// shuffles (pshufb).
//
// Written by hand because no library in Debian offers UUID or Crockford base32 text
// kernels; the techniques are the usual ones of vectorised hex and base64 codecs (nibble
// lookups with pshufb, maddubs to join digits, multiply-shift to cut 5-bit groups).
//
// Two users, as for text_avx2.hpp: the core's SSSE3 path (text_kernels_ssse3.cpp, baseline
// x86-64 with target("ssse3") on each function), chosen at run time; and code compiled for
// SSSE3 but not AVX2 (-mssse3, -march=x86-64-v2), where text_inline.hpp calls these directly.
// Contracts as in src/core/text_kernels.hpp.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "idforge/detail/text_simd_layout.hpp"

// static: each translation unit keeps its own copy, compiled with its own flags, so the
// library's run-time table never ends up pointing at a copy a user's -march build made.
#define IDFORGE_SSSE3 __attribute__((target("ssse3"))) static

namespace idforge::detail::ssse3 {

namespace s = simd;

template <std::size_t N>
IDFORGE_SSSE3 inline __m128i constant(const s::Bytes<N>& p) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(p.b));
}

IDFORGE_SSSE3 inline __m128i load(const void* p) {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}

IDFORGE_SSSE3 inline void store16(void* p, __m128i v) {
  _mm_storeu_si128(static_cast<__m128i*>(p), v);
}

// ---------------------------------------------------------------------------------------
// UUID

constexpr s::Bytes<16> kHexTable = {
    {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'}};

// 16 bytes -> 32 hex characters: d0 holds the digits of bytes 0-7, d1 those of bytes 8-15.
IDFORGE_SSSE3 inline void hex_encode(__m128i b, __m128i& d0, __m128i& d1) {
  const __m128i table = constant(kHexTable);
  const __m128i nibble = _mm_set1_epi8(0x0F);
  const __m128i hi = _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(b, 4), nibble));
  const __m128i lo = _mm_shuffle_epi8(table, _mm_and_si128(b, nibble));
  d0 = _mm_unpacklo_epi8(hi, lo);
  d1 = _mm_unpackhi_epi8(hi, lo);
}

// Hex characters -> their values (0-15); ok gets a non-zero byte for every valid character.
// Validity is a two-lookup bitmap: the high nibble picks a row of ASCII (bit 0: the digit
// row 0x30, bit 1: the letter rows 0x40 and 0x60), the low nibble the columns valid in it.
constexpr s::Bytes<16> kHexRowClass = {{0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
constexpr s::Bytes<16> kHexColumnClass = {{1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0}};
constexpr s::Bytes<16> kHexRowAdd = {{0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0}};

IDFORGE_SSSE3 inline __m128i hex_decode(__m128i c, __m128i& ok) {
  const __m128i nibble = _mm_set1_epi8(0x0F);
  const __m128i lo = _mm_and_si128(c, nibble);
  const __m128i hi = _mm_and_si128(_mm_srli_epi16(c, 4), nibble);
  ok = _mm_and_si128(_mm_shuffle_epi8(constant(kHexRowClass), hi),
                     _mm_shuffle_epi8(constant(kHexColumnClass), lo));
  // '0'-'9' are their low nibble; 'a'-'f' and 'A'-'F' their low nibble (1-6) + 9.
  return _mm_add_epi8(lo, _mm_shuffle_epi8(constant(kHexRowAdd), hi));
}

// Two vectors of 16 digit values -> 16 bytes (first digit of each pair is the high nibble).
IDFORGE_SSSE3 inline __m128i join_nibbles(__m128i v0, __m128i v1) {
  const __m128i weights = _mm_set1_epi16(0x0110);  // bytes (16, 1)
  return _mm_packus_epi16(_mm_maddubs_epi16(v0, weights), _mm_maddubs_epi16(v1, weights));
}

IDFORGE_SSSE3 inline bool all_ok(__m128i ok0, __m128i ok1) {
  const __m128i zero = _mm_setzero_si128();
  return _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(ok0, zero), _mm_cmpeq_epi8(ok1, zero))) == 0;
}

IDFORGE_SSSE3 inline char* uuid_to_chars(const std::uint8_t* v, char* out) noexcept {
  __m128i d0, d1;
  hex_encode(load(v), d0, d1);
  // Text 0-15 is digits 0-13 around two hyphens; text 16-31 digits 14-27 around two more.
  static constexpr s::Bytes<16> kPlaceLow = s::digit_place<0, 0>();
  static constexpr s::Bytes<16> kPlaceHigh = s::digit_place<16, 14>();
  static constexpr s::Bytes<16> kHyphensLow = s::hyphens<16, 0>();
  static constexpr s::Bytes<16> kHyphensHigh = s::hyphens<16, 16>();
  const __m128i a = _mm_or_si128(_mm_shuffle_epi8(d0, constant(kPlaceLow)), constant(kHyphensLow));
  const __m128i mid = _mm_alignr_epi8(d1, d0, 14);  // digits 14-29
  const __m128i b =
      _mm_or_si128(_mm_shuffle_epi8(mid, constant(kPlaceHigh)), constant(kHyphensHigh));
  store16(out, a);
  store16(out + 16, b);
  const std::int32_t tail = _mm_cvtsi128_si32(_mm_srli_si128(d1, 12));  // digits 28-31
  std::memcpy(out + 32, &tail, 4);
  return out + 36;
}

IDFORGE_SSSE3 inline char* uuid_to_hex(const std::uint8_t* v, char* out) noexcept {
  __m128i d0, d1;
  hex_encode(load(v), d0, d1);
  store16(out, d0);
  store16(out + 16, d1);
  return out + 32;
}

IDFORGE_SSSE3 inline bool uuid_from_chars(const char* p, std::uint8_t* v) noexcept {
  const __m128i a = load(p), b = load(p + 16), c = load(p + 20);
  const __m128i dash = _mm_set1_epi8('-');
  const int dashes = _mm_movemask_epi8(_mm_cmpeq_epi8(a, dash)) |
                     (_mm_movemask_epi8(_mm_cmpeq_epi8(b, dash)) << 16);
  constexpr int kDashBits = (1 << 8) | (1 << 13) | (1 << 18) | (1 << 23);
  // Digits 0-15 come from text 0-15 and 16-31; digits 16-31 from text 16-31 and 20-35.
  static constexpr s::Bytes<16> kA0 = s::digit_gather<0, 0, 16, 0>();
  static constexpr s::Bytes<16> kB0 = s::digit_gather<16, 0, 16, 0>();
  static constexpr s::Bytes<16> kB1 = s::digit_gather<16, 0, 16, 16>();
  static constexpr s::Bytes<16> kC1 = s::digit_gather<20, 12, 16, 16>();
  const __m128i d0 =
      _mm_or_si128(_mm_shuffle_epi8(a, constant(kA0)), _mm_shuffle_epi8(b, constant(kB0)));
  const __m128i d1 =
      _mm_or_si128(_mm_shuffle_epi8(b, constant(kB1)), _mm_shuffle_epi8(c, constant(kC1)));
  __m128i ok0, ok1;
  const __m128i v0 = hex_decode(d0, ok0), v1 = hex_decode(d1, ok1);
  if (!(all_ok(ok0, ok1) & ((dashes & kDashBits) == kDashBits))) return false;
  store16(v, join_nibbles(v0, v1));
  return true;
}

IDFORGE_SSSE3 inline bool uuid_from_hex(const char* p, std::uint8_t* v) noexcept {
  __m128i ok0, ok1;
  const __m128i v0 = hex_decode(load(p), ok0), v1 = hex_decode(load(p + 16), ok1);
  if (!all_ok(ok0, ok1)) return false;
  store16(v, join_nibbles(v0, v1));
  return true;
}

// ---------------------------------------------------------------------------------------
// ULID

// Eight characters' values (0-31), one per 16-bit lane, from a load of S at Base.
template <int First, int Base>
IDFORGE_SSSE3 inline __m128i base32_group(__m128i s_at_base) {
  static constexpr s::Bytes<16> kWindows = s::base32_windows<First, Base>();
  static constexpr s::Bytes<16> kShifts = s::base32_shifts<First>();
  const __m128i windows = _mm_shuffle_epi8(s_at_base, constant(kWindows));
  return _mm_srli_epi16(_mm_mullo_epi16(windows, constant(kShifts)), 11);
}

// Values 0-31 -> Crockford characters.
IDFORGE_SSSE3 inline __m128i base32_chars(__m128i v) {
  const __m128i high = _mm_cmpgt_epi8(v, _mm_set1_epi8(15));
  return _mm_or_si128(_mm_andnot_si128(high, _mm_shuffle_epi8(constant(s::kCrockfordLow), v)),
                      _mm_and_si128(high, _mm_shuffle_epi8(constant(s::kCrockfordHigh), v)));
}

IDFORGE_SSSE3 inline char* ulid_to_chars(const std::uint8_t* v, char* out) noexcept {
  const __m128i x = load(v);
  const __m128i s0 = _mm_slli_si128(x, 1);  // S[0..15]
  const __m128i s2 = _mm_srli_si128(x, 1);  // S[2..17]
  const __m128i c0 = _mm_packus_epi16(base32_group<0, 0>(s0), base32_group<8, 2>(s2));
  const __m128i c10 = _mm_packus_epi16(base32_group<10, 2>(s2), base32_group<18, 2>(s2));
  // Characters 0-15 and 10-25: two stores that overlap on identical bytes.
  store16(out, base32_chars(c0));
  store16(out + 10, base32_chars(c10));
  return out + 26;
}

// Characters -> values (0-31), bit 7 set for anything else (simd::base32_row says how).
IDFORGE_SSSE3 inline __m128i base32_decode(__m128i c) {
  static constexpr s::Bytes<16> kDigits = s::base32_row(3), kRow4 = s::base32_row(4),
                                kRow5 = s::base32_row(5);
  static constexpr s::Bytes<16> kDigitRow = {{0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
  const __m128i nibble = _mm_set1_epi8(0x0F);
  const __m128i lo = _mm_and_si128(c, nibble);
  const __m128i hi = _mm_and_si128(_mm_srli_epi16(c, 4), nibble);
  const __m128i row5 = _mm_cmpeq_epi8(_mm_and_si128(c, _mm_set1_epi8(0x10)), _mm_set1_epi8(0x10));
  const __m128i letter = _mm_or_si128(_mm_andnot_si128(row5, _mm_shuffle_epi8(constant(kRow4), lo)),
                                      _mm_and_si128(row5, _mm_shuffle_epi8(constant(kRow5), lo)));
  const __m128i digit_row = _mm_shuffle_epi8(constant(kDigitRow), hi);
  return _mm_or_si128(
      _mm_or_si128(_mm_andnot_si128(digit_row, letter),
                   _mm_and_si128(digit_row, _mm_shuffle_epi8(constant(kDigits), lo))),
      _mm_shuffle_epi8(constant(s::kBase32BadRow), hi));
}

// Eight 5-bit values in each 64-bit half -> the 40-bit number they spell, per half.
IDFORGE_SSSE3 inline __m128i base32_join(__m128i v) {
  const __m128i pairs = _mm_maddubs_epi16(v, _mm_set1_epi16(0x0120));       // a * 32 + b
  const __m128i quads = _mm_madd_epi16(pairs, _mm_set1_epi32(0x00010400));  // a * 1024 + b
  return _mm_add_epi64(_mm_mul_epu32(quads, _mm_set1_epi64x(1 << 20)), _mm_srli_epi64(quads, 32));
}

IDFORGE_SSSE3 inline bool ulid_from_chars(const char* p, std::uint8_t* v) noexcept {
  const __m128i a = base32_decode(load(p));       // characters 0-15
  const __m128i b = base32_decode(load(p + 10));  // characters 10-25
  if (_mm_movemask_epi8(_mm_or_si128(_mm_adds_epu8(a, constant(s::kUlidFirstLimit)), b)) != 0)
    return false;
  const __m128i t = base32_join(_mm_shuffle_epi8(a, constant(s::kUlidTimeGather)));
  const __m128i r = base32_join(b);
  store16(v, _mm_or_si128(_mm_shuffle_epi8(t, constant(s::kUlidTimeBytes)),
                          _mm_shuffle_epi8(r, constant(s::kUlidRandomBytes))));
  return true;
}

}  // namespace idforge::detail::ssse3

#undef IDFORGE_SSSE3

#endif  // x86-64 with GCC or Clang
