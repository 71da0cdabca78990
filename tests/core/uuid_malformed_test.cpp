// Every malformed UUID is refused with the position of the first offending character and
// the rule it breaks.
#include <gtest/gtest.h>

#include "idforge/error.hpp"
#include "idforge/uuid.hpp"
#include "text_paths.hpp"

namespace idforge {
namespace {

IDFORGE_TEXT_PATH_SUITE(UuidMalformed);

struct Case {
  const char* text;
  std::size_t position;
  const char* says;
};

const Case kCases[] = {
    {"", 0, "expected 36 characters"},
    {"017f22e2-79b0-7cc3-98c4-dc0c0c07398", 35, "expected 36 characters"},
    {"017f22e2-79b0-7cc3-98c4-dc0c0c07398f0", 36, "expected 36 characters"},
    {"017f22e2079b0-7cc3-98c4-dc0c0c07398f", 8, "expected '-'"},
    {"017f22e2-79b007cc3-98c4-dc0c0c07398f", 13, "expected '-'"},
    {"017f22e2-79b0-7cc3098c4-dc0c0c07398f", 18, "expected '-'"},
    {"017f22e2-79b0-7cc3-98c40dc0c0c07398f", 23, "expected '-'"},
    {"g17f22e2-79b0-7cc3-98c4-dc0c0c07398f", 0, "hex digit"},
    {"017f22e2-79b0-7cc3-98c4-dc0c0c07398G", 35, "hex digit"},
    {"017f22e2-79x0-7cc3-98c4-dc0c0c07398f", 11, "hex digit"},
    {"017f22e2-79b0-7cc3-98c4-dc0c c07398f", 28, "hex digit"},
    {"017f22e279b07cc398c4dc0c0c07398z", 31, "hex digit"},
    {"-17f22e279b07cc398c4dc0c0c07398f", 0, "hex digit"},
    {"{017f22e2-79b0-7cc3-98c4-dc0c0c07398f", 37, "braced form"},
    {"{017f22e2-79b0-7cc3-98c4-dc0c0c07398f)", 37, "expected '}'"},
    {"{017f22e2-79b0-7cc3-98c4_dc0c0c07398f}", 24, "expected '-'"},
    {"urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398", 44, "URN form"},
    {"urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c0739xf", 43, "hex digit"},
    {"urn:uid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f", 36, "expected 36 characters"},
    // The length of the braced or URN form with a wrong opening: the opening is named.
    {"(017f22e2-79b0-7cc3-98c4-dc0c0c07398f}", 0, "expected '{' opening the braced form"},
    {"urX:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f", 2, "expected 'urn:uuid:'"},
    {"URN:UUIX017f22e2-79b0-7cc3-98c4-dc0c0c07398f0", 7, "expected 'urn:uuid:'"},
    {"017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n", 36, "expected 36 characters"},
};

TEST_P(UuidMalformed, RejectedWithPositionAndRule) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    Uuid u;
    const ParseStatus st = parse_uuid(c.text, u);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.position, c.position);
    EXPECT_NE(std::string(st.reason).find(c.says), std::string::npos) << st.reason;
    try {
      Uuid::parse(c.text);
      ADD_FAILURE() << "parsed";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), c.position);
      EXPECT_EQ(e.code(), errc::parse_error);
      EXPECT_NE(std::string(e.what()).find("invalid UUID"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(Uuid::try_parse(c.text));
  }
}

}  // namespace
}  // namespace idforge
