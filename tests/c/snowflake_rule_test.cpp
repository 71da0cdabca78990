// The C ABI's pieces for a face that keeps its own state (idforge.h, node IDFORGE_1.3), as the
// PostgreSQL extension uses them: the Snowflake step on state the caller keeps (shared memory
// in the server), the durable mark's text, UUIDv7 of a given time, TypeID text and inspect.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "idforge/idforge.h"
#include "idforge/snowflake.hpp"
#include "idforge/snowflake_layout.hpp"
#include "idforge/typeid.hpp"
#include "idforge/uuid.hpp"

namespace {

constexpr std::int64_t kNow = 1'764'547'200'000;  // 2025-12-01T00:00:00Z

idforge_snowflake_rule prepare(const char* spec, std::int64_t node) {
  idforge_snowflake_rule p{};
  EXPECT_EQ(idforge_snowflake_rule_make(spec, node, kNow, &p), IDFORGE_OK) << idforge_last_error();
  return p;
}

// idforge_snowflake_mark_format's text and length (-1: it failed).
int format_mark(const idforge_snowflake_rule& p, std::int64_t mark, const idforge_mark_origin* o,
                char* out, std::size_t size) {
  std::size_t needed = 0;
  if (idforge_snowflake_mark_format(&p, mark, o, out, size, &needed) != IDFORGE_OK) return -1;
  return static_cast<int>(needed - 1);
}

TEST(CSnowflakeRule, PrepareRejectsBadLayoutAndNodeNamingThem) {
  idforge_snowflake_rule p{};
  EXPECT_NE(idforge_snowflake_rule_make("twiter", 0, kNow, &p), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("twiter"), std::string::npos)
      << idforge_last_error();
  EXPECT_NE(idforge_snowflake_rule_make("twitter", 1024, kNow, &p), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("1024"), std::string::npos)
      << idforge_last_error();
  EXPECT_NE(idforge_snowflake_rule_make("twitter", -1, kNow, &p), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("-1"), std::string::npos)
      << idforge_last_error();
  EXPECT_NE(idforge_snowflake_rule_make("time=41,dc=5,worker=5,seq=13", 0, kNow, &p), IDFORGE_OK);
}

// The shim composes IDs from shifts; core's compose() is the reference, for every preset.
TEST(CSnowflakeRule, IdsMatchCoreCompositionForEveryPreset) {
  for (const auto& name : idforge::presets::names()) {
    const auto layout = idforge::parse_layout(name, kNow);
    if (idforge::describe(layout).time_runs_out_ms <= kNow) continue;  // baidu: ran out in 2024
    const auto node = layout.node_count() - 1;
    const auto p = prepare(name.c_str(), static_cast<std::int64_t>(node));
    idforge_snowflake_step s{};
    idforge_snowflake_step_next(&p, 0, IDFORGE_NO_UNIX_MS, kNow, 1000, 5000, &s);
    ASSERT_EQ(s.kind, IDFORGE_STEP_ISSUE) << name;
    const auto parts =
        idforge::decompose(layout, idforge::Snowflake(static_cast<std::uint64_t>(s.id)));
    EXPECT_EQ(parts.node, node) << name;
    EXPECT_EQ(parts.sequence, 0u) << name;
    EXPECT_LE(parts.unix_ms, kNow) << name;
    EXPECT_GT(parts.unix_ms + layout.tick_ms(), kNow) << name;
  }
}

TEST(CSnowflakeRule, StrictlyIncreasingAndMarkWrittenOncePerWindow) {
  const auto p = prepare("twitter", 7);
  std::uint64_t stamp = 0;
  std::int64_t mark = IDFORGE_NO_UNIX_MS, last_id = -1;
  int mark_writes = 0;
  for (std::int64_t now = kNow; now < kNow + 5000; now += 1) {
    for (int i = 0; i < 3; ++i) {
      idforge_snowflake_step s{};
      idforge_snowflake_step_next(&p, stamp, mark, now, 1000, 5000, &s);
      ASSERT_EQ(s.kind, IDFORGE_STEP_ISSUE);
      ASSERT_GT(s.id, last_id);
      if (s.new_mark_ms != IDFORGE_NO_UNIX_MS) {
        ASSERT_GE(s.new_mark_ms, now + 1000 - 1);
        mark = s.new_mark_ms;
        ++mark_writes;
      }
      // Every issued ID's tick ends by the mark on disk.
      ASSERT_LE(idforge::decompose(idforge::presets::twitter(),
                                   idforge::Snowflake(static_cast<std::uint64_t>(s.id)))
                    .unix_ms,
                mark);
      stamp = s.stamp;
      last_id = s.id;
    }
  }
  EXPECT_EQ(mark_writes, 5);
}

// After a crash, the state resumes from the mark: the next ID lies after it, and a clock
// behind the mark waits (within the bound) or is refused with how far behind it is.
TEST(CSnowflakeRule, ResumeAfterMarkNeverRepeatsWithClockBehind) {
  const auto p = prepare("twitter", 1);
  const std::int64_t mark = kNow + 2000;
  const std::uint64_t stamp = idforge_snowflake_resume_stamp(&p, mark);
  idforge_snowflake_step s{};
  idforge_snowflake_step_next(&p, stamp, mark, kNow, 1000, 5000, &s);
  EXPECT_EQ(s.kind, IDFORGE_STEP_WAIT);
  EXPECT_EQ(s.wait_ms, 2001);
  EXPECT_EQ(s.behind_ms, 2000);
  idforge_snowflake_step_next(&p, stamp, mark, kNow, 1000, 1000, &s);
  EXPECT_EQ(s.kind, IDFORGE_STEP_BEHIND);
  EXPECT_EQ(s.behind_ms, 2000);
  idforge_snowflake_step_next(&p, stamp, mark, mark + 1, 1000, 1000, &s);
  ASSERT_EQ(s.kind, IDFORGE_STEP_ISSUE);
  EXPECT_GT(idforge::decompose(idforge::presets::twitter(),
                               idforge::Snowflake(static_cast<std::uint64_t>(s.id)))
                .unix_ms,
            mark);
  EXPECT_EQ(idforge_snowflake_resume_stamp(&p, IDFORGE_NO_UNIX_MS), 0u);
}

// A step back is decided in milliseconds on every tick length: on a 1 s tick a clock 1.998 s
// behind is one or two ticks, but waiting it out would take far longer than a 5 ms bound.
TEST(CSnowflakeRule, AStepBackBeyondTheBoundIsRefusedAtOnceOnALongTick) {
  const auto p = prepare("time=41,dc=5,worker=5,seq=12,tick=1s,epoch=1288834974000", 1);
  idforge_snowflake_step s{};
  idforge_snowflake_step_next(&p, 0, IDFORGE_NO_UNIX_MS, kNow + 900, 0, 5, &s);
  ASSERT_EQ(s.kind, IDFORGE_STEP_ISSUE);
  const std::uint64_t stamp = s.stamp;
  idforge_snowflake_step_next(&p, stamp, IDFORGE_NO_UNIX_MS, kNow + 900 - 1998, 0, 5, &s);
  EXPECT_EQ(s.kind, IDFORGE_STEP_BEHIND);
  EXPECT_GT(s.behind_ms, 0);
  // 3 ms back into the tick before: the next usable tick starts 3 ms away, within 5 ms.
  idforge_snowflake_step_next(&p, stamp, IDFORGE_NO_UNIX_MS, kNow - 3, 0, 5, &s);
  EXPECT_EQ(s.kind, IDFORGE_STEP_WAIT);
  EXPECT_LE(s.wait_ms, 5);
  // The same step back with a bound below it is refused, not waited.
  idforge_snowflake_step_next(&p, stamp, IDFORGE_NO_UNIX_MS, kNow - 3, 0, 2, &s);
  EXPECT_EQ(s.kind, IDFORGE_STEP_BEHIND);
  // Later in the same tick: the next ID of it.
  idforge_snowflake_step_next(&p, stamp, IDFORGE_NO_UNIX_MS, kNow + 950, 0, 5, &s);
  ASSERT_EQ(s.kind, IDFORGE_STEP_ISSUE);
  EXPECT_EQ(s.stamp, stamp + 1);
}

// The fence admits an ID only when its whole tick ends by the fence: on a 1 s tick, a fence
// inside the tick admits none of it, one at the tick's end admits all of it.
TEST(CSnowflakeRule, TheFenceAdmitsAStampOnlyWhenItsWholeTickEndsByIt) {
  const auto p = prepare("time=41,dc=5,worker=5,seq=12,tick=1s,epoch=1288834974000", 1);
  idforge_snowflake_step s{};
  idforge_snowflake_step_next(&p, 0, IDFORGE_NO_UNIX_MS, kNow + 400, 0, 5, &s);
  ASSERT_EQ(s.kind, IDFORGE_STEP_ISSUE);
  // The tick holding kNow + 400 and where it ends (the epoch is not on a whole second).
  const std::int64_t start = p.epoch_ms + (kNow + 400 - p.epoch_ms) / p.tick_ms * p.tick_ms;
  const std::int64_t end = start + p.tick_ms;
  ASSERT_LE(start, kNow + 400);
  ASSERT_GT(end, kNow + 400);
  EXPECT_EQ(idforge_snowflake_fence_admits(&p, s.stamp, end), 1);
  EXPECT_EQ(idforge_snowflake_fence_admits(&p, s.stamp, end - 1), 0);
  EXPECT_EQ(idforge_snowflake_fence_admits(&p, s.stamp, start + 1), 0);  // inside the tick
  EXPECT_EQ(idforge_snowflake_fence_admits(&p, s.stamp + 1, end), 1);    // same tick
  const std::uint64_t next_tick = ((s.stamp >> p.sequence_bits) + 1) << p.sequence_bits;
  EXPECT_EQ(idforge_snowflake_fence_admits(&p, next_tick, end), 0);
  EXPECT_EQ(idforge_snowflake_fence_admits(&p, next_tick, end + p.tick_ms), 1);
  EXPECT_EQ(idforge_snowflake_fence_admits(&p, UINT64_MAX, INT64_MAX), 1);  // no fence
  // At the epoch's end: the first tick's stamps are admitted, the second's are not.
  EXPECT_EQ(idforge_snowflake_fence_admits(&p, 1, p.epoch_ms + p.tick_ms), 1);
  EXPECT_EQ(idforge_snowflake_fence_admits(&p, 1u << p.sequence_bits, p.epoch_ms + p.tick_ms), 0);
  EXPECT_EQ(idforge_snowflake_fence_admits(nullptr, 0, INT64_MAX), 0);
}

// A stamp past the layout's last tick (all ones, the "none yet" of some callers) is EXHAUSTED;
// last + 1 wrapped to tick 0 and issued a low ID before.
TEST(CSnowflakeRule, AStampPastTheLastTickIsExhaustedNotWrapped) {
  const auto p = prepare("twitter", 7);
  idforge_snowflake_step s{};
  idforge_snowflake_step_next(&p, UINT64_MAX, IDFORGE_NO_UNIX_MS, kNow, 1000, 5000, &s);
  EXPECT_EQ(s.kind, IDFORGE_STEP_EXHAUSTED);
  idforge_snowflake_step_next(&p, (p.max_tick + 1) << p.sequence_bits, IDFORGE_NO_UNIX_MS, kNow,
                              1000, 5000, &s);
  EXPECT_EQ(s.kind, IDFORGE_STEP_EXHAUSTED);
}

TEST(CSnowflakeRule, FullTickWaitsForTheNext) {
  const auto p = prepare("time=52,dc=0,worker=10,seq=1,tick=10ms", 0);
  std::uint64_t stamp = 0;
  std::int64_t mark = IDFORGE_NO_UNIX_MS;
  idforge_snowflake_step s{};
  for (int i = 0; i < 2; ++i) {
    idforge_snowflake_step_next(&p, stamp, mark, kNow, 1000, 5000, &s);
    ASSERT_EQ(s.kind, IDFORGE_STEP_ISSUE);
    stamp = s.stamp;
    if (s.new_mark_ms != IDFORGE_NO_UNIX_MS) mark = s.new_mark_ms;
  }
  idforge_snowflake_step_next(&p, stamp, mark, kNow, 1000, 5000, &s);
  EXPECT_EQ(s.kind, IDFORGE_STEP_WAIT);
  EXPECT_GE(s.wait_ms, 1);
  EXPECT_LE(s.wait_ms, 10);
}

TEST(CSnowflakeRule, BeforeEpochIsRefused) {
  const auto p = prepare("twitter", 0);
  idforge_snowflake_step s{};
  idforge_snowflake_step_next(&p, 0, IDFORGE_NO_UNIX_MS, 1000, 1000, 5000, &s);
  EXPECT_EQ(s.kind, IDFORGE_STEP_BEFORE_EPOCH);
}

TEST(CMarkFile, ParsesTheOldOneLineForm) {
  std::int64_t v = 0, node = 0;
  idforge_mark_origin origin{5, 5, 5};
  char spec[256] = "x";
  EXPECT_EQ(idforge_snowflake_mark_parse("1764547200000\n", 14, &v, spec, &node, &origin),
            IDFORGE_OK);
  EXPECT_EQ(v, 1764547200000);
  EXPECT_EQ(spec[0], '\0');  // no layout recorded
  EXPECT_EQ(node, -1);
  EXPECT_EQ(origin.system_id, 0U);  // nor where
  EXPECT_EQ(origin.timeline, 0U);
  for (const char* bad : {"", "\n", "12x\n", "-5\n", "1 2\n"}) {
    EXPECT_NE(idforge_snowflake_mark_parse(bad, std::strlen(bad), &v, spec, &node, &origin),
              IDFORGE_OK)
        << bad;
    EXPECT_NE(std::string(idforge_last_error()).find("not a Unix time"), std::string::npos);
  }
}

// The mark file records layout and node beside the mark, and reads them back.
TEST(CMarkFile, RecordsLayoutAndNodeAndReadsThemBack) {
  const auto p = prepare("discord", 9);
  char text[256 + 64];
  const int n = format_mark(p, 1764547200999, nullptr, text, sizeof(text));
  ASSERT_GT(n, 0);
  EXPECT_NE(std::string(text).find("layout " + idforge::parse_layout("discord").to_spec()),
            std::string::npos)
      << text;
  std::int64_t v = 0, node = -1;
  idforge_mark_origin origin{5, 5, 5};
  char spec[256] = "";
  ASSERT_EQ(
      idforge_snowflake_mark_parse(text, static_cast<std::size_t>(n), &v, spec, &node, &origin),
      IDFORGE_OK)
      << idforge_last_error();
  EXPECT_EQ(origin.system_id, 0U);  // no origin given: none written, read as unknown
  EXPECT_EQ(origin.timeline, 0U);
  EXPECT_EQ(v, 1764547200999);
  EXPECT_EQ(node, 9);
  EXPECT_EQ(idforge_layout_same(spec, "discord"), 1);
  EXPECT_EQ(idforge_layout_same(spec, "twitter"), 0);
  // twitter with its epoch 5 s later is another layout: its IDs collide with twitter's.
  const std::string shifted =
      "time=41,dc=5,worker=5,seq=12,epoch=" + std::to_string(1288834974657 + 5000);
  EXPECT_EQ(idforge_layout_same("twitter", shifted.c_str()), 0);
  EXPECT_EQ(idforge_layout_same("twitter", "twitter"), 1);
  for (const char* bad : {"5\nlayout \nnode 1\n", "5\nlayout twitter\nnode x\n",
                          "1\nlayout \xff\xfe\nnode 1\n", "1\nlayout time=99\nnode 1\n",
                          "5\nlayout twitter\n", "5\nlayout twitter\nnode 1\nextra\n"}) {
    EXPECT_NE(idforge_snowflake_mark_parse(bad, std::strlen(bad), &v, spec, &node, &origin),
              IDFORGE_OK)
        << bad;
  }
}

// The mark records the database system and timeline it was written on (a promoted standby or
// a restored backup carries the file to another timeline), and reads them back; the form
// without them is an unknown origin, and half of them, a zero or a sign is refused.
TEST(CMarkFile, RecordsSystemAndTimelineAndReadsThemBack) {
  const auto p = prepare("twitter", 7);
  const idforge_mark_origin written{7301234567890123456ULL, 2, 0};
  char text[256 + 128];
  const int n = format_mark(p, 1764547200999, &written, text, sizeof(text));
  ASSERT_GT(n, 0);
  EXPECT_NE(std::string(text).find("\nnode 7\nsystem 7301234567890123456\ntimeline 2\n"),
            std::string::npos)
      << text;
  std::int64_t v = 0, node = -1;
  idforge_mark_origin origin{0, 0, 5};
  char spec[256] = "";
  ASSERT_EQ(
      idforge_snowflake_mark_parse(text, static_cast<std::size_t>(n), &v, spec, &node, &origin),
      IDFORGE_OK)
      << idforge_last_error();
  EXPECT_EQ(v, 1764547200999);
  EXPECT_EQ(node, 7);
  EXPECT_EQ(origin.system_id, written.system_id);
  EXPECT_EQ(origin.timeline, written.timeline);
  EXPECT_EQ(idforge_layout_same(spec, "twitter"), 1);
  const std::string head = "5\nlayout " + std::string(p.spec) + "\nnode 7\n";
  for (const std::string tail :
       {"system 1\n", "system 1\ntimeline x\n", "system 0\ntimeline 1\n", "system 1\ntimeline 0\n",
        "system -1\ntimeline 1\n", "system 1\ntimeline +1\n", "timeline 1\nsystem 1\n",
        "system 1\ntimeline 4294967296\n", "system 18446744073709551616\ntimeline 1\n"}) {
    const std::string bad = head + tail;
    EXPECT_NE(idforge_snowflake_mark_parse(bad.data(), bad.size(), &v, spec, &node, &origin),
              IDFORGE_OK)
        << bad;
    EXPECT_NE(std::string(idforge_last_error()).find("not a system identifier and a timeline"),
              std::string::npos)
        << idforge_last_error();
  }
  EXPECT_EQ(origin.backup_id, 0U);  // none written: none read
}

// A data directory started from a base backup records that backup beside system and timeline
// (a copy started as is stays on the old primary's timeline): read back, and refused when it
// is 0, malformed or not the last line.
TEST(CMarkFile, RecordsTheBaseBackupAndReadsItBack) {
  const auto p = prepare("twitter", 7);
  const idforge_mark_origin written{7301234567890123456ULL, 1, 99887766554433ULL};
  char text[256 + 128];
  const int n = format_mark(p, 1764547200999, &written, text, sizeof(text));
  ASSERT_GT(n, 0);
  EXPECT_NE(std::string(text).find("\ntimeline 1\nbackup 99887766554433\n"), std::string::npos)
      << text;
  std::int64_t v = 0, node = -1;
  idforge_mark_origin origin{0, 0, 0};
  char spec[256] = "";
  ASSERT_EQ(
      idforge_snowflake_mark_parse(text, static_cast<std::size_t>(n), &v, spec, &node, &origin),
      IDFORGE_OK)
      << idforge_last_error();
  EXPECT_EQ(origin.backup_id, written.backup_id);
  EXPECT_EQ(origin.timeline, 1U);
  const std::string head = "5\nlayout " + std::string(p.spec) + "\nnode 7\nsystem 1\ntimeline 1\n";
  for (const std::string tail : {"backup 0\n", "backup x\n", "backup -1\n", "backup 1\nextra\n",
                                 "extra\n", "backup 18446744073709551616\n"}) {
    const std::string bad = head + tail;
    EXPECT_EQ(idforge_snowflake_mark_parse(bad.data(), bad.size(), &v, spec, &node, &origin),
              IDFORGE_E_PARSE_ERROR)
        << bad;
    EXPECT_NE(std::string(idforge_last_error()).find("base backup"), std::string::npos)
        << idforge_last_error();
  }
}

TEST(CUuid7At, CarriesTimeAndSubMillisecondFractionAndRefusesTimesOutsideTheField) {
  idforge_uuid u{};
  ASSERT_EQ(idforge_uuid7_at(kNow, 500'000, &u), IDFORGE_OK);
  idforge::Uuid::Bytes bytes;
  std::memcpy(bytes.data(), u.bytes, 16);
  const idforge::Uuid v(bytes);
  EXPECT_EQ(v.version(), 7);
  EXPECT_EQ(v.high() >> 16, static_cast<std::uint64_t>(kNow));
  EXPECT_EQ(v.high() & 0xFFF, 2048u);  // half a millisecond = 2048 / 4096
  EXPECT_EQ(idforge_uuid7_at(-1, 0, &u), IDFORGE_E_INVALID_ARGUMENT);
  EXPECT_NE(std::string(idforge_last_error()).find("-1"), std::string::npos);
  EXPECT_EQ(idforge_uuid7_at(std::int64_t{1} << 48, 0, &u), IDFORGE_E_INVALID_ARGUMENT);
  EXPECT_EQ(idforge_uuid7_at(kNow, 1'000'000, &u), IDFORGE_E_INVALID_ARGUMENT);
  EXPECT_NE(std::string(idforge_last_error()).find("1000000"), std::string::npos);
  EXPECT_EQ(idforge_uuid7_at(kNow, 0, nullptr), IDFORGE_E_INVALID_ARGUMENT);
}

TEST(CTypeIdFormat, IncreasesWithItsUuidAndChecksThePrefix) {
  idforge_uuid u1{}, u2{};
  ASSERT_EQ(idforge_make_uuid7(&u1), IDFORGE_OK);
  ASSERT_EQ(idforge_make_uuid7(&u2), IDFORGE_OK);
  char t1[IDFORGE_TYPEID_TEXT_SIZE], t2[IDFORGE_TYPEID_TEXT_SIZE];
  ASSERT_EQ(idforge_typeid_format("user", 4, &u1, t1, sizeof(t1)), IDFORGE_OK)
      << idforge_last_error();
  ASSERT_EQ(idforge_typeid_format("user", 4, &u2, t2, sizeof(t2)), IDFORGE_OK);
  EXPECT_EQ(std::string(t1).substr(0, 5), "user_");
  EXPECT_LT(std::string(t1), std::string(t2));
  EXPECT_TRUE(idforge::TypeId::try_parse(t1).has_value());
  ASSERT_EQ(idforge_typeid_format("", 0, &u1, t1, sizeof(t1)), IDFORGE_OK);  // no prefix
  EXPECT_EQ(std::strlen(t1), 26u);
  EXPECT_EQ(idforge_typeid_format("User", 4, &u1, t1, sizeof(t1)), IDFORGE_E_PARSE_ERROR);
  EXPECT_NE(std::string(idforge_last_error()).find("User"), std::string::npos)
      << idforge_last_error();
  const std::string long_prefix(63, 'a');
  char small[40];
  EXPECT_EQ(
      idforge_typeid_format(long_prefix.data(), long_prefix.size(), &u1, small, sizeof(small)),
      IDFORGE_E_BUFFER_TOO_SMALL);
  ASSERT_EQ(idforge_typeid_format(long_prefix.data(), long_prefix.size(), &u1, t1, sizeof(t1)),
            IDFORGE_OK);
  EXPECT_EQ(std::strlen(t1), 90u);
}

}  // namespace
