// A parse error names the offending value, bounded: a megabyte of input must not come back
// as a megabyte of message.
#include <gtest/gtest.h>

#include <string>

#include "idforge/error.hpp"
#include "idforge/inspect.hpp"

namespace idforge {
namespace {

TEST(ParseError, ShortInputIsQuotedWhole) {
  const ParseError e("UUID", "not-a-uuid", 3, "expected a hex digit");
  EXPECT_STREQ(e.what(), "invalid UUID 'not-a-uuid' at position 3: expected a hex digit");
  EXPECT_EQ(e.input(), "not-a-uuid");
}

TEST(ParseError, LongInputShowsItsHeadTheBytesAroundThePositionAndItsLength) {
  std::string input(1 << 20, 'a');
  input[700'000] = '!';
  const ParseError e("ULID", input, 700'000, "'!' is not Crockford base32");
  const std::string m = e.what();
  EXPECT_LT(m.size(), 400u) << m.size();
  EXPECT_NE(m.find("(1048576 bytes)"), std::string::npos) << m;
  EXPECT_NE(m.find("aaaa!aaaa"), std::string::npos) << m;
  EXPECT_NE(m.find("at position 700000"), std::string::npos) << m;
  EXPECT_EQ(e.input().size(), input.size());  // the whole input stays available to callers
}

TEST(ParseError, ACutNeverSplitsAUtf8Sequence) {
  std::string input;
  for (int i = 0; i < 100; ++i) input += "\xC3\xA9";  // U+00E9, two bytes each
  const ParseError e("TypeID", input, 0, "upper case");
  const std::string m = e.what();
  const auto open = m.find('\''), dots = m.find("...");
  ASSERT_NE(dots, std::string::npos) << m;
  EXPECT_EQ((dots - open - 1) % 2, 0u) << m;  // whole two-byte sequences before the cut
}

TEST(ParseError, ANulInTheInputDoesNotEndTheMessage) {
  const ParseError e("UUID", std::string_view("ab\0cd", 5), 2, "expected a hex digit");
  EXPECT_STREQ(e.what(), "invalid UUID 'ab\\x00cd' at position 2: expected a hex digit");
  EXPECT_EQ(e.input().size(), 5u);
}

TEST(ParseError, AnEchoInTheReasonIsBoundedToo) {
  const std::string huge(100'000, '9');
  const ParseError e("layout spec", "tick=x", 5, "got '" + huge + "'");
  EXPECT_LT(std::string(e.what()).size(), 600u);
  EXPECT_NE(std::string(e.what()).find("9'"), std::string::npos) << "the reason's tail is kept";
}

// The longest rule (inspect's "unrecognised shape", about 290 bytes) reaches the user whole:
// its last words say what to do.
TEST(ParseError, ARuleIsNeverCut) {
  try {
    inspect("bad");
    ADD_FAILURE() << "decoded";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("..."), std::string::npos) << what;
    EXPECT_NE(what.find("--encoding)"), std::string::npos) << what;
  }
}

TEST(ParseError, InspectOfAMegabyteAnswersALine) {
  try {
    inspect(std::string(1 << 20, 'z'));
    ADD_FAILURE() << "decoded";
  } catch (const Error& e) {
    EXPECT_LT(std::string(e.what()).size(), 600u) << std::string(e.what()).substr(0, 600);
  }
}

}  // namespace
}  // namespace idforge
