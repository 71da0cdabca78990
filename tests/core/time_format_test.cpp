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

// Outside four-digit years the date is not written at all: std::chrono's year would wrap
// (2^63 - 1 ms came out as year -6911) and a five-digit year is not ISO-8601's basic form.
TEST(TimeFormat, TimesOutsideFourDigitYearsAreNamedNotWrapped) {
  EXPECT_EQ(format_iso8601_ms(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(format_iso8601_ms(253402300800000), "after 9999-12-31");
  EXPECT_EQ(format_iso8601_ms(9223372036854775807), "after 9999-12-31");
  EXPECT_EQ(format_iso8601_ms(-62167219200000), "0000-01-01T00:00:00.000Z");
  EXPECT_EQ(format_iso8601_ms(-62167219200001), "before 0000-01-01");
  EXPECT_EQ(format_iso8601_ms(-9223372036854775807 - 1), "before 0000-01-01");
}

TEST(TimeFormat, ParsesWhatItFormats) {
  for (std::int64_t ms : {0ll, 1288834974657ll, 1700000000123ll, 253402300799999ll})
    EXPECT_EQ(parse_iso8601_ms(format_iso8601_ms(ms)), ms);
  EXPECT_EQ(parse_iso8601_ms("2016-05-20"), 1463702400000);
  EXPECT_EQ(parse_iso8601_ms("2020-01-01T00:00:00+00:00"), 1577836800000);
}

TEST(TimeFormat, RejectsWithPosition) {
  const std::pair<const char*, std::size_t> cases[] = {{"2020-02-30", 8},
                                                       {"2020/01/01", 4},
                                                       {"2020-01-01T25:00:00Z", 19},
                                                       {"2020-01-01T00:00:00", 19},
                                                       {"2020-01-01T00:00:00+02:00", 19},
                                                       {"20", 2}};
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
