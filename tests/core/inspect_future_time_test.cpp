// A decoded time more than a day after the present is not presented as a creation time:
// random text of an ID's shape (a token from `idforge gen token`) decodes as that kind too.
// The present is a parameter (InspectOptions::now_unix_ms), so these run at a fixed one.
#include <gtest/gtest.h>

#include <limits>

#include "idforge/inspect.hpp"
#include "idforge/inspect_json.hpp"
#include "idforge/uuid_fields.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kNow = 1'735'689'600'000;  // 2025-01-01T00:00:00Z

InspectOptions at_now() {
  InspectOptions o;
  o.now_unix_ms = kNow;
  return o;
}

std::string v7_at(std::int64_t unix_ms) {
  return compose_v7(static_cast<std::uint64_t>(unix_ms), 0x123, 0x456).to_string();
}

TEST(InspectFutureTime, A160BitTokenReadAsKsuidGetsTheNoteAndNoWarning) {
  // 27 base62 characters, the shape `idforge gen token --bits 160` prints; as a KSUID,
  // 2035-06-01.
  const Inspection in = inspect("5eG934bnufybzvTXjO5IoOeS9rK", at_now());
  ASSERT_EQ(in.kind, "ksuid");
  EXPECT_TRUE(in.time_in_future);
  ASSERT_NE(in.field("note"), nullptr);
  EXPECT_NE(in.field("note")->text.find("may not be a ksuid at all"), std::string::npos);
  EXPECT_NE(in.field("note")->text.find("idforge gen token"), std::string::npos);
  EXPECT_FALSE(secret_warning(in));
  const auto j = inspection_to_json_with_warning(in);
  EXPECT_TRUE(j.contains("note"));
  EXPECT_FALSE(j.contains("warning"));
}

TEST(InspectFutureTime, AUlidInTheYear10889GetsTheNote) {
  const Inspection in = inspect("7ZZZZZZZZZZZZZZZZZZZZZZZZZ", at_now());
  EXPECT_TRUE(in.time_in_future);
  EXPECT_NE(in.field("note")->text.find("may not be a ulid at all"), std::string::npos);
}

TEST(InspectFutureTime, OneDayAheadIsStillPlausibleOneMsMoreIsNot) {
  const Inspection edge = inspect(v7_at(kNow + kFutureSlackMs), at_now());
  EXPECT_FALSE(edge.time_in_future);
  EXPECT_EQ(edge.field("note"), nullptr);
  EXPECT_TRUE(secret_warning(edge));
  const Inspection past = inspect(v7_at(kNow + kFutureSlackMs + 1), at_now());
  EXPECT_TRUE(past.time_in_future);
  EXPECT_NE(past.field("note"), nullptr);
}

TEST(InspectFutureTime, APastIdKeepsItsWarning) {
  const Inspection in = inspect("017F22E2-79B0-7CC3-98C4-DC0C0C07398F", at_now());
  EXPECT_FALSE(in.time_in_future);
  EXPECT_EQ(in.field("note"), nullptr);
  EXPECT_TRUE(secret_warning(in));
}

TEST(InspectFutureTime, ASnowflakeFarAheadPointsAtTheLayout) {
  // 2^63 - 1 under twitter: the year 2080.
  const Inspection in = inspect("9223372036854775807", at_now());
  EXPECT_TRUE(in.time_in_future);
  EXPECT_NE(in.field("note")->text.find("--layout"), std::string::npos);
}

TEST(InspectFutureTime, TimesAtTheEndOfInt64AreJudgedWithoutOverflow) {
  InspectOptions o = at_now();
  o.layout = parse_layout("time=63,dc=0,worker=0,seq=0,tick=86400000ms");
  EXPECT_TRUE(inspect("9223372036854775807", o).time_in_future);
  o.now_unix_ms = std::numeric_limits<std::int64_t>::min();
  EXPECT_TRUE(inspect("9223372036854775807", o).time_in_future);
}

TEST(InspectFutureTime, WithoutAPresentNoTimeIsJudged) {
  const Inspection in = inspect("7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
  EXPECT_FALSE(in.time_in_future);
  EXPECT_EQ(in.field("note"), nullptr);
  EXPECT_TRUE(secret_warning(in));
}

}  // namespace
}  // namespace idforge
