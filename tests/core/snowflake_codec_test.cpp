// compose/decompose and the seed's worked examples.
#include <gtest/gtest.h>

#include "expect_errc.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake.hpp"

namespace idforge {
namespace {

TEST(SnowflakeCodec, SeedFormulaElapsedShiftWorkerSequence) {
  // id = (elapsed_ms << 22) | (worker_id << 12) | seq
  const Layout l = presets::twitter();
  for (std::uint64_t elapsed : {0ull, 1ull, 120001ull, 350000000000ull, (1ull << 41) - 1})
    for (std::uint64_t worker : {0ull, 5ull, 6ull, 1023ull})
      for (std::uint64_t seq : {0ull, 1ull, 4095ull})
        EXPECT_EQ(compose(l, {elapsed, 0, 0, 0, worker, seq}).value(),
                  (elapsed << 22) | (worker << 12) | seq);
}

TEST(SnowflakeCodec, ServersFiveAndSixInTheSameMillisecondDiffer) {
  const Layout l = presets::twitter();
  const Snowflake a = compose(l, {120001, 0, 0, 0, 5, 1});
  const Snowflake b = compose(l, {120001, 0, 0, 0, 6, 1});
  const Snowflake c = compose(l, {120002, 0, 0, 0, 5, 1});
  EXPECT_NE(a, b);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);  // one millisecond later is larger, whatever the server
  EXPECT_EQ(decompose(l, a).node, 5u);
  EXPECT_EQ(decompose(l, b).node, 6u);
  EXPECT_EQ(decompose(l, a).tick, decompose(l, b).tick);
}

TEST(SnowflakeCodec, ByteViewOfTheSeedsOrderId) {
  const Snowflake id(1468006400000151552ull);
  const std::uint8_t want[8] = {0x14, 0x5f, 0x68, 0x0b, 0x00, 0x02, 0x50, 0x00};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ((id.value() >> (56 - 8 * i)) & 0xff, want[i]) << "byte " << i + 1;
  const SnowflakeParts p = decompose(presets::twitter(), id);
  EXPECT_EQ(p.tick, 350'000'000'000u);
  EXPECT_EQ(p.unix_ms, 1288834974657 + 350'000'000'000);
  EXPECT_EQ(p.datacenter, 1u);
  EXPECT_EQ(p.worker, 5u);
  EXPECT_EQ(p.node, 37u);
  EXPECT_EQ(p.sequence, 0u);
}

TEST(SnowflakeCodec, SeedOrderTableSnowflakesAreOneMillisecondApart) {
  const Layout l = presets::twitter();
  const std::uint64_t ids[] = {1468006400000151552ull, 1468006400004345856ull,
                               1468006400008540160ull};
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(decompose(l, Snowflake(ids[i])).tick, decompose(l, Snowflake(ids[i - 1])).tick + 1);
    EXPECT_EQ(decompose(l, Snowflake(ids[i])).node, 37u);
  }
}

TEST(SnowflakeCodec, RoundTripsEveryPresetAtFieldExtremes) {
  for (const Layout& l : {presets::twitter(), presets::discord(), presets::sonyflake(),
                          presets::instagram(), presets::baidu()}) {
    SCOPED_TRACE(l.name());
    for (std::uint64_t tick : {std::uint64_t{0}, std::uint64_t{12345}, l.max_tick()})
      for (std::uint64_t node : {std::uint64_t{0}, l.node_count() - 1})
        for (std::uint64_t seq : {std::uint64_t{0}, l.ids_per_tick() - 1}) {
          SnowflakeParts p{tick, 0, 0, 0, node, seq};
          const SnowflakeParts back = decompose(l, compose(l, p));
          EXPECT_EQ(back.tick, tick);
          EXPECT_EQ(back.node, node);
          EXPECT_EQ(back.sequence, seq);
          EXPECT_EQ(back.unix_ms, l.epoch_ms() + static_cast<std::int64_t>(tick) * l.tick_ms());
        }
  }
}

TEST(SnowflakeCodec, ComposeRefusesFieldsThatDoNotFit) {
  const Layout l = presets::twitter();
  EXPECT_THROW(compose(l, {1ull << 41, 0, 0, 0, 0, 0}), Error);
  EXPECT_THROW(compose(l, {0, 0, 0, 0, 1024, 0}), Error);
  EXPECT_THROW(compose(l, {0, 0, 0, 0, 0, 4096}), Error);
}

TEST(SnowflakeCodec, SignedLayoutRefusesTopBit) {
  EXPECT_ERRC(decompose(presets::twitter(), Snowflake(1ull << 63)), errc::invalid_argument,
              "sign bit");
  EXPECT_NO_THROW(decompose(presets::discord(), Snowflake(1ull << 63)));
}

}  // namespace
}  // namespace idforge
