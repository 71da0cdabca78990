// inspect() recognises TypeID and KSUID by their shape.
#include <gtest/gtest.h>

#include "idforge/error.hpp"
#include "idforge/inspect.hpp"

namespace idforge {
namespace {

TEST(InspectRelatives, TypeIdByShape) {
  // The spec's valid-uuidv7 vector.
  const Inspection in = inspect("prefix_01h455vb4pex5vsknk084sn02q");
  EXPECT_EQ(in.kind, "typeid");
  EXPECT_EQ(in.canonical, "prefix_01h455vb4pex5vsknk084sn02q");
  EXPECT_EQ(in.field("prefix")->text, "prefix");
  EXPECT_EQ(in.field("uuid")->text, "01890a5d-ac96-774b-bcce-b302099a8057");
  EXPECT_EQ(in.field("version")->numeric, 7u);
  ASSERT_TRUE(in.unix_ms.has_value());
  EXPECT_EQ(*in.unix_ms, 0x01890a5dac96);
  EXPECT_EQ(in.field("time")->text, "2023-06-30T03:34:18.518Z");
}

TEST(InspectRelatives, TypeIdOfAnotherVersionHasNoTime) {
  const Inspection in = inspect("prefix_0123456789abcdefghjkmnpqrs");
  EXPECT_EQ(in.kind, "typeid");
  EXPECT_EQ(in.field("version")->numeric, 5u);
  EXPECT_FALSE(in.unix_ms.has_value());
}

TEST(InspectRelatives, MalformedTypeIdNamesTheRule) {
  try {
    (void)inspect("prefix__00000000000000000000000000");
    ADD_FAILURE() << "decoded";
  } catch (const ParseError& e) {
    EXPECT_NE(e.reason().find("end with '_'"), std::string::npos) << e.reason();
  }
}

TEST(InspectRelatives, KsuidByShape) {
  // segmentio/ksuid README: Timestamp 107608047, 2017-10-09 21:00:47 -0700 PDT.
  const Inspection in = inspect("0ujtsYcgvSTl8PAuAdqWYSMnLOv");
  EXPECT_EQ(in.kind, "ksuid");
  EXPECT_EQ(in.field("timestamp")->numeric, 107608047u);
  EXPECT_EQ(in.field("time")->text, "2017-10-10T04:00:47.000Z");
  EXPECT_EQ(in.unix_ms, 1'507'608'047'000);
  EXPECT_EQ(in.field("payload")->text, "0xb5a1cd34b5f99d1154fb6853345c9735");
  EXPECT_EQ(in.field("raw")->text, "0669f7efb5a1cd34b5f99d1154fb6853345c9735");
}

TEST(InspectRelatives, KsuidOverflowIsRefused) {
  EXPECT_THROW(inspect("zzzzzzzzzzzzzzzzzzzzzzzzzzz"), ParseError);
}

TEST(InspectRelatives, OtherKindsStillDecodeAsBefore) {
  EXPECT_EQ(inspect("01ARZ3NDEKTSV4RRFFQ69G5FAV").kind, "ulid");
  EXPECT_EQ(inspect("01890a5d-ac96-774b-bcce-b302099a8057").kind, "uuid");
  EXPECT_EQ(inspect("1468006400000151552").kind, "snowflake");
}

}  // namespace
}  // namespace idforge
