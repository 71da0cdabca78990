#include "idforge/convert.hpp"

#include <gtest/gtest.h>

#include "idforge/error.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

// The TypeID spec's valid-uuidv7 vector, in every 128-bit form (base62 worked out by hand
// from the same bits: 0x01890a5dac96774bbcceb302099a8057 in 0-9A-Za-z).
constexpr const char* kUuid = "01890a5d-ac96-774b-bcce-b302099a8057";
constexpr const char* kUlid = "01H455VB4PEX5VSKNK084SN02Q";
constexpr const char* kTypeId = "prefix_01h455vb4pex5vsknk084sn02q";
constexpr const char* kHex = "01890a5dac96774bbcceb302099a8057";
constexpr const char* kBase62 = "02tcRIyrxLXTR81B3dqdOx";

TEST(Convert, EveryFormToEveryForm) {
  for (const char* in : {kUuid, kUlid, kTypeId, kHex, kBase62}) {
    SCOPED_TRACE(in);
    EXPECT_EQ(convert_id(in, "uuid"), kUuid);
    EXPECT_EQ(convert_id(in, "ulid"), kUlid);
    EXPECT_EQ(convert_id(in, "typeid:prefix"), kTypeId);
    EXPECT_EQ(convert_id(in, "typeid"), "01h455vb4pex5vsknk084sn02q");
    EXPECT_EQ(convert_id(in, "hex"), kHex);
    EXPECT_EQ(convert_id(in, "base62"), kBase62);
  }
}

TEST(Convert, ReadsTheFormItWasGiven) {
  EXPECT_EQ(read_id128(kUuid).form, Id128Form::uuid);
  EXPECT_EQ(read_id128(kUlid).form, Id128Form::ulid);
  EXPECT_EQ(read_id128(kTypeId).form, Id128Form::type_id);
  EXPECT_EQ(read_id128(kHex).form, Id128Form::hex);
  EXPECT_EQ(read_id128(kBase62).form, Id128Form::base62);
  EXPECT_EQ(read_id128("{01890A5D-AC96-774B-BCCE-B302099A8057}").bits, Uuid::parse(kUuid));
  EXPECT_EQ(read_id128("urn:uuid:01890a5d-ac96-774b-bcce-b302099a8057").bits, Uuid::parse(kUuid));
}

TEST(Convert, Base62EdgesAndOverflow) {
  char buf[22];
  encode_base62_128(Uuid::max(), buf);
  EXPECT_EQ(std::string(buf, 22), "7n42DGM5Tflk9n8mt7Fhc7");
  EXPECT_EQ(decode_base62_128("7n42DGM5Tflk9n8mt7Fhc7"), Uuid::max());
  EXPECT_EQ(decode_base62_128("0000000000000000000000"), Uuid::nil());
  EXPECT_THROW(decode_base62_128("7n42DGM5Tflk9n8mt7Fhc8"), ParseError);
  EXPECT_THROW(decode_base62_128("zzzzzzzzzzzzzzzzzzzzzz"), ParseError);
  try {
    (void)decode_base62_128("02tcRIyrxLXTR81B-dqdOx");
    ADD_FAILURE();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.position(), 16u);
  }
}

TEST(Convert, RoundTripsRandomValuesThroughEveryForm) {
  for (int i = 0; i < 2000; ++i) {
    const Uuid u = new_uuid_v4();
    for (const char* to : {"uuid", "ulid", "typeid:x", "hex", "base62"})
      EXPECT_EQ(read_id128(write_id128(u, parse_id128_target(to))).bits, u) << to;
  }
}

TEST(Convert, KsuidAndSnowflakeAreNotConvertible) {
  for (const char* in :
       {"0ujtsYcgvSTl8PAuAdqWYSMnLOv", "1468006400000151552", "0x145f680b00025000"}) {
    SCOPED_TRACE(in);
    try {
      (void)convert_id(in, "uuid");
      ADD_FAILURE() << "converted";
    } catch (const ParseError&) {
      ADD_FAILURE() << "reported as malformed";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(in), std::string::npos) << e.what();
    }
  }
}

TEST(Convert, MalformedInputAndTargetsAreParseErrors) {
  EXPECT_THROW(convert_id("zzzzzzzzzzzzzzzzzzzzzzzzzzz", "uuid"), ParseError);  // KSUID overflow
  EXPECT_THROW(convert_id("hello", "uuid"), ParseError);
  EXPECT_THROW(convert_id(kUuid, "uuid7"), ParseError);
  EXPECT_THROW(convert_id(kUuid, "typeid:Bad"), ParseError);
  EXPECT_THROW(convert_id("prefix__01h455vb4pex5vsknk084sn02q", "uuid"), ParseError);
}

}  // namespace
}  // namespace idforge
