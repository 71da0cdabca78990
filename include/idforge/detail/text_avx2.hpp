// The AVX2 text kernels for UUIDs and ULIDs, as inline functions. The same techniques as the
// SSSE3 kernels (src/core/text_kernels_ssse3.cpp) on 256-bit vectors, so a UUID's 32 digits
// or a ULID's two halves go through one register. A 256-bit shuffle works inside each 128-bit
// lane: the input is broadcast or loaded so that each lane holds the bytes its half of the
// output needs.
//
// Two users: the core's AVX2 path (text_kernels_avx2.cpp, compiled for baseline x86-64, the
// functions carrying target("avx2")), chosen at run time; and code compiled for AVX2
// (-mavx2, -march=x86-64-v3 or newer), where text_inline.hpp calls these directly so that
// they inline into the caller: there the CPU is known to have AVX2 and the indirect call
// through the run-time choice (about 1 ns, as much as the kernel) buys nothing.
// Contracts as in src/core/text_kernels.hpp.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "idforge/detail/text_simd_layout.hpp"

// static: each translation unit keeps its own copy, compiled with its own flags, so the
// library's run-time table never ends up pointing at a copy a user's -march build made.
#define IDFORGE_AVX2 __attribute__((target("avx2"))) static

namespace idforge::detail::avx2 {

namespace s = simd;

IDFORGE_AVX2 inline __m256i constant(const s::Bytes<32>& p) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(p.b));
}

// A 16-byte table in both lanes, for in-lane lookups.
constexpr s::Bytes<32> twice(const s::Bytes<16>& table) {
  return s::lanes(table, table);
}

// Splat constants, loaded from memory. GCC otherwise rebuilds every uniform vector from an
// immediate on every call (mov, vmovd, vpbroadcast: three instructions); hiding the address
// from the optimiser makes it one load folded into the instruction that uses it. Internal
// linkage keeps the address a RIP-relative lea, not a load from the GOT.
template <int V>
constexpr s::Bytes<32> kSplat = s::splat<32>(V);

template <int V>
IDFORGE_AVX2 inline __m256i splat() {
  const s::Bytes<32>* p = &kSplat<V>;
  asm("" : "+r"(p));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(p->b));
}

IDFORGE_AVX2 inline __m128i load16(const void* p) {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}

IDFORGE_AVX2 inline __m256i load32(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

// Two 16-byte loads, one per lane.
IDFORGE_AVX2 inline __m256i load_lanes(const void* lo, const void* hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(load16(lo)), load16(hi), 1);
}

IDFORGE_AVX2 inline void store16(void* p, __m128i v) {
  _mm_storeu_si128(static_cast<__m128i*>(p), v);
}

IDFORGE_AVX2 inline void store32(void* p, __m256i v) {
  _mm256_storeu_si256(static_cast<__m256i*>(p), v);
}

// ---------------------------------------------------------------------------------------
// UUID

constexpr s::Bytes<32> kHexTable =
    twice({{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'}});

// The 16 bytes in both lanes -> each byte's high and low digit characters, in both lanes.
IDFORGE_AVX2 inline void hex_chars(const std::uint8_t* v, __m256i& hi, __m256i& lo) {
  const __m256i b = _mm256_broadcastsi128_si256(load16(v));
  const __m256i table = constant(kHexTable);
  const __m256i nibble = splat<0x0F>();
  hi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(b, 4), nibble));
  lo = _mm256_shuffle_epi8(table, _mm256_and_si256(b, nibble));
}

IDFORGE_AVX2 inline char* uuid_to_chars(const std::uint8_t* v, char* out) noexcept {
  __m256i hi, lo;
  hex_chars(v, hi, lo);
  // Text 0-31: each character picked from the high or low digits of its byte, hyphens OR-ed in.
  static constexpr s::Bytes<32> kEven = s::hex_source<32, false, true>();
  static constexpr s::Bytes<32> kOdd = s::hex_source<32, true, true>();
  static constexpr s::Bytes<32> kHyphens = s::hyphens<32>();
  const __m256i text = _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(hi, constant(kEven)),
                                                       _mm256_shuffle_epi8(lo, constant(kOdd))),
                                       constant(kHyphens));
  store32(out, text);
  // Text 32-35: digits 28-31, the digits of bytes 14 and 15.
  const __m128i last = _mm_unpackhi_epi8(_mm256_castsi256_si128(hi), _mm256_castsi256_si128(lo));
  const std::int32_t tail = _mm_cvtsi128_si32(_mm_srli_si128(last, 12));
  std::memcpy(out + 32, &tail, 4);
  return out + 36;
}

IDFORGE_AVX2 inline char* uuid_to_hex(const std::uint8_t* v, char* out) noexcept {
  __m256i hi, lo;
  hex_chars(v, hi, lo);
  static constexpr s::Bytes<32> kEven = s::hex_source<32, false, false>();
  static constexpr s::Bytes<32> kOdd = s::hex_source<32, true, false>();
  store32(out, _mm256_or_si256(_mm256_shuffle_epi8(hi, constant(kEven)),
                               _mm256_shuffle_epi8(lo, constant(kOdd))));
  return out + 32;
}

// Hex characters -> values and validity, as hex_decode in text_kernels_ssse3.cpp.
constexpr s::Bytes<32> kHexRowClass = twice({{0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}});
constexpr s::Bytes<32> kHexColumnClass = twice({{1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0}});
constexpr s::Bytes<32> kHexRowAdd = twice({{0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0}});
// Weights for maddubs/madd, as byte or 16-bit lanes.
constexpr s::Bytes<32> kHexPairWeights =
    twice({{16, 1, 16, 1, 16, 1, 16, 1, 16, 1, 16, 1, 16, 1, 16, 1}});

// 32 hex characters -> the 16 bytes they spell; false if any is not a hex digit.
IDFORGE_AVX2 inline bool hex_decode32(__m256i c, std::uint8_t* v, bool also_ok) {
  const __m256i nibble = splat<0x0F>();
  const __m256i lo = _mm256_and_si256(c, nibble);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(c, 4), nibble);
  const __m256i ok = _mm256_and_si256(_mm256_shuffle_epi8(constant(kHexRowClass), hi),
                                      _mm256_shuffle_epi8(constant(kHexColumnClass), lo));
  const __m256i values = _mm256_add_epi8(lo, _mm256_shuffle_epi8(constant(kHexRowAdd), hi));
  const bool valid = _mm256_movemask_epi8(_mm256_cmpeq_epi8(ok, _mm256_setzero_si256())) == 0;
  if (!(valid & also_ok)) return false;
  // Join digit pairs (a * 16 + b) into 16-bit lanes, pack them, bring the lanes together.
  const __m256i bytes = _mm256_maddubs_epi16(values, constant(kHexPairWeights));
  store16(v, _mm_packus_epi16(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1)));
  return true;
}

IDFORGE_AVX2 inline bool uuid_from_chars(const char* p, std::uint8_t* v) noexcept {
  const __m256i a = load32(p);                   // text 0-15 | 16-31
  const __m256i b = load_lanes(p + 16, p + 20);  // text 16-31 | 20-35
  constexpr std::uint32_t kDashBits = (1u << 8) | (1u << 13) | (1u << 18) | (1u << 23);
  const auto dashes =
      static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, splat<'-'>())));
  // Lane 0 gathers digits 0-15 (text 0-15 and 16-17), lane 1 digits 16-31 (text 19-31 and
  // 32-35).
  static constexpr s::Bytes<32> kFromA =
      s::lanes(s::digit_gather<0, 0, 16, 0>(), s::digit_gather<16, 0, 16, 16>());
  static constexpr s::Bytes<32> kFromB =
      s::lanes(s::digit_gather<16, 0, 16, 0>(), s::digit_gather<20, 12, 16, 16>());
  const __m256i digits = _mm256_or_si256(_mm256_shuffle_epi8(a, constant(kFromA)),
                                         _mm256_shuffle_epi8(b, constant(kFromB)));
  return hex_decode32(digits, v, (dashes & kDashBits) == kDashBits);
}

IDFORGE_AVX2 inline bool uuid_from_hex(const char* p, std::uint8_t* v) noexcept {
  return hex_decode32(load32(p), v, true);
}

// ---------------------------------------------------------------------------------------
// ULID

constexpr s::Bytes<32> kCrockfordLow = twice(s::kCrockfordLow);
constexpr s::Bytes<32> kCrockfordHigh = twice(s::kCrockfordHigh);

IDFORGE_AVX2 inline char* ulid_to_chars(const std::uint8_t* v, char* out) noexcept {
  const __m128i x = load16(v);
  const __m128i s0 = _mm_slli_si128(x, 1);  // S[0..15]
  const __m128i s2 = _mm_srli_si128(x, 1);  // S[2..17]
  // Lane 0 computes characters 0-7 and 8-15, lane 1 characters 10-17 and 18-25.
  const __m256i in_a = _mm256_inserti128_si256(_mm256_castsi128_si256(s0), s2, 1);
  const __m256i in_b = _mm256_broadcastsi128_si256(s2);
  static constexpr s::Bytes<32> kWinA =
      s::lanes(s::base32_windows<0, 0>(), s::base32_windows<10, 2>());
  static constexpr s::Bytes<32> kWinB =
      s::lanes(s::base32_windows<8, 2>(), s::base32_windows<18, 2>());
  static constexpr s::Bytes<32> kMulA = s::lanes(s::base32_shifts<0>(), s::base32_shifts<10>());
  static constexpr s::Bytes<32> kMulB = s::lanes(s::base32_shifts<8>(), s::base32_shifts<18>());
  const __m256i ga = _mm256_srli_epi16(
      _mm256_mullo_epi16(_mm256_shuffle_epi8(in_a, constant(kWinA)), constant(kMulA)), 11);
  const __m256i gb = _mm256_srli_epi16(
      _mm256_mullo_epi16(_mm256_shuffle_epi8(in_b, constant(kWinB)), constant(kMulB)), 11);
  const __m256i values = _mm256_packus_epi16(ga, gb);  // characters 0-15 | 10-25
  const __m256i chars = _mm256_blendv_epi8(_mm256_shuffle_epi8(constant(kCrockfordLow), values),
                                           _mm256_shuffle_epi8(constant(kCrockfordHigh), values),
                                           _mm256_cmpgt_epi8(values, splat<15>()));
  store16(out, _mm256_castsi256_si128(chars));
  store16(out + 10, _mm256_extracti128_si256(chars, 1));  // overlaps on identical bytes
  return out + 26;
}

IDFORGE_AVX2 inline bool ulid_from_chars(const char* p, std::uint8_t* v) noexcept {
  const __m256i c = load_lanes(p, p + 10);  // characters 0-15 | 10-25
  // Characters -> values, bit 7 for anything else (simd::base32_row says how).
  static constexpr s::Bytes<32> kDigits = twice(s::base32_row(3)), kRow4 = twice(s::base32_row(4)),
                                kRow5 = twice(s::base32_row(5));
  static constexpr s::Bytes<32> kDigitRow = twice(s::kBase32DigitRow),
                                kBadRow = twice(s::kBase32BadRow);
  const __m256i lo = _mm256_and_si256(c, splat<0x0F>());
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(c, 4), splat<0x0F>());
  const __m256i letter = _mm256_blendv_epi8(_mm256_shuffle_epi8(constant(kRow4), lo),
                                            _mm256_shuffle_epi8(constant(kRow5), lo),
                                            _mm256_slli_epi16(c, 3));  // bit 4 -> bit 7
  const __m256i value =
      _mm256_or_si256(_mm256_blendv_epi8(letter, _mm256_shuffle_epi8(constant(kDigits), lo),
                                         _mm256_shuffle_epi8(constant(kDigitRow), hi)),
                      _mm256_shuffle_epi8(constant(kBadRow), hi));
  static constexpr s::Bytes<32> kLimit = s::lanes(s::kUlidFirstLimit, s::Bytes<16>{});
  if (_mm256_movemask_epi8(_mm256_adds_epu8(value, constant(kLimit))) != 0) return false;
  // Lane 0: time characters 2-9 | 0-1; lane 1: random characters 10-17 | 18-25. Each 64-bit
  // half then spells one 40-bit number: pairs (a * 32 + b), quads (a * 1024 + b), then
  // a * 2^20 + b per 64 bits.
  static constexpr s::Bytes<32> kGather = s::lanes(s::kUlidTimeGather, s::kIdentity);
  static constexpr s::Bytes<32> kPairWeights =
      twice({{32, 1, 32, 1, 32, 1, 32, 1, 32, 1, 32, 1, 32, 1, 32, 1}});
  static constexpr s::Bytes<32> kQuadWeights =
      twice({{0, 4, 1, 0, 0, 4, 1, 0, 0, 4, 1, 0, 0, 4, 1, 0}});  // 1024, 1
  static constexpr s::Bytes<32> kShift20 =
      twice({{0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0}});  // 2^20
  const __m256i pairs =
      _mm256_maddubs_epi16(_mm256_shuffle_epi8(value, constant(kGather)), constant(kPairWeights));
  const __m256i quads = _mm256_madd_epi16(pairs, constant(kQuadWeights));
  const __m256i groups =
      _mm256_add_epi64(_mm256_mul_epu32(quads, constant(kShift20)), _mm256_srli_epi64(quads, 32));
  // The 16 bytes, big-endian, from both lanes.
  static constexpr s::Bytes<32> kBytes = s::lanes(s::kUlidTimeBytes, s::kUlidRandomBytes);
  const __m256i bytes = _mm256_shuffle_epi8(groups, constant(kBytes));
  store16(v, _mm_or_si128(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1)));
  return true;
}

}  // namespace idforge::detail::avx2

#undef IDFORGE_AVX2

#endif  // x86-64 with GCC or Clang
