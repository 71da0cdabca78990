// Byte-shuffle patterns and constants for the vector text kernels, computed at compile time
// from the text layouts so that no index is typed by hand. Used by the core's kernels and by
// the inline AVX2 kernels (text_avx2.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace idforge::detail::simd {

/// A 16- or 32-byte constant, aligned for a vector load.
template <std::size_t N>
struct alignas(32) Bytes {
  std::int8_t b[N];
};

/// N copies of one byte.
template <std::size_t N>
constexpr Bytes<N> splat(int v) {
  Bytes<N> p{};
  for (auto& b : p.b) b = static_cast<std::int8_t>(v);
  return p;
}

/// pshufb's "write zero" index.
inline constexpr std::int8_t kZero = -128;

/// Where UUID text position t (0-35) takes its digit from: the digit's index (0-31), or -1
/// for a hyphen.
constexpr int uuid_digit_at(int t) {
  if (t == 8 || t == 13 || t == 18 || t == 23) return -1;
  return t - (t > 8) - (t > 13) - (t > 18) - (t > 23);
}

/// Where digit k (0-31) of a UUID sits in its 36-character text.
constexpr int uuid_text_pos(int k) {
  for (int t = 0; t < 36; ++t)
    if (uuid_digit_at(t) == k) return t;
  return -1;
}

/// Writing hex from the 16 bytes broadcast to every 16-byte lane: output byte t takes the
/// high nibble's character (Odd = false) or the low one's (Odd = true) of byte k / 2 where
/// digit k belongs at t; every other byte is zero. Hyphen = true: the 36-character layout
/// (positions First.. First+N-1), else 32 plain digits.
template <std::size_t N, bool Odd, bool Hyphens, int First = 0>
constexpr Bytes<N> hex_source() {
  Bytes<N> p{};
  for (std::size_t i = 0; i < N; ++i) {
    const int t = First + static_cast<int>(i);
    const int k = Hyphens ? uuid_digit_at(t) : t;
    p.b[i] = (k >= 0 && (k % 2 == 1) == Odd) ? static_cast<std::int8_t>(k / 2) : kZero;
  }
  return p;
}

/// '-' where the 36-character layout has a hyphen (positions First..First+N-1), else zero.
template <std::size_t N, int First = 0>
constexpr Bytes<N> hyphens() {
  Bytes<N> p{};
  for (std::size_t i = 0; i < N; ++i)
    p.b[i] = uuid_digit_at(First + static_cast<int>(i)) < 0 ? '-' : 0;
  return p;
}

/// Gathering digits out of text loaded from p + Base: output byte i takes digit First + i
/// if that digit's text position lies in [Base + From, Base + To) of this load (as an index
/// relative to Base), else zero. OR-ing two such shuffles assembles 16 digits from two loads.
template <int Base, int From, int To, int First>
constexpr Bytes<16> digit_gather() {
  Bytes<16> p{};
  for (int i = 0; i < 16; ++i) {
    const int t = uuid_text_pos(First + i) - Base;
    p.b[i] = (t >= From && t < To) ? static_cast<std::int8_t>(t) : kZero;
  }
  return p;
}

/// Placing digits into 16 characters of the 36-character text starting at First, from a
/// vector whose byte i holds digit Offset + i; hyphen positions get zero.
template <int First, int Offset>
constexpr Bytes<16> digit_place() {
  Bytes<16> p{};
  for (int i = 0; i < 16; ++i) {
    const int k = uuid_digit_at(First + i);
    p.b[i] = k < 0 ? kZero : static_cast<std::int8_t>(k - Offset);
  }
  return p;
}

/// Two 16-byte patterns side by side: one per lane of a 256-bit shuffle.
template <std::size_t N>
constexpr Bytes<2 * N> lanes(const Bytes<N>& lo, const Bytes<N>& hi) {
  Bytes<2 * N> p{};
  for (std::size_t i = 0; i < N; ++i) {
    p.b[i] = lo.b[i];
    p.b[N + i] = hi.b[i];
  }
  return p;
}

// ---------------------------------------------------------------------------------------
// ULID: the 128-bit value after one zero byte is the 136-bit string S; character i (0-25)
// is bits [5i + 6, 5i + 11) of S from the top, inside the big-endian 16-bit window
// S[j] S[j + 1] with j = (5i + 6) / 8, starting o = (5i + 6) % 8 bits from its top.
// A 16-bit lane holding that window, multiplied by 2^o and shifted right by 11, is the
// character's value.

/// Shuffle that puts the windows of characters First..First+7 into eight 16-bit lanes,
/// from a load of S starting at byte Base.
template <int First, int Base>
constexpr Bytes<16> base32_windows() {
  Bytes<16> p{};
  for (int i = 0; i < 8; ++i) {
    const int j = (5 * (First + i) + 6) / 8 - Base;
    p.b[2 * i] = static_cast<std::int8_t>(j + 1);  // little-endian lane: low byte first
    p.b[2 * i + 1] = static_cast<std::int8_t>(j);
  }
  return p;
}

/// The 2^o multipliers for characters First..First+7, as eight 16-bit lanes.
template <int First>
constexpr Bytes<16> base32_shifts() {
  Bytes<16> p{};
  for (int i = 0; i < 8; ++i) {
    const int m = 1 << ((5 * (First + i) + 6) % 8);
    p.b[2 * i] = static_cast<std::int8_t>(m);
    p.b[2 * i + 1] = 0;
  }
  return p;
}

/// The alphabet, split in halves for two 16-entry lookups.
inline constexpr Bytes<16> kCrockfordLow = {
    {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'}};
inline constexpr Bytes<16> kCrockfordHigh = {
    {'G', 'H', 'J', 'K', 'M', 'N', 'P', 'Q', 'R', 'S', 'T', 'V', 'W', 'X', 'Y', 'Z'}};

/// Reading ULID text, one character per byte c, by its high nibble h (the row of ASCII) and
/// low nibble l (the column). Alphabet characters live in rows 3 (digits), 4 and 6 ('@'-'O'
/// and '`'-'o') and 5 and 7 ('P'-'_' and 'p'-DEL). Three lookups by l give the value for
/// each kind of row (0x80 where that row's column holds no alphabet character); bit 4 of c
/// picks row 5/7 over 4/6, a lookup by h picks digits over letters, another by h marks the
/// rows that hold no alphabet character at all. Valid characters end up as their value
/// (0-31), every other byte with bit 7 set.
constexpr Bytes<16> base32_row(int row) {
  Bytes<16> p{};
  for (int lo = 0; lo < 16; ++lo) {
    const int c = row * 16 + lo;
    int v = -1;
    for (int i = 0; i < 32; ++i)
      if ("0123456789ABCDEFGHJKMNPQRSTVWXYZ"[i] == c) v = i;
    if (c == 'I' || c == 'L') v = 1;
    if (c == 'O') v = 0;
    p.b[lo] = static_cast<std::int8_t>(v < 0 ? 0x80 : v);
  }
  return p;
}
/// By high nibble: 0x80 (take the digit lookup) for row 3, else 0 (take the letter lookup).
inline constexpr Bytes<16> kBase32DigitRow = {{0, 0, 0, kZero, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
/// By high nibble: 0x80 for rows without alphabet characters, else 0.
inline constexpr Bytes<16> kBase32BadRow = {
    {kZero, kZero, kZero, 0, 0, 0, 0, 0, kZero, kZero, kZero, kZero, kZero, kZero, kZero, kZero}};
/// Added (saturating) to the values of characters 0-15: pushes a first character above 7
/// (a value over 128 bits) to bit 7, like an invalid one.
inline constexpr Bytes<16> kUlidFirstLimit = {{0x78, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
/// The 16 output bytes from the four 40-bit groups, one shuffle per 128-bit lane, OR-ed:
/// the time lane holds (characters 2-9, characters 0-1) as two 64-bit numbers, the random
/// lane (characters 10-17, 18-25). Big-endian: the time's top byte, its low five, then the
/// five bytes of each random group.
inline constexpr Bytes<16> kUlidTimeBytes = {
    {8, 4, 3, 2, 1, 0, kZero, kZero, kZero, kZero, kZero, kZero, kZero, kZero, kZero, kZero}};
inline constexpr Bytes<16> kUlidRandomBytes = {
    {kZero, kZero, kZero, kZero, kZero, kZero, 4, 3, 2, 1, 0, 12, 11, 10, 9, 8}};

/// The 16 characters of a ULID loaded from text + 0 gathered as: characters 2-9 (the low
/// 40 bits of the time) in the first eight bytes, then six zeros and characters 0-1 (its top
/// 10 bits): each half is one 40-bit group for the packing that follows.
inline constexpr Bytes<16> kUlidTimeGather = {
    {2, 3, 4, 5, 6, 7, 8, 9, kZero, kZero, kZero, kZero, kZero, kZero, 0, 1}};
/// Identity: characters 10-25 loaded from text + 10 already form two 40-bit groups.
inline constexpr Bytes<16> kIdentity = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}};

}  // namespace idforge::detail::simd
