#include "idforge/inspect.hpp"

#include <gtest/gtest.h>

#include "idforge/error.hpp"

namespace idforge {
namespace {

TEST(Inspect, DecodesTheSeedsSnowflake) {
  const Inspection in = inspect("1468006400000151552");
  EXPECT_EQ(in.kind, "snowflake");
  EXPECT_EQ(in.field("time")->text, "2021-12-06T23:56:14.657Z");
  EXPECT_EQ(in.field("datacenter")->numeric, 1u);
  EXPECT_EQ(in.field("worker")->numeric, 5u);
  EXPECT_EQ(in.field("sequence")->numeric, 0u);
  EXPECT_EQ(in.field("hex")->text, "145f680b00025000");
  EXPECT_EQ(in.field("js_safe")->text, "false");
  EXPECT_TRUE(in.field("js_safe")->boolean);  // a JSON boolean, not the string "false"
}

TEST(Inspect, JsSafeEndsAtTheLargestSafeInteger) {
  // Number.MAX_SAFE_INTEGER = 2^53 - 1; 2^53 rounds together with 2^53 + 1 in a double.
  EXPECT_EQ(inspect("9007199254740991").field("js_safe")->text, "true");
  EXPECT_EQ(inspect("9007199254740992").field("js_safe")->text, "false");
}

TEST(Inspect, HexPrefixAndExplicitEncodingsAgree) {
  const auto dec = inspect("1468006400000151552");
  EXPECT_EQ(inspect("0x145f680b00025000").canonical, dec.canonical);
  InspectOptions b32;
  b32.encoding = IntEncoding::base32;
  EXPECT_EQ(inspect(dec.field("base32")->text, b32).canonical, dec.canonical);
}

TEST(Inspect, LayoutChangesTheFields) {
  InspectOptions opt;
  opt.layout = presets::sonyflake();
  const auto in = inspect("1468006400000151552", opt);
  EXPECT_EQ(in.field("layout")->text, "sonyflake");
  EXPECT_EQ(in.field("datacenter"), nullptr);
  EXPECT_EQ(in.field("node")->numeric, 0x5000u);
}

TEST(Inspect, UnknownShapeIsRefused) {
  EXPECT_THROW(inspect("hello world"), ParseError);
  EXPECT_THROW(inspect("9223372036854775808"), Error);  // sign bit under a signed layout
}

}  // namespace
}  // namespace idforge
