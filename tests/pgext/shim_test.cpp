// The PostgreSQL extension's C++ shim, without PostgreSQL: the Snowflake step on state the
// caller keeps (shared memory in the server), the durable mark, and the encoders.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "idforge/inspect.hpp"
#include "idforge/snowflake.hpp"
#include "idforge/snowflake_layout.hpp"
#include "idforge/typeid.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"
#include "idforge_pg_shim.h"

namespace {

constexpr std::int64_t kNow = 1'764'547'200'000;  // 2025-12-01T00:00:00Z

idf_sf_params prepare(const char* spec, std::int64_t node) {
  idf_sf_params p{};
  char err[IDF_ERR_SIZE] = "";
  EXPECT_EQ(idf_sf_prepare(spec, node, kNow, &p, err), 0) << err;
  return p;
}

TEST(PgShimSnowflake, PrepareRejectsBadLayoutAndNodeNamingThem) {
  idf_sf_params p{};
  char err[IDF_ERR_SIZE] = "";
  EXPECT_EQ(idf_sf_prepare("twiter", 0, kNow, &p, err), -1);
  EXPECT_NE(std::string(err).find("twiter"), std::string::npos) << err;
  EXPECT_EQ(idf_sf_prepare("twitter", 1024, kNow, &p, err), -1);
  EXPECT_NE(std::string(err).find("1024"), std::string::npos) << err;
  EXPECT_EQ(idf_sf_prepare("twitter", -1, kNow, &p, err), -1);
  EXPECT_NE(std::string(err).find("-1"), std::string::npos) << err;
  EXPECT_EQ(idf_sf_prepare("time=41,dc=5,worker=5,seq=13", 0, kNow, &p, err), -1);
}

// The shim composes IDs from shifts; core's compose() is the reference, for every preset.
TEST(PgShimSnowflake, IdsMatchCoreCompositionForEveryPreset) {
  for (const auto& name : idforge::presets::names()) {
    const auto layout = idforge::parse_layout(name, kNow);
    if (idforge::describe(layout).time_runs_out_ms <= kNow) continue;  // baidu: ran out in 2024
    const auto node = layout.node_count() - 1;
    const auto p = prepare(name.c_str(), static_cast<std::int64_t>(node));
    idf_sf_step s{};
    idf_sf_next(&p, 0, IDF_NO_UNIX_MS, kNow, 1000, 5000, &s);
    ASSERT_EQ(s.kind, IDF_SF_ISSUE) << name;
    const auto parts =
        idforge::decompose(layout, idforge::Snowflake(static_cast<std::uint64_t>(s.id)));
    EXPECT_EQ(parts.node, node) << name;
    EXPECT_EQ(parts.sequence, 0u) << name;
    EXPECT_LE(parts.unix_ms, kNow) << name;
    EXPECT_GT(parts.unix_ms + layout.tick_ms(), kNow) << name;
  }
}

TEST(PgShimSnowflake, StrictlyIncreasingAndMarkWrittenOncePerWindow) {
  const auto p = prepare("twitter", 7);
  std::uint64_t stamp = 0;
  std::int64_t mark = IDF_NO_UNIX_MS, last_id = -1;
  int mark_writes = 0;
  for (std::int64_t now = kNow; now < kNow + 5000; now += 1) {
    for (int i = 0; i < 3; ++i) {
      idf_sf_step s{};
      idf_sf_next(&p, stamp, mark, now, 1000, 5000, &s);
      ASSERT_EQ(s.kind, IDF_SF_ISSUE);
      ASSERT_GT(s.id, last_id);
      if (s.new_mark_ms != IDF_NO_UNIX_MS) {
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
TEST(PgShimSnowflake, ResumeAfterMarkNeverRepeatsWithClockBehind) {
  const auto p = prepare("twitter", 1);
  const std::int64_t mark = kNow + 2000;
  const std::uint64_t stamp = idf_sf_resume_stamp(&p, mark);
  idf_sf_step s{};
  idf_sf_next(&p, stamp, mark, kNow, 1000, 5000, &s);
  EXPECT_EQ(s.kind, IDF_SF_WAIT);
  EXPECT_EQ(s.wait_ms, 2001);
  EXPECT_EQ(s.behind_ms, 2000);
  idf_sf_next(&p, stamp, mark, kNow, 1000, 1000, &s);
  EXPECT_EQ(s.kind, IDF_SF_BEHIND);
  EXPECT_EQ(s.behind_ms, 2000);
  idf_sf_next(&p, stamp, mark, mark + 1, 1000, 1000, &s);
  ASSERT_EQ(s.kind, IDF_SF_ISSUE);
  EXPECT_GT(idforge::decompose(idforge::presets::twitter(),
                               idforge::Snowflake(static_cast<std::uint64_t>(s.id)))
                .unix_ms,
            mark);
  EXPECT_EQ(idf_sf_resume_stamp(&p, IDF_NO_UNIX_MS), 0u);
}

TEST(PgShimSnowflake, FullTickWaitsForTheNext) {
  const auto p = prepare("time=52,dc=0,worker=10,seq=1,tick=10ms", 0);
  std::uint64_t stamp = 0;
  std::int64_t mark = IDF_NO_UNIX_MS;
  idf_sf_step s{};
  for (int i = 0; i < 2; ++i) {
    idf_sf_next(&p, stamp, mark, kNow, 1000, 5000, &s);
    ASSERT_EQ(s.kind, IDF_SF_ISSUE);
    stamp = s.stamp;
    if (s.new_mark_ms != IDF_NO_UNIX_MS) mark = s.new_mark_ms;
  }
  idf_sf_next(&p, stamp, mark, kNow, 1000, 5000, &s);
  EXPECT_EQ(s.kind, IDF_SF_WAIT);
  EXPECT_GE(s.wait_ms, 1);
  EXPECT_LE(s.wait_ms, 10);
}

TEST(PgShimSnowflake, BeforeEpochIsRefused) {
  const auto p = prepare("twitter", 0);
  idf_sf_step s{};
  idf_sf_next(&p, 0, IDF_NO_UNIX_MS, 1000, 1000, 5000, &s);
  EXPECT_EQ(s.kind, IDF_SF_BEFORE_EPOCH);
}

TEST(PgShimMark, ParsesTheOldOneLineForm) {
  std::int64_t v = 0, node = 0;
  idf_sf_origin origin{5, 5};
  char spec[IDF_SPEC_SIZE] = "x";
  char err[IDF_ERR_SIZE] = "";
  EXPECT_EQ(idf_sf_parse_mark("1764547200000\n", 14, &v, spec, &node, &origin, err), 0);
  EXPECT_EQ(v, 1764547200000);
  EXPECT_EQ(spec[0], '\0');  // no layout recorded
  EXPECT_EQ(node, -1);
  EXPECT_EQ(origin.system_id, 0U);  // nor where
  EXPECT_EQ(origin.timeline, 0U);
  for (const char* bad : {"", "\n", "12x\n", "-5\n", "1 2\n"}) {
    EXPECT_EQ(idf_sf_parse_mark(bad, std::strlen(bad), &v, spec, &node, &origin, err), -1) << bad;
    EXPECT_NE(std::string(err).find("not a Unix time"), std::string::npos);
  }
}

// The mark file records layout and node beside the mark, and reads them back.
TEST(PgShimMark, RecordsLayoutAndNodeAndReadsThemBack) {
  const auto p = prepare("discord", 9);
  char text[IDF_SPEC_SIZE + 64];
  const int n = idf_sf_format_mark(&p, 1764547200999, nullptr, text, sizeof(text));
  ASSERT_GT(n, 0);
  EXPECT_NE(std::string(text).find("layout " + idforge::parse_layout("discord").to_spec()),
            std::string::npos)
      << text;
  std::int64_t v = 0, node = -1;
  idf_sf_origin origin{5, 5};
  char spec[IDF_SPEC_SIZE] = "";
  char err[IDF_ERR_SIZE] = "";
  ASSERT_EQ(idf_sf_parse_mark(text, static_cast<std::size_t>(n), &v, spec, &node, &origin, err), 0)
      << err;
  EXPECT_EQ(origin.system_id, 0U);  // no origin given: none written, read as unknown
  EXPECT_EQ(origin.timeline, 0U);
  EXPECT_EQ(v, 1764547200999);
  EXPECT_EQ(node, 9);
  EXPECT_EQ(idf_sf_same_layout(spec, "discord"), 1);
  EXPECT_EQ(idf_sf_same_layout(spec, "twitter"), 0);
  // twitter with its epoch 5 s later is another layout: its IDs collide with twitter's.
  const std::string shifted =
      "time=41,dc=5,worker=5,seq=12,epoch=" + std::to_string(1288834974657 + 5000);
  EXPECT_EQ(idf_sf_same_layout("twitter", shifted.c_str()), 0);
  EXPECT_EQ(idf_sf_same_layout("twitter", "twitter"), 1);
  for (const char* bad : {"5\nlayout \nnode 1\n", "5\nlayout twitter\nnode x\n",
                          "5\nlayout twitter\n", "5\nlayout twitter\nnode 1\nextra\n"}) {
    EXPECT_EQ(idf_sf_parse_mark(bad, std::strlen(bad), &v, spec, &node, &origin, err), -1) << bad;
  }
}

// The mark records the database system and timeline it was written on (a promoted standby or
// a restored backup carries the file to another timeline), and reads them back; the form
// without them is an unknown origin, and half of them, a zero or a sign is refused.
TEST(PgShimMark, RecordsSystemAndTimelineAndReadsThemBack) {
  const auto p = prepare("twitter", 7);
  const idf_sf_origin written{7301234567890123456ULL, 2};
  char text[IDF_SPEC_SIZE + 128];
  const int n = idf_sf_format_mark(&p, 1764547200999, &written, text, sizeof(text));
  ASSERT_GT(n, 0);
  EXPECT_NE(std::string(text).find("\nnode 7\nsystem 7301234567890123456\ntimeline 2\n"),
            std::string::npos)
      << text;
  std::int64_t v = 0, node = -1;
  idf_sf_origin origin{0, 0};
  char spec[IDF_SPEC_SIZE] = "";
  char err[IDF_ERR_SIZE] = "";
  ASSERT_EQ(idf_sf_parse_mark(text, static_cast<std::size_t>(n), &v, spec, &node, &origin, err), 0)
      << err;
  EXPECT_EQ(v, 1764547200999);
  EXPECT_EQ(node, 7);
  EXPECT_EQ(origin.system_id, written.system_id);
  EXPECT_EQ(origin.timeline, written.timeline);
  EXPECT_EQ(idf_sf_same_layout(spec, "twitter"), 1);
  const std::string head = "5\nlayout " + std::string(p.spec) + "\nnode 7\n";
  for (const std::string tail :
       {"system 1\n", "system 1\ntimeline x\n", "system 0\ntimeline 1\n", "system 1\ntimeline 0\n",
        "system -1\ntimeline 1\n", "system 1\ntimeline +1\n", "timeline 1\nsystem 1\n",
        "system 1\ntimeline 1\nextra\n", "system 1\ntimeline 4294967296\n",
        "system 18446744073709551616\ntimeline 1\n"}) {
    const std::string bad = head + tail;
    EXPECT_EQ(idf_sf_parse_mark(bad.data(), bad.size(), &v, spec, &node, &origin, err), -1) << bad;
    EXPECT_NE(std::string(err).find("not a system identifier and a timeline"), std::string::npos)
        << err;
  }
}

TEST(PgShimDecode, SnowflakeTimeUnderLayoutAndErrorNamesValue) {
  std::int64_t ms = 0;
  char err[IDF_ERR_SIZE] = "";
  // Twitter's documented example ID 1212161502634033152 (2019-12-31T23:59:59.xxxZ).
  ASSERT_EQ(idf_sf_unix_ms("twitter", 1212161502634033152, &ms, err), 0) << err;
  EXPECT_EQ(ms, 1288834974657 + (1212161502634033152 >> 22));
  EXPECT_EQ(idf_sf_unix_ms("nope", 1, &ms, err), -1);
  EXPECT_NE(std::string(err).find("nope"), std::string::npos) << err;
  EXPECT_EQ(idf_sf_unix_ms("twitter", -1, &ms, err), -1);  // signed layout, top bit set
}

TEST(PgShimUuid, V7CarriesTimeAndSubMillisecondFraction) {
  unsigned char b[16];
  char err[IDF_ERR_SIZE] = "";
  ASSERT_EQ(idf_uuidv7(kNow, 500'000, b, err), 0);
  idforge::Uuid::Bytes bytes;
  std::memcpy(bytes.data(), b, 16);
  const idforge::Uuid u(bytes);
  EXPECT_EQ(u.version(), 7);
  EXPECT_EQ(u.high() >> 16, static_cast<std::uint64_t>(kNow));
  EXPECT_EQ(u.high() & 0xFFF, 2048u);  // half a millisecond = 2048 / 4096
  EXPECT_EQ(idf_uuidv7(-1, 0, b, err), -1);
  EXPECT_NE(std::string(err).find("-1"), std::string::npos);
  idf_uuid4(b);
  std::memcpy(bytes.data(), b, 16);
  EXPECT_EQ(idforge::Uuid(bytes).version(), 4);
}

TEST(PgShimText, UlidAndTypeIdIncreaseAndPrefixIsChecked) {
  char a[27], b[27], err[IDF_ERR_SIZE] = "";
  ASSERT_EQ(idf_ulid(a, err), 0);
  ASSERT_EQ(idf_ulid(b, err), 0);
  EXPECT_EQ(std::strlen(a), 26u);
  EXPECT_LT(std::string(a), std::string(b));
  char t1[128], t2[128];
  ASSERT_EQ(idf_typeid("user", 4, t1, err), 0) << err;
  ASSERT_EQ(idf_typeid("user", 4, t2, err), 0) << err;
  EXPECT_EQ(std::string(t1).substr(0, 5), "user_");
  EXPECT_LT(std::string(t1), std::string(t2));
  EXPECT_TRUE(idforge::TypeId::try_parse(t1).has_value());
  EXPECT_EQ(idf_typeid("User", 4, t1, err), -1);
  EXPECT_NE(std::string(err).find("User"), std::string::npos) << err;
}

TEST(PgShimInspect, SameJsonAsCoreAndErrorsNameTheInput) {
  char err[IDF_ERR_SIZE] = "";
  const char* id = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  char* j = idf_inspect_json(id, std::strlen(id), "twitter", err);
  ASSERT_NE(j, nullptr) << err;
  const auto parsed = nlohmann::json::parse(j);
  std::free(j);
  EXPECT_EQ(parsed["kind"], "ulid");
  EXPECT_EQ(parsed["unix_ms"], 1469922850259);
  EXPECT_TRUE(parsed.contains("warning"));
  const char* bad = "not-an-id!";
  EXPECT_EQ(idf_inspect_json(bad, std::strlen(bad), "twitter", err), nullptr);
  EXPECT_NE(std::string(err).find("not-an-id!"), std::string::npos) << err;
}

}  // namespace
