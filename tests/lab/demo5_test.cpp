// Seed 003's Demo 5: 12 keys, 4 keys a leaf.
#include <gtest/gtest.h>

#include "idforge/lab/sim_run.hpp"

namespace idforge::lab {
namespace {

DemoRun demo_for(KeyKind kind, std::uint64_t seed = DemoOptions{}.seed) {
  DemoOptions o;
  o.kinds = {kind};
  o.seed = seed;
  return run_demo(o).at(0);
}

TEST(Demo5, Uuid7EndsWithThreeFullLeavesTwoSplitsSixteenPageWrites) {
  const DemoRun r = demo_for(KeyKind::uuid7);
  EXPECT_EQ(r.stats.leaves, 3u);
  EXPECT_EQ(r.stats.leaf_splits, 2u);
  EXPECT_EQ(r.stats.splits(), 2u);
  EXPECT_EQ(r.stats.page_writes, 16u);
  EXPECT_DOUBLE_EQ(r.stats.leaf_fill, 1.0);
  ASSERT_EQ(r.leaves.size(), 3u);
  // Keys 1-4, 5-8, 9-12 in creation order, one page after another.
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(r.leaves[p].created.at(i), p * 4 + i + 1);
}

TEST(Demo5, SnowflakeBehavesLikeUuid7) {
  const DemoRun r = demo_for(KeyKind::snowflake);
  EXPECT_EQ(r.stats.leaves, 3u);
  EXPECT_EQ(r.stats.splits(), 2u);
  EXPECT_EQ(r.stats.page_writes, 16u);
}

TEST(Demo5, Uuid4SplitsMoreAndFillsLess) {
  const DemoRun r = demo_for(KeyKind::uuid4);
  EXPECT_GT(r.stats.leaves, 3u);
  EXPECT_GT(r.stats.splits(), 2u);
  EXPECT_EQ(r.stats.page_writes, 12u + 2 * r.stats.splits());
  EXPECT_LT(r.stats.leaf_fill, 1.0);
  EXPECT_DOUBLE_EQ(r.stats.leaf_fill, 12.0 / (4.0 * static_cast<double>(r.stats.leaves)));
}

TEST(Demo5, SameSeedSameTreeOtherSeedOtherKeys) {
  const DemoRun a = demo_for(KeyKind::uuid4, 7), b = demo_for(KeyKind::uuid4, 7);
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(a.stats.page_writes, b.stats.page_writes);
  ASSERT_EQ(a.leaves.size(), b.leaves.size());
  for (std::size_t i = 0; i < a.leaves.size(); ++i)
    EXPECT_EQ(a.leaves[i].created, b.leaves[i].created);
  EXPECT_NE(demo_for(KeyKind::uuid4, 8).keys, a.keys);
}

TEST(Demo5, LeavesHoldEveryCreationNumberOnce) {
  const DemoRun r = demo_for(KeyKind::uuid4);
  std::vector<std::uint64_t> seen;
  for (const auto& leaf : r.leaves)
    seen.insert(seen.end(), leaf.created.begin(), leaf.created.end());
  std::sort(seen.begin(), seen.end());
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1);
  EXPECT_EQ(seen.size(), 12u);
}

}  // namespace
}  // namespace idforge::lab
