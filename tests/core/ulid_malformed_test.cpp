// Malformed ULIDs are refused with position and rule.
#include <gtest/gtest.h>

#include "idforge/error.hpp"
#include "idforge/ulid.hpp"
#include "text_paths.hpp"

namespace idforge {
namespace {

IDFORGE_TEXT_PATH_SUITE(UlidMalformed);

struct Case {
  const char* text;
  std::size_t position;
  const char* says;
};

const Case kCases[] = {
    {"", 0, "exactly 26"},
    {"01ARZ3NDEKTSV4RRFFQ69G5FA", 25, "exactly 26"},
    {"01ARZ3NDEKTSV4RRFFQ69G5FAVX", 26, "exactly 26"},
    {"01ARZ3NDEKTSV4RRFFQ69G5FAU", 25, "'U'"},
    {"u1ARZ3NDEKTSV4RRFFQ69G5FAV", 0, "'U'"},
    {"01ARZ3NDEK-SV4RRFFQ69G5FAV", 10, "Crockford base32 character"},
    {"01ARZ3NDEKTSV4RRFFQ69G5F V", 24, "Crockford base32 character"},
    {"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", 0, "above '7'"},
    {"ZZZZZZZZZZZZZZZZZZZZZZZZZZ", 0, "above '7'"},
    {"80000000000000000000000000", 0, "above '7'"},
};

TEST_P(UlidMalformed, RejectedWithPositionAndRule) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    Ulid u;
    const ParseStatus st = parse_ulid(c.text, u);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.position, c.position);
    EXPECT_NE(std::string(st.reason).find(c.says), std::string::npos) << st.reason;
    try {
      Ulid::parse(c.text);
      ADD_FAILURE() << "parsed";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), c.position);
      EXPECT_NE(std::string(e.what()).find("invalid ULID"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(Ulid::try_parse(c.text));
  }
}

}  // namespace
}  // namespace idforge
