// What idforge echoes from its input reaches the terminal escaped: control characters and
// bytes that are not UTF-8 cannot recolour, move or hide anything, and a message stays one
// line.
#include <gtest/gtest.h>

#include "one_line_error.hpp"
#include "run_command.hpp"

namespace idforge {
namespace {

using test::expect_one_line_error;
using test::run_idforge;

bool has_raw_control(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

TEST(CliEscapedInput, InspectErrorsEscapeControlCharacters) {
  const auto r = run_idforge({"inspect", "12\x1b[31m34\r\n5\t6"});
  expect_one_line_error(r, 1, "invalid ID '12\\x1b[31m34\\r\\n5\\t6'");
  EXPECT_FALSE(has_raw_control(r.err)) << r.err;
}

TEST(CliEscapedInput, BytesThatAreNotUtf8AreShownAsHex) {
  const auto r = run_idforge({"inspect", "1234", "\xff\xfe", "caf\xc3\xa9"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("invalid ID '\\xff\\xfe'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("invalid ID 'caf\xc3\xa9'"), std::string::npos)
      << r.err;  // valid UTF-8 stays
}

TEST(CliEscapedInput, BidiOverridesAndC1ControlsAreEscaped) {
  const auto r = run_idforge({"inspect",
                              "12\xe2\x80\xae"
                              "34\xc2\x9b"
                              "5"});
  expect_one_line_error(r, 1, "invalid ID '12\\u202e34\\u009b5'");
}

TEST(CliEscapedInput, LayoutTextEscapesItsName) {
  const auto r = run_idforge({"layout", "twitter,name=a\x1b]0;x\x07"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("layout      a\\x1b]0;x\\x07\n"), std::string::npos) << r.out;
  EXPECT_FALSE(has_raw_control(r.out)) << r.out;
}

}  // namespace
}  // namespace idforge
