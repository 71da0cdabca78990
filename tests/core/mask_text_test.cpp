// Values to mask and masked values as text: which mode a text picks, and the errors.
#include <gtest/gtest.h>

#include "idforge/mask.hpp"

namespace idforge {
namespace {

TEST(MaskText, NumbersAreU63AndUuidsPickTheirModeByVersion) {
  EXPECT_EQ(parse_mask_input("42").mode, MaskMode::u63);
  EXPECT_EQ(parse_mask_input("42").value, (MaskValue{0, 42}));
  EXPECT_EQ(parse_mask_input("9223372036854775807").value.low, kMaskMaxU63);
  const char* v7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
  const char* v4 = "919108f7-52d1-4320-9bac-f847db4148a8";
  EXPECT_EQ(parse_mask_input(v7).mode, MaskMode::v7_as_v4);
  EXPECT_EQ(parse_mask_input(v4).mode, MaskMode::u128);
  EXPECT_EQ(parse_mask_input("017F22E279B07CC398C4DC0C0C07398F").mode, MaskMode::v7_as_v4);
  EXPECT_EQ(parse_mask_input(v7, MaskMode::u128).mode, MaskMode::u128);
  EXPECT_EQ(parse_mask_input(v7).value.to_uuid().to_string(), v7);
  // Read back: a v4 is taken for a masked v7; other versions are u128.
  EXPECT_EQ(parse_masked_input(v4).mode, MaskMode::v7_as_v4);
  EXPECT_EQ(parse_masked_input(v7).mode, MaskMode::u128);
  EXPECT_EQ(parse_masked_input("5").mode, MaskMode::u63);
}

TEST(MaskText, BadTextIsAParseErrorNamingTextPositionAndRule) {
  struct Case {
    std::string text;
    std::optional<MaskMode> mode;
    std::size_t position;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"0", std::nullopt, 0, "from 1 to 9223372036854775807"},
      {"9223372036854775808", std::nullopt, 0, "from 1 to"},
      {"99999999999999999999999", std::nullopt, 0, "from 1 to"},
      {"-5", std::nullopt, 2, "neither a number (u63) nor a UUID"},
      {"", std::nullopt, 0, "neither a number"},
      {"12", MaskMode::v7_as_v4, 0, "mode v7 takes a UUID"},
      {"017f22e2-79b0-7cc3-98c4-dc0c0c07398f", MaskMode::u63, 0, "mode u63 takes a number"},
      {"919108f7-52d1-4320-9bac-f847db4148a8", MaskMode::v7_as_v4, 14, "version 7"},
      {"urn:uuid:919108f7-52d1-4320-9bac-f847db4148a8", MaskMode::v7_as_v4, 23,
       "this one has version 4"},
  };
  for (const Case& c : cases) {
    try {
      parse_mask_input(c.text, c.mode);
      ADD_FAILURE() << c.text;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), c.position) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'" + c.text + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_masked_input("017f22e2-79b0-7cc3-98c4-dc0c0c07398f", MaskMode::v7_as_v4),
               ParseError);
}

TEST(MaskText, FormatsNumbersAndUuids) {
  EXPECT_EQ(format_mask_value(MaskMode::u63, {0, 123}), "123");
  EXPECT_EQ(format_mask_value(MaskMode::u128, {0, 1}), "00000000-0000-0000-0000-000000000001");
  EXPECT_EQ(format_mask_value(MaskMode::v7_as_v4,
                              MaskValue::of(Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"))),
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
}

}  // namespace
}  // namespace idforge
