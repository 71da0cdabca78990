#include "idforge/snowflake_layout.hpp"

#include <gtest/gtest.h>

#include "expect_errc.hpp"
#include "idforge/error.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kNow = 1'800'000'000'000;  // 2027-01-15

TEST(SnowflakeLayout, TwitterPresetMatchesTheSeed) {
  const Layout l = presets::twitter();
  EXPECT_EQ(l.time_bits(), 41);
  EXPECT_EQ(l.datacenter_bits(), 5);
  EXPECT_EQ(l.worker_bits(), 5);
  EXPECT_EQ(l.sequence_bits(), 12);
  EXPECT_EQ(l.epoch_ms(), 1288834974657);
  EXPECT_TRUE(l.is_signed());
  EXPECT_EQ(l.time_shift(), 22);
  EXPECT_EQ(l.node_shift(), 12);
  EXPECT_EQ(l.sequence_shift(), 0);
}

TEST(SnowflakeLayout, PresetsHaveTheirPublishedShapes) {
  struct Row {
    Layout l;
    int time, dc, worker, seq;
    std::int64_t tick, epoch;
    bool is_signed;
    FieldOrder order;
  };
  const Row rows[] = {
      {presets::discord(), 42, 5, 5, 12, 1, 1420070400000, false, FieldOrder::time_node_sequence},
      {presets::sonyflake(), 39, 0, 16, 8, 10, 1409529600000, true, FieldOrder::time_sequence_node},
      {presets::instagram(), 41, 0, 13, 10, 1, 1314220021721, false,
       FieldOrder::time_node_sequence},
      {presets::baidu(), 28, 0, 22, 13, 1000, 1463702400000, true, FieldOrder::time_node_sequence},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.l.name());
    EXPECT_EQ(r.l.time_bits(), r.time);
    EXPECT_EQ(r.l.datacenter_bits(), r.dc);
    EXPECT_EQ(r.l.worker_bits(), r.worker);
    EXPECT_EQ(r.l.sequence_bits(), r.seq);
    EXPECT_EQ(r.l.tick_ms(), r.tick);
    EXPECT_EQ(r.l.epoch_ms(), r.epoch);
    EXPECT_EQ(r.l.is_signed(), r.is_signed);
    EXPECT_EQ(r.l.order(), r.order);
  }
}

TEST(SnowflakeLayout, SonyflakePutsSequenceAboveMachine) {
  const Layout l = presets::sonyflake();
  EXPECT_EQ(l.node_shift(), 0);
  EXPECT_EQ(l.sequence_shift(), 16);
  EXPECT_EQ(l.time_shift(), 24);
}

struct BadLayout {
  const char* what;
  LayoutFields fields;
  errc code;
  const char* message_part;
};

TEST(SnowflakeLayout, RefusesImpossibleLayoutsNamingTheNumbers) {
  LayoutFields base;
  auto with = [&](auto edit) {
    LayoutFields f = base;
    edit(f);
    return f;
  };
  const BadLayout cases[] = {
      {"63 + 1", with([](auto& f) { f.sequence_bits = 13; }), errc::invalid_layout,
       "time 41 + datacenter 5 + worker 5 + sequence 13 = 64"},
      {"short", with([](auto& f) { f.time_bits = 40; }), errc::invalid_layout, "= 62"},
      {"unsigned 63", with([](auto& f) { f.is_signed = false; }), errc::invalid_layout,
       "but an unsigned layout has 64 bits"},
      {"negative", with([](auto& f) { f.worker_bits = -1; }), errc::invalid_layout,
       "worker bits is -1, must be 0..31"},
      {"tick 0", with([](auto& f) { f.tick_ms = 0; }), errc::invalid_layout, "tick (ms) is 0"},
      {"epoch future", with([](auto& f) { f.epoch_ms = kNow + 1; }), errc::epoch_in_future,
       "is after now"},
      {"epoch negative", with([](auto& f) { f.epoch_ms = -5; }), errc::invalid_layout,
       "epoch -5 ms"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_ERRC(Layout::make(c.fields, kNow), c.code, c.message_part);
  }
}

TEST(SnowflakeLayout, NodeOutOfRangeNamesTheRange) {
  const Layout l = presets::twitter();
  EXPECT_EQ(l.node_of(1, 5), 37u);
  EXPECT_ERRC(l.check_node(1024), errc::node_out_of_range, "0..1023");
  EXPECT_THROW(l.node_of(32, 0), Error);
  EXPECT_THROW(l.node_of(0, 32), Error);
}

TEST(SnowflakeLayout, SpecParsesKeysAndPresetOverrides) {
  const Layout l =
      parse_layout("time=41,dc=0,worker=10,seq=12,tick=1ms,epoch=2020-01-01T00:00:00Z", kNow);
  EXPECT_EQ(l.worker_bits(), 10);
  EXPECT_EQ(l.epoch_ms(), 1577836800000);
  const Layout d = parse_layout("discord,epoch=1500000000000", kNow);
  EXPECT_EQ(d.time_bits(), 42);
  EXPECT_EQ(d.epoch_ms(), 1500000000000);
  EXPECT_EQ(d.name(), "discord-custom");
  EXPECT_EQ(parse_layout("twitter", kNow), presets::twitter());
  EXPECT_EQ(
      parse_layout("time=39,node=16,seq=8,tick=10,order=time-seq-node,epoch=1409529600000", kNow),
      presets::sonyflake());
  EXPECT_EQ(parse_layout("time=28,node=22,seq=13,tick=1s,epoch=2016-05-20", kNow),
            presets::baidu());
}

TEST(SnowflakeLayout, SpecRoundTripsThroughToSpec) {
  for (const auto& name : presets::names()) {
    const Layout l = parse_layout(name, kNow);
    EXPECT_EQ(parse_layout(l.to_spec(), kNow), l) << name;
  }
}

TEST(SnowflakeLayout, SpecErrorsGivePositions) {
  struct Case {
    const char* spec;
    std::size_t pos;
  };
  const Case cases[] = {{"twiter", 0},
                        {"time=4x1", 6},
                        {"twitter,colour=red", 8},
                        {"twitter,,seq=1", 8},
                        {"order=sideways", 6},
                        {"epoch=2020-13-01", 11},
                        {"", 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec);
    try {
      parse_layout(c.spec, kNow);
      ADD_FAILURE() << "accepted";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), c.pos) << e.what();
    }
  }
}

TEST(SnowflakeLayout, ANegativeEpochSaysTheEpochMustBeFrom1970) {
  try {
    parse_layout("twitter,epoch=-1", kNow);
    ADD_FAILURE() << "accepted";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.position(), 14u) << e.what();
    EXPECT_NE(std::string(e.what()).find("epoch must be a date from 1970-01-01 on"),
              std::string::npos)
        << e.what();
  }
}

TEST(SnowflakeLayout, DescribeTwitter) {
  const LayoutFacts f = describe(presets::twitter());
  EXPECT_EQ(f.nodes, 1024u);
  EXPECT_EQ(f.ids_per_tick, 4096u);
  EXPECT_DOUBLE_EQ(f.max_ids_per_second, 4'096'000.0);
  EXPECT_EQ(f.time_runs_out_ms, 1288834974657 + (std::int64_t{1} << 41));
  EXPECT_NEAR(f.years_of_time, 69.7, 0.05);
  // 2^53 / 2^22 = 2^31 ms after the epoch (about 24.9 days).
  EXPECT_EQ(f.js_safe_until_ms, 1288834974657 + (std::int64_t{1} << 31));
}

TEST(SnowflakeLayout, DescribeSonyflakeUsesTenMsTicks) {
  const LayoutFacts f = describe(presets::sonyflake());
  EXPECT_EQ(f.nodes, 65536u);
  EXPECT_DOUBLE_EQ(f.max_ids_per_second, 25'600.0);
  EXPECT_NEAR(f.years_of_time, 174.2, 0.1);
}

// Found by the layout_spec fuzz target: "tick=1201333333333333331s" multiplied seconds into
// milliseconds with signed overflow before the one-day limit was checked.
TEST(SnowflakeLayout, AHugeTickInSecondsIsRefusedWithoutOverflow) {
  for (const char* spec : {"twitter,tick=1201333333333333331s", "twitter,tick=9223372036854776s",
                           "twitter,tick=-9223372036854776s"}) {
    SCOPED_TRACE(spec);
    try {
      parse_layout(spec, kNow);
      ADD_FAILURE() << "accepted";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), 13u) << e.what();
      EXPECT_NE(std::string(e.what()).find("tick must be from 1 ms"), std::string::npos)
          << e.what();
    }
  }
}

// A width beyond int used to narrow silently: 4294967360 is 64 modulo 2^32.
TEST(SnowflakeLayout, AFieldWidthBeyondSixtyFourIsRefusedNotNarrowed) {
  for (const char* spec : {"time=4294967360,node=0,seq=0", "twitter,seq=4294967308",
                           "twitter,worker=-4294967286", "twitter,dc=65"}) {
    SCOPED_TRACE(spec);
    try {
      parse_layout(spec, kNow);
      ADD_FAILURE() << "accepted";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("field width from 0 to 64 bits"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace idforge
