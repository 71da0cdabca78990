// The Feistel network under masking: a bijection, proven by walking every value of reduced
// widths through the same code as the 63-, 122- and 128-bit networks, and equal to an
// independent reading of its specification (detail/feistel.hpp) written out below.
#include <gtest/gtest.h>
#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "expect_errc.hpp"
#include "idforge/detail/feistel.hpp"
#include "idforge/error.hpp"

namespace idforge::detail {
namespace {

constexpr unsigned char kSecretA[kFeistelSecretBytes] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f};
constexpr unsigned char kSecretB[kFeistelSecretBytes] = {
    0xe3, 0x7a, 0x51, 0x0c, 0x9d, 0x44, 0xb2, 0x18, 0x6f, 0xa0, 0x3b, 0xd9, 0x27, 0x85, 0xce, 0x10,
    0x5e, 0xf1, 0x92, 0x0a, 0x63, 0xbd, 0x7c, 0x48, 0x31, 0xe6, 0x0f, 0xa9, 0x54, 0xcb, 0x26, 0x9b};

// Every x in [0, 2^w) maps into [0, 2^w), no two to the same y, and back to x.
void expect_permutation(const unsigned char (&secret)[kFeistelSecretBytes], unsigned w) {
  const Feistel f(secret, w);
  const std::uint64_t n = std::uint64_t{1} << w;
  std::vector<bool> hit(n);
  std::uint64_t fixed_points = 0;
  for (std::uint64_t x = 0; x < n; ++x) {
    const std::uint64_t y = f.encrypt(x);
    ASSERT_LT(y, n) << "width " << w << " x " << x;
    ASSERT_FALSE(hit[y]) << "width " << w << ": two values map to " << y;
    hit[y] = true;
    ASSERT_EQ(f.decrypt(y), x) << "width " << w;
    fixed_points += y == x;
  }
  // A random permutation has 1 fixed point on average (Poisson); many would mean a weak map.
  EXPECT_LE(fixed_points, 8u) << "width " << w;
}

// The same over [1, 2^w) for the cycle-walked form that u63 uses.
void expect_positive_permutation(const unsigned char (&secret)[kFeistelSecretBytes], unsigned w) {
  const Feistel f(secret, w);
  const std::uint64_t n = std::uint64_t{1} << w;
  std::vector<bool> hit(n);
  for (std::uint64_t x = 1; x < n; ++x) {
    const std::uint64_t y = encrypt_positive(f, x);
    ASSERT_GE(y, 1u) << "width " << w << " x " << x;
    ASSERT_LT(y, n) << "width " << w;
    ASSERT_FALSE(hit[y]) << "width " << w << ": two values map to " << y;
    hit[y] = true;
    ASSERT_EQ(decrypt_positive(f, y), x) << "width " << w;
  }
}

TEST(MaskFeistel, SixteenBitsIsAPermutation) {
  expect_permutation(kSecretA, 16);
  expect_permutation(kSecretB, 16);
}

TEST(MaskFeistel, TwentyBitsIsAPermutation) {
  expect_permutation(kSecretB, 20);
}

TEST(MaskFeistel, OddWidthsSplitUnevenlyAsSixtyThreeDoes) {
  // 63 bits split 31 + 32; 17 splits 8 + 9 through the same branches.
  expect_permutation(kSecretA, 17);
}

TEST(MaskFeistel, CycleWalkingKeepsZeroOutAtSixteenAndTwentyBits) {
  expect_positive_permutation(kSecretA, 16);
  expect_positive_permutation(kSecretA, 20);
}

TEST(MaskFeistel, CycleWalkingTakesTheSecondStepForTheOneValueThatMapsToZero) {
  const Feistel f(kSecretA, 16);
  std::uint64_t x0 = 0;
  for (std::uint64_t x = 1; x < (1u << 16); ++x)
    if (f.encrypt(x) == 0) x0 = x;
  ASSERT_NE(x0, 0u) << "some nonzero value maps to 0 (0 itself does not, for this key)";
  EXPECT_EQ(encrypt_positive(f, x0), f.encrypt(0));
  EXPECT_EQ(decrypt_positive(f, f.encrypt(0)), x0);
}

TEST(MaskFeistel, WidthsOutsideTwoTo128AreRefused) {
  for (unsigned w : {0u, 1u, 129u, 1000u}) {
    EXPECT_ERRC(Feistel f(kSecretA, w), errc::invalid_argument, std::to_string(w));
  }
  EXPECT_NO_THROW(Feistel(kSecretA, 2));
  EXPECT_NO_THROW(Feistel(kSecretA, 128));
}

// ---------------------------------------------------------------------------------------
// An independent reading of the specification: bits as vectors, rounds spelled out,
// libsodium called directly. If the optimised code drifts from the documented
// construction, the two disagree.

struct Reference {
  unsigned w, u, v;
  unsigned char keys[kFeistelRounds][16];
  Reference(const unsigned char (&secret)[32], unsigned width)
      : w(width), u(width / 2), v(width - width / 2) {
    const char ctx[8] = {'i', 'd', 'f', 'o', 'r', 'g', 'e', 'm'};
    for (int i = 0; i < kFeistelRounds; ++i)
      crypto_kdf_derive_from_key(keys[i], 16, (std::uint64_t{1} << 32) + w * 256 + i, ctx, secret);
  }
  // bits[0] is the most significant bit of the w-bit value.
  using Bits = std::vector<int>;
  static std::uint64_t number(const Bits& b) {
    std::uint64_t n = 0;
    for (int bit : b) n = n * 2 + bit;
    return n;
  }
  Bits F(int round, const Bits& x, unsigned out_bits) const {
    const std::uint64_t n = number(x);
    std::vector<unsigned char> in((x.size() + 7) / 8);
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = (n >> (8 * k)) & 0xff;
    unsigned char h[8];
    crypto_shorthash(h, in.data(), in.size(), keys[round]);
    // The hash as a little-endian number; its out_bits low bits, most significant first.
    Bits out(out_bits);
    for (unsigned k = 0; k < out_bits; ++k) {
      const unsigned bit = out_bits - 1 - k;
      out[k] = (h[bit / 8] >> (bit % 8)) & 1;
    }
    return out;
  }
  std::pair<Bits, Bits> encrypt(Bits A, Bits B) const {
    for (int i = 0; i < kFeistelRounds; ++i) {
      const unsigned m = i % 2 == 0 ? u : v;
      const Bits f = F(i, B, m);
      Bits C(m);
      for (unsigned k = 0; k < m; ++k) C[k] = A[k] ^ f[k];
      A = B;
      B = C;
    }
    return {A, B};
  }
  static Bits bits_of(std::uint64_t n, unsigned width) {
    Bits b(width);
    for (unsigned k = 0; k < width; ++k) b[k] = (n >> (width - 1 - k)) & 1;
    return b;
  }
};

TEST(MaskFeistel, MatchesAnIndependentReadingOfTheSpecification) {
  std::mt19937_64 rng(7);  // test inputs only, not keys
  for (unsigned w : {16u, 17u, 63u, 122u, 128u}) {
    const Feistel f(kSecretB, w);
    const Reference ref(kSecretB, w);
    const unsigned u = w / 2, v = w - u;
    const std::uint64_t mask_u = u == 64 ? ~0ull : (1ull << u) - 1,
                        mask_v = v == 64 ? ~0ull : (1ull << v) - 1;
    for (int t = 0; t < 200; ++t) {
      std::uint64_t a = rng() & mask_u, b = rng() & mask_v;
      const auto [ra, rb] = ref.encrypt(Reference::bits_of(a, u), Reference::bits_of(b, v));
      f.encrypt(a, b);
      ASSERT_EQ(a, Reference::number(ra)) << "width " << w;
      ASSERT_EQ(b, Reference::number(rb)) << "width " << w;
    }
  }
}

TEST(MaskFeistel, WideNetworksRoundTripOnRandomHalves) {
  std::mt19937_64 rng(11);
  for (unsigned w : {122u, 128u}) {
    const Feistel f(kSecretA, w);
    const std::uint64_t mask = w == 128 ? ~0ull : (1ull << 61) - 1;
    for (int t = 0; t < 20'000; ++t) {
      const std::uint64_t a0 = rng() & mask, b0 = rng() & mask;
      std::uint64_t a = a0, b = b0;
      f.encrypt(a, b);
      ASSERT_EQ(a & ~mask, 0u);
      ASSERT_EQ(b & ~mask, 0u);
      f.decrypt(a, b);
      ASSERT_EQ(a, a0);
      ASSERT_EQ(b, b0);
    }
  }
}

TEST(MaskFeistel, SubkeysDifferByIdAndSecret) {
  unsigned char k1[16], k2[16], k3[16];
  derive_subkey(k1, 1, kSecretA);
  derive_subkey(k2, 2, kSecretA);
  derive_subkey(k3, 1, kSecretB);
  EXPECT_NE(std::memcmp(k1, k2, 16), 0);
  EXPECT_NE(std::memcmp(k1, k3, 16), 0);
  unsigned char again[16];
  derive_subkey(again, 1, kSecretA);
  EXPECT_EQ(std::memcmp(k1, again, 16), 0);
}

}  // namespace
}  // namespace idforge::detail
