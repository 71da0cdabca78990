// detail::printable (input quoted in messages, escaped as the CLI shows it) and
// detail::shortened (a long message keeps its head and its tail).
#include "idforge/detail/printable.hpp"

#include <gtest/gtest.h>

#include <string>

#include "idforge/error.hpp"

namespace idforge::detail {
namespace {

TEST(Printable, ControlsAndBytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(printable(std::string("a\0b\x1b[1m\n\t\r\x7f\xff", 12)),
            "a\\x00b\\x1b[1m\\n\\t\\r\\x7f\\xff");
  EXPECT_EQ(printable("caf\xc3\xa9 \\ ok"), "caf\xc3\xa9 \\ ok");  // UTF-8 and '\' unchanged
  EXPECT_EQ(printable("\xe2\x80\xae"), "\\u202e");                 // a bidi override
}

// Core's parse errors quote input through printable: C, Python and Node get the same words.
TEST(Printable, ParseErrorsQuoteTheInputEscaped) {
  const ParseError e("ID", std::string("ab\x1b[31m\x07\xff", 9), 0, "no");
  EXPECT_NE(std::string(e.what()).find("'ab\\x1b[31m\\x07\\xff'"), std::string::npos) << e.what();
}

TEST(Shortened, KeepsHeadAndTailOnCharacterBoundaries) {
  EXPECT_EQ(shortened("short", 16), "short");
  std::string long_text =
      "store refused (file:/" + std::string(5000, 'a') + "): Connection refused";
  const std::string s = shortened(long_text, 1024);
  EXPECT_EQ(s.size(), 1024u);
  EXPECT_EQ(s.rfind("store refused (file:/", 0), 0u);
  EXPECT_NE(s.find("..."), std::string::npos);
  EXPECT_TRUE(s.ends_with("): Connection refused"));
  // Three-byte characters: no cut leaves a partial sequence.
  std::string euros;
  for (int i = 0; i < 600; ++i) euros += "\xe2\x82\xac";
  const std::string t = shortened(euros, 100);
  EXPECT_LE(t.size(), 100u);
  const std::size_t join = t.find("...");
  ASSERT_NE(join, std::string::npos);
  EXPECT_EQ(join % 3, 0u);
  EXPECT_EQ((t.size() - join - 3) % 3, 0u);
}

}  // namespace
}  // namespace idforge::detail
