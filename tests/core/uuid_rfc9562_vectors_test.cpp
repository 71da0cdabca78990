// The examples of RFC 9562 Appendix A (v1, v4, v6, v7) and B (v8): parse, fields, time.
// All Appendix A examples encode the same instant: 2022-02-22 14:22:22 -05:00.
#include <gtest/gtest.h>

#include "idforge/time_format.hpp"
#include "idforge/uuid.hpp"
#include "idforge/uuid_fields.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kExampleUnixMs = 1645557742000;  // 2022-02-22T19:22:22.000Z

TEST(Rfc9562Vectors, A1Version1) {
  const Uuid u = Uuid::parse("C232AB00-9414-11EC-B3C8-9F6BDECED846");
  EXPECT_EQ(u.version(), 1);
  EXPECT_EQ(u.variant(), UuidVariant::rfc9562);
  const UuidGregorianFields f = decompose_v1(u);
  EXPECT_EQ(f.timestamp, 0x1EC9414C232AB00ull);
  EXPECT_EQ(f.clock_seq, 0x33C8);
  EXPECT_EQ(f.node, 0x9F6BDECED846ull);
  EXPECT_EQ(f.unix_ms, kExampleUnixMs);
  EXPECT_EQ(embedded_unix_ms(u), kExampleUnixMs);
  EXPECT_EQ(format_iso8601_ms(f.unix_ms), "2022-02-22T19:22:22.000Z");
}

TEST(Rfc9562Vectors, A3Version4) {
  const Uuid u = Uuid::parse("919108f7-52d1-4320-9bac-f847db4148a8");
  EXPECT_EQ(u.version(), 4);
  EXPECT_EQ(u.variant(), UuidVariant::rfc9562);
  const UuidSplitFields f = decompose_split(u);
  EXPECT_EQ(f.a, 0x919108F752D1ull);      // random_a
  EXPECT_EQ(f.b, 0x320);                  // random_b
  EXPECT_EQ(f.c, 0x1BACF847DB4148A8ull);  // random_c
  EXPECT_FALSE(embedded_unix_ms(u));
  EXPECT_EQ(compose_v4(u.high(), u.low()), u);  // version and variant already in place
}

TEST(Rfc9562Vectors, A5Version6) {
  const Uuid u = Uuid::parse("1EC9414C-232A-6B00-B3C8-9F6BDECED846");
  EXPECT_EQ(u.version(), 6);
  EXPECT_EQ(u.variant(), UuidVariant::rfc9562);
  const UuidGregorianFields f = decompose_v6(u);
  EXPECT_EQ(f.timestamp, 0x1EC9414C232AB00ull);
  EXPECT_EQ(f.clock_seq, 0x33C8);
  EXPECT_EQ(f.node, 0x9F6BDECED846ull);
  EXPECT_EQ(f.unix_ms, kExampleUnixMs);
  EXPECT_EQ(f.unix_100ns, kExampleUnixMs * 10'000);
  EXPECT_EQ(embedded_unix_ms(u), kExampleUnixMs);
}

TEST(Rfc9562Vectors, A6Version7) {
  const Uuid u = Uuid::parse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F");
  EXPECT_EQ(u.version(), 7);
  EXPECT_EQ(u.variant(), UuidVariant::rfc9562);
  const UuidV7Fields f = decompose_v7(u);
  EXPECT_EQ(f.unix_ms, 0x017F22E279B0ull);
  EXPECT_EQ(f.unix_ms, static_cast<std::uint64_t>(kExampleUnixMs));
  EXPECT_EQ(f.rand_a, 0xCC3);
  EXPECT_EQ(f.rand_b, 0x18C4DC0C0C07398Full);
  EXPECT_EQ(embedded_unix_ms(u), kExampleUnixMs);
  EXPECT_EQ(compose_v7(f.unix_ms, f.rand_a, f.rand_b), u);
}

TEST(Rfc9562Vectors, B1AndB2Version8ReportVersionAndVariantOnly) {
  for (const char* text :
       {"2489E9AD-2EE2-8E00-8EC9-32D5F69181C0", "5c146b14-3c52-8afd-938a-375d0df1fbf6"}) {
    const Uuid u = Uuid::parse(text);
    EXPECT_EQ(u.version(), 8) << text;
    EXPECT_EQ(u.variant(), UuidVariant::rfc9562) << text;
    EXPECT_FALSE(embedded_unix_ms(u)) << text;
  }
  EXPECT_EQ(decompose_split(Uuid::parse("2489E9AD-2EE2-8E00-8EC9-32D5F69181C0")).a,
            0x2489E9AD2EE2ull);
}

TEST(Rfc9562Vectors, GregorianTimesBefore1970FloorToThePast) {
  // timestamp 1 (100 ns after 1582-10-15T00:00Z) as a v6.
  const Uuid u = Uuid::parse("00000000-0000-6001-8000-000000000000");
  const UuidGregorianFields f = decompose_v6(u);
  EXPECT_EQ(f.timestamp, 1u);
  EXPECT_EQ(format_iso8601_ms(f.unix_ms), "1582-10-15T00:00:00.000Z");
}

}  // namespace
}  // namespace idforge
