// Known answers: the mapping under the fixed secret 00 01 .. 1f (key ID 1) may never change
// between releases, or every public ID already handed out would stop resolving. A change
// here is a new construction and needs a new key-derivation context, not new vectors.
#include <gtest/gtest.h>

#include <cstdint>

#include "idforge/public_id.hpp"
#include "mask_support.hpp"

namespace idforge {
namespace {

const MaskKey& key() {
  static const MaskKey k(1, test::kCountingSecret);
  return k;
}

struct U63Vector {
  std::uint64_t value, masked;
  const char* base58;
  const char* base62;
};

constexpr U63Vector kU63[] = {
    {1ull, 4970458849367440921ull, "CYBakZSu76p2dxyy", "5vAklNxTaOHF5fgx"},
    {2ull, 2363766630248649516ull, "6VEqA8oXDrsHu12A", "2oc4j59GJTgOMCD5"},
    {3ull, 2055926696585888060ull, "5mo1u5k59wHTg784", "2RsAIQ1wdTQU967n"},
    {4001ull, 8888165847862036857ull, "MddbJ9eWq3n1mGH2", "AaZtQ4anDKrkd562"},
    {4002ull, 702474559087470865ull, "2daNzUrSipGy7kmk", "0ptL8XxXoHZ2IZaY"},
    {1000000ull, 4052524650976743328ull, "AQbkhiB6sh1zrABC", "4pMbZ3tlQ1Y9zz06"},
    {4294967296ull, 7691978122290122849ull, "Jrayiya9rTAXiWXW", "9ADLAMcy3IvSdDET"},
    {4611686018427387904ull, 5550584397614919402ull, "DtHaezYv9UMNoz1D", "6c1jazCx9nW3qz0c"},
    {9223372036854775807ull, 970847276949345342ull, "3Fi1UhWhapdd9fgR", "19iUQk8xr4AcnmnG"},
    // A Snowflake of the Twitter layout (2022-06-28).
    {1541815603606036480ull, 2832434001188189990ull, "7aLVTFTSAEhtyABL", "3NEZoy3NayMtxden"},
};

struct UuidVector {
  const char* value;
  const char* masked;
  const char* base58;
};

constexpr UuidVector kU128[] = {
    {"00000000-0000-0000-0000-000000000000", "d24e6c96-7966-4490-f8d6-1f07d00f5294",
     "SyEUmPS6SHqUQxBAtxhtW7rpXYC"},
    {"ffffffff-ffff-ffff-ffff-ffffffffffff", "65713b1c-5da2-31fd-7502-1148499bd50d",
     "DXYF4osXfopdACg6Vam4wv7kpqF"},
    {"017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "fd57639d-7de2-5d5b-80e6-ecc65a67977f",
     "YHTGk5gzei7o2jitbPFkwgR412g"},
    {"919108f7-52d1-4320-9bac-f847db4148a8", "5986d403-d9b8-3300-706a-f85f5e1de524",
     "C4CUYKbZk3ihEKJB8dtJPmramnR"},
};

constexpr UuidVector kV7[] = {
    // RFC 9562 Appendix A.6's UUIDv7 example, first.
    {"017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "0dde117f-3573-4008-bf85-de15727c4cd1",
     "2Z1WBwQe58xTLy7NrhuepCgabz"},
    {"01890a5d-ac96-774b-bcce-b302099a8057", "8df64f77-563e-48ab-bda9-745c7fb22d3c",
     "GtRgASAP1kGGhCqZ22QB5HTvwg"},
    {"00000000-0000-7000-8000-000000000000", "7a0de8b1-d95f-4207-aa93-c6787649e3fb",
     "EfDEYUV4UnR1PhpaHd1Ja7Xkm8"},
    {"ffffffff-ffff-7fff-bfff-ffffffffffff", "6bbcdd92-ceac-4952-b4df-b240df5e0bae",
     "D4Hf1BpMZKAT9J3syx2vqNCuvg"},
};

MaskKeyring ring() {
  return MaskKeyring::parse(test::counting_line(1), "vectors");
}

TEST(MaskVectors, U63) {
  const MaskKeyring r = ring();
  for (const auto& v : kU63) {
    EXPECT_EQ(key().mask_u63(v.value), v.masked) << v.value;
    EXPECT_EQ(key().unmask_u63(v.masked), v.value) << v.value;
    EXPECT_EQ(to_public_id(key(), MaskMode::u63, {0, v.value}, PublicAlphabet::base58), v.base58);
    EXPECT_EQ(to_public_id(key(), MaskMode::u63, {0, v.value}, PublicAlphabet::base62), v.base62);
    EXPECT_EQ(parse_public_id(r, v.base58, PublicAlphabet::base58).value.low, v.value);
    EXPECT_EQ(parse_public_id(r, v.base62, PublicAlphabet::base62).value.low, v.value);
  }
}

TEST(MaskVectors, U128) {
  const MaskKeyring r = ring();
  for (const auto& v : kU128) {
    const Uuid in = Uuid::parse(v.value);
    EXPECT_EQ(key().mask_u128(in).to_string(), v.masked);
    EXPECT_EQ(key().unmask_u128(Uuid::parse(v.masked)), in);
    EXPECT_EQ(to_public_id(key(), MaskMode::u128, MaskValue::of(in)), v.base58);
    EXPECT_EQ(parse_public_id(r, v.base58).value.to_uuid(), in);
  }
}

TEST(MaskVectors, V7AsV4) {
  const MaskKeyring r = ring();
  for (const auto& v : kV7) {
    const Uuid in = Uuid::parse(v.value);
    EXPECT_EQ(key().mask_v7(in).to_string(), v.masked);
    EXPECT_EQ(key().unmask_v4(Uuid::parse(v.masked)), in);
    EXPECT_EQ(to_public_id(key(), MaskMode::v7_as_v4, MaskValue::of(in)), v.base58);
    EXPECT_EQ(parse_public_id(r, v.base58).value.to_uuid(), in);
  }
}

}  // namespace
}  // namespace idforge
