// MaskKey: the three permutations at full width (round trips on random values and at the
// edges), their domains and errors, and the v7 -> v4 shape.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "expect_errc.hpp"
#include "idforge/mask.hpp"
#include "idforge/uuid_generator.hpp"
#include "mask_support.hpp"

namespace idforge {
namespace {

using test::kCountingSecret;
using test::kDescendingSecret;

TEST(MaskKey, U63RoundTripsRandomValuesAndTheEdges) {
  const MaskKey key(1, kCountingSecret);
  std::mt19937_64 rng(1);
  std::vector<std::uint64_t> values = {1,
                                       2,
                                       3,
                                       kMaskMaxU63,
                                       kMaskMaxU63 - 1,
                                       std::uint64_t{1} << 62,
                                       (std::uint64_t{1} << 32) - 1,
                                       std::uint64_t{1} << 32};
  for (int i = 0; i < 100'000; ++i) values.push_back((rng() >> 1) | 1);
  for (std::uint64_t v : values) {
    const std::uint64_t m = key.mask_u63(v);
    ASSERT_GE(m, 1u) << v;
    ASSERT_LE(m, kMaskMaxU63) << v;
    ASSERT_EQ(key.unmask_u63(m), v);
  }
}

TEST(MaskKey, U63RefusesZeroAndValuesAboveTheLargestBigint) {
  const MaskKey key(1, kCountingSecret);
  for (std::uint64_t bad : {std::uint64_t{0}, kMaskMaxU63 + 1, ~std::uint64_t{0}}) {
    for (bool masking : {true, false}) {
      EXPECT_ERRC(masking ? key.mask_u63(bad) : key.unmask_u63(bad), errc::invalid_argument,
                  std::to_string(bad), "9223372036854775807");
    }
    MaskValue out{7, 7};
    EXPECT_EQ(key.mask(MaskMode::u63, {0, bad}, out), MaskFault::out_of_domain);
    EXPECT_EQ(key.unmask(MaskMode::u63, {0, bad}, out), MaskFault::out_of_domain);
    EXPECT_EQ(out, (MaskValue{7, 7})) << "out is untouched on a fault";
  }
  MaskValue out;
  EXPECT_EQ(key.mask(MaskMode::u63, {1, 5}, out), MaskFault::out_of_domain)
      << "high half must be 0";
}

TEST(MaskKey, U128RoundTripsAnyBitsIncludingNilAndMax) {
  const MaskKey key(1, kCountingSecret);
  std::mt19937_64 rng(2);
  std::vector<Uuid> values = {Uuid::nil(), Uuid::max(), Uuid::from_u64(0, 1), Uuid::from_u64(1, 0)};
  for (int i = 0; i < 50'000; ++i) values.push_back(Uuid::from_u64(rng(), rng()));
  for (const Uuid& u : values) {
    const Uuid m = key.mask_u128(u);
    ASSERT_NE(m, u);
    ASSERT_EQ(key.unmask_u128(m), u);
    MaskValue out;
    ASSERT_EQ(key.mask(MaskMode::u128, MaskValue::of(u), out), MaskFault::ok);
    ASSERT_EQ(out.to_uuid(), m);
  }
}

TEST(MaskKey, V7BecomesAVersion4RfcUuidAndComesBackExactly) {
  const MaskKey key(3, kDescendingSecret);
  UuidV7Generator gen;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 50'000; ++i) {
    // Generated v7s, and v7s with every free bit random (times far from now included).
    const Uuid v7 =
        i % 2 ? gen.next()
              : Uuid::from_u64((rng() & ~0xF000ull) | 0x7000ull, (rng() >> 2) | (2ull << 62));
    ASSERT_EQ(v7.version(), 7);
    const Uuid v4 = key.mask_v7(v7);
    ASSERT_EQ(v4.version(), 4) << v4.to_string();
    ASSERT_EQ(v4.variant(), UuidVariant::rfc9562) << v4.to_string();
    ASSERT_EQ(key.unmask_v4(v4), v7);
  }
}

TEST(MaskKey, V7ModeRefusesOtherVersionsAndVariants) {
  const MaskKey key(3, kDescendingSecret);
  const Uuid v4 = Uuid::parse("919108f7-52d1-4320-9bac-f847db4148a8");
  const Uuid v7_ncs = Uuid::parse("017f22e2-79b0-7cc3-18c4-dc0c0c07398f");  // variant 0b0xx
  const Uuid v7 = Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
  for (const Uuid& u : {v4, v7_ncs, Uuid::nil(), Uuid::max()}) {
    EXPECT_ERRC(key.mask_v7(u), errc::invalid_argument, u.to_string());
    MaskValue out;
    EXPECT_EQ(key.mask(MaskMode::v7_as_v4, MaskValue::of(u), out), MaskFault::not_v7);
  }
  for (const Uuid& u : {v7, Uuid::nil()}) {
    EXPECT_THROW(key.unmask_v4(u), Error) << u.to_string();
    MaskValue out;
    EXPECT_EQ(key.unmask(MaskMode::v7_as_v4, MaskValue::of(u), out), MaskFault::not_v4);
  }
}

TEST(MaskKey, DifferentSecretsGiveUnrelatedMaps) {
  const MaskKey a(1, kCountingSecret), b(1, kDescendingSecret);
  int same = 0;
  for (std::uint64_t v = 1; v <= 10'000; ++v) same += a.mask_u63(v) == b.mask_u63(v);
  EXPECT_EQ(same, 0);
  EXPECT_NE(a.mask_u128(Uuid::nil()), b.mask_u128(Uuid::nil()));
  EXPECT_NE(a.tag(MaskMode::u63, {0, 5}), b.tag(MaskMode::u63, {0, 5}));
}

TEST(MaskKey, TheKeyIdDoesNotChangeTheMap) {
  // Rotation renames nothing: the same secret under another ID masks the same way (the ID
  // only tells a reader of public text which key to use).
  const MaskKey a(1, kCountingSecret), b(40, kCountingSecret);
  EXPECT_EQ(a.mask_u63(12345), b.mask_u63(12345));
  EXPECT_EQ(a.id(), 1u);
  EXPECT_EQ(b.id(), 40u);
}

TEST(MaskKey, TagSeparatesModes) {
  const MaskKey key(1, kCountingSecret);
  EXPECT_NE(key.tag(MaskMode::u63, {0, 5}), key.tag(MaskMode::u128, {0, 5}));
  EXPECT_NE(key.tag(MaskMode::u63, {0, 5}), key.tag(MaskMode::u63, {0, 6}));
}

TEST(MaskKey, RefusesIdsAbove57AndAllZeroSecrets) {
  EXPECT_ERRC(MaskKey k(58, kCountingSecret), errc::key_error, "58");
  const unsigned char zero[MaskKey::kSecretBytes] = {};
  EXPECT_ERRC(MaskKey k(2, zero), errc::key_error, "zero");
  EXPECT_NO_THROW(MaskKey(57, kCountingSecret));
  EXPECT_NO_THROW(MaskKey(0, kCountingSecret));
}

TEST(MaskKey, CopiesMaskTheSame) {
  const MaskKey a(5, kCountingSecret);
  const MaskKey b = a;
  EXPECT_EQ(a.mask_u63(99), b.mask_u63(99));
  EXPECT_EQ(b.id(), 5u);
}

TEST(MaskMode, NamesRoundTripAndUnknownNamesFail) {
  for (MaskMode m : {MaskMode::u63, MaskMode::u128, MaskMode::v7_as_v4})
    EXPECT_EQ(parse_mask_mode(to_string(m)), m);
  EXPECT_EQ(parse_mask_mode("bigint"), MaskMode::u63);
  EXPECT_EQ(parse_mask_mode("uuid"), MaskMode::u128);
  EXPECT_EQ(parse_mask_mode("v7_as_v4"), MaskMode::v7_as_v4);
  EXPECT_THROW(parse_mask_mode("u64"), ParseError);
}

TEST(MaskFault, EachHasAPhraseAndACategory) {
  const std::set<errc> allowed = {errc::invalid_argument, errc::parse_error, errc::key_error,
                                  errc::not_ours};
  for (int f = 0; f <= static_cast<int>(MaskFault::not_ours); ++f) {
    const auto fault = static_cast<MaskFault>(f);
    EXPECT_STRNE(to_string(fault), "?");
    EXPECT_TRUE(allowed.count(to_errc(fault)));
  }
  EXPECT_EQ(to_errc(MaskFault::mistyped), errc::parse_error);
  EXPECT_EQ(to_errc(MaskFault::unknown_key), errc::key_error);
  EXPECT_EQ(to_errc(MaskFault::not_ours), errc::not_ours);
}

}  // namespace
}  // namespace idforge
