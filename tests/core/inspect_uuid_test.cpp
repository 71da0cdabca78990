// inspect recognises UUIDs (any form, any version) and ULIDs by shape.
#include <gtest/gtest.h>

#include "idforge/error.hpp"
#include "idforge/inspect.hpp"

namespace idforge {
namespace {

TEST(InspectUuid, V7FromTheRfcInEveryForm) {
  for (const char* text :
       {"017F22E2-79B0-7CC3-98C4-DC0C0C07398F", "017f22e279b07cc398c4dc0c0c07398f",
        "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}",
        "urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f"}) {
    const Inspection in = inspect(text);
    EXPECT_EQ(in.kind, "uuid") << text;
    EXPECT_EQ(in.canonical, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    EXPECT_EQ(in.unix_ms, 1645557742000);
    EXPECT_EQ(in.field("version")->numeric, 7u);
    EXPECT_EQ(in.field("variant")->text, "RFC 9562");
    EXPECT_EQ(in.field("time")->text, "2022-02-22T19:22:22.000Z");
    EXPECT_EQ(in.field("rand_a")->text, "0xcc3");
    EXPECT_EQ(in.field("rand_b")->text, "0x18c4dc0c0c07398f");
  }
}

TEST(InspectUuid, V1AndV6DecodeTheGregorianTimestamp) {
  for (const char* text :
       {"C232AB00-9414-11EC-B3C8-9F6BDECED846", "1EC9414C-232A-6B00-B3C8-9F6BDECED846"}) {
    const Inspection in = inspect(text);
    EXPECT_EQ(in.field("time")->text, "2022-02-22T19:22:22.000Z") << text;
    EXPECT_EQ(in.field("timestamp")->text, "0x1ec9414c232ab00");
    EXPECT_EQ(in.field("clock_seq")->numeric, 0x33C8u);
    EXPECT_EQ(in.field("node")->text, "0x9f6bdeced846");
  }
}

TEST(InspectUuid, V2DecodesItsTruncatedTimeAndLocalId) {
  // The v1 example's time_mid and time_high with time_low given to UID 1000: the time is
  // 2022-02-22T19:22:22Z less the 0xc232ab00 x 100 ns that time_low held.
  const Inspection in = inspect("000003e8-9414-21ec-8000-0242ac120002");
  EXPECT_EQ(in.field("version")->numeric, 2u);
  EXPECT_EQ(in.unix_ms, 1645557416189);
  EXPECT_EQ(in.field("time")->text, "2022-02-22T19:16:56.189Z");
  EXPECT_EQ(in.field("timestamp")->text, "0x1ec941400000000");
  EXPECT_EQ(in.field("local_id")->numeric, 1000u);
  EXPECT_EQ(in.field("domain")->text, "0 (person: POSIX UID)");
  EXPECT_EQ(in.field("clock_seq")->numeric, 0u);
  EXPECT_EQ(in.field("node")->text, "0x0242ac120002");
}

TEST(InspectUuid, V4AndV8ReportTheirFieldsWithoutTime) {
  const Inspection v4 = inspect("919108f7-52d1-4320-9bac-f847db4148a8");
  EXPECT_EQ(v4.field("version")->text, "4 (random)");
  EXPECT_FALSE(v4.unix_ms);
  EXPECT_EQ(v4.field("random_c")->text, "0x1bacf847db4148a8");
  const Inspection v8 = inspect("2489E9AD-2EE2-8E00-8EC9-32D5F69181C0");
  EXPECT_EQ(v8.field("version")->text, "8 (custom)");
  EXPECT_EQ(v8.field("variant")->text, "RFC 9562");
  EXPECT_EQ(v8.field("custom_a")->text, "0x2489e9ad2ee2");
  EXPECT_FALSE(v8.unix_ms);
}

TEST(InspectUuid, NilMaxAndForeignVariants) {
  EXPECT_NE(inspect("00000000-0000-0000-0000-000000000000").field("special")->text.find("nil"),
            std::string::npos);
  EXPECT_NE(inspect("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF").field("special")->text.find("max"),
            std::string::npos);
  const Inspection ms = inspect("00000000-0000-4000-c000-000000000000");
  EXPECT_EQ(ms.field("variant")->text, "Microsoft");
  EXPECT_NE(ms.field("version")->text.find("not an RFC 9562 variant"), std::string::npos);
}

TEST(InspectUlid, TimeRandomAndUuidForm) {
  const Inspection in = inspect("01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(in.kind, "ulid");
  EXPECT_EQ(in.unix_ms, 1469922850259);
  EXPECT_EQ(in.field("time")->text, "2016-07-30T23:54:10.259Z");
  EXPECT_EQ(in.field("random")->text, "0xd6764c61efb99302bd5b");
  EXPECT_EQ(in.field("uuid")->text, "01563e3a-b5d3-d676-4c61-efb99302bd5b");
  EXPECT_EQ(inspect("01arz3ndektsv4rrffq69g5fav").canonical, "01ARZ3NDEKTSV4RRFFQ69G5FAV");
}

TEST(InspectShapes, MalformedUuidAndUlidReportTheirOwnRule) {
  try {
    inspect("017f22e2-79b0-7cc3-98c4-dc0c0c07398g");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.position(), 35u);
    EXPECT_NE(std::string(e.what()).find("invalid UUID"), std::string::npos);
  }
  try {
    inspect("81ARZ3NDEKTSV4RRFFQ69G5FAV");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid ULID"), std::string::npos);
  }
}

TEST(InspectShapes, SnowflakesAreStillSnowflakes) {
  EXPECT_EQ(inspect("1468006400000151552").kind, "snowflake");
  EXPECT_EQ(inspect("0x145f680b00025000").kind, "snowflake");
}

}  // namespace
}  // namespace idforge
