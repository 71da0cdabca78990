// Key sources: the seeded models repeat and have the right shape; core's real generators
// give time-ordered keys for the ordered kinds.
#include <gtest/gtest.h>

#include "idforge/error.hpp"
#include "idforge/lab/key_source.hpp"

namespace idforge::lab {
namespace {

TEST(KeySources, ModelsRepeatForASeedAndOrderedKindsOnlyGrow) {
  for (KeyKind k : all_key_kinds()) {
    auto a = make_model_key_source(k, {.seed = 5, .keys_per_ms = 3});
    auto b = make_model_key_source(k, {.seed = 5, .keys_per_ms = 3});
    Key128 prev{};
    for (int i = 0; i < 1000; ++i) {
      const Key128 x = a->next();
      EXPECT_EQ(x, b->next());
      if (info(k).time_ordered && i > 0) EXPECT_LT(prev, x) << info(k).name;
      prev = x;
    }
  }
}

TEST(KeySources, ModelUuidsCarryVersionAndVariant) {
  auto v7 = make_model_key_source(KeyKind::uuid7), v4 = make_model_key_source(KeyKind::uuid4);
  for (int i = 0; i < 100; ++i) {
    const Key128 a = v7->next(), b = v4->next();
    EXPECT_EQ((a.hi >> 12) & 0xf, 7u);
    EXPECT_EQ((b.hi >> 12) & 0xf, 4u);
    EXPECT_EQ(a.lo >> 62, 2u);
    EXPECT_EQ(b.lo >> 62, 2u);
  }
}

TEST(KeySources, RealGeneratorsGiveOrderedKeysForOrderedKinds) {
  for (KeyKind k : {KeyKind::snowflake, KeyKind::uuid7, KeyKind::ulid}) {
    auto s = make_real_key_source(k);
    Key128 prev = s->next();
    for (int i = 0; i < 10000; ++i) {
      const Key128 x = s->next();
      EXPECT_LT(prev, x) << info(k).name;
      prev = x;
    }
  }
  auto v4 = make_real_key_source(KeyKind::uuid4);
  EXPECT_NE(v4->next(), v4->next());
}

TEST(KeySources, KindNamesParseAndBadNamesAreNamed) {
  EXPECT_EQ(parse_key_kinds("snowflake,uuid4text").size(), 2u);
  EXPECT_EQ(parse_key_kinds("all").size(), 5u);
  EXPECT_EQ(parse_key_kind("uuid4-text"), KeyKind::uuid4_text);
  EXPECT_THROW(parse_key_kinds("uuid7,,uuid4"), Error);
}

}  // namespace
}  // namespace idforge::lab
