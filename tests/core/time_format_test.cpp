#include "idforge/time_format.hpp"

#include <gtest/gtest.h>

#include "idforge/error.hpp"

namespace idforge {
namespace {

TEST(TimeFormat, FormatsWithMillisecondsInUtc) {
  EXPECT_EQ(format_iso8601_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_iso8601_ms(1288834974657), "2010-11-04T01:42:54.657Z");
  EXPECT_EQ(format_iso8601_ms(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(format_iso8601_ms(951782400000), "2000-02-29T00:00:00.000Z");
}

TEST(TimeFormat, ParsesWhatItFormats) {
  for (std::int64_t ms : {0ll, 1288834974657ll, 1700000000123ll, 253402300799999ll})
    EXPECT_EQ(parse_iso8601_ms(format_iso8601_ms(ms)), ms);
  EXPECT_EQ(parse_iso8601_ms("2016-05-20"), 1463702400000);
  EXPECT_EQ(parse_iso8601_ms("2020-01-01T00:00:00+00:00"), 1577836800000);
}

TEST(TimeFormat, RejectsWithPosition) {
  const std::pair<const char*, std::size_t> cases[] = {
      {"2020-02-30", 8}, {"2020/01/01", 4}, {"2020-01-01T25:00:00Z", 19}, {"2020-01-01T00:00:00", 19},
      {"2020-01-01T00:00:00+02:00", 19}, {"20", 2}};
  for (const auto& [text, pos] : cases) {
    try {
      parse_iso8601_ms(text);
      ADD_FAILURE() << text;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), pos) << text << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace idforge
