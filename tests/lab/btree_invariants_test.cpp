// Simulator invariants after random workloads: keys sorted across leaves, every leaf within
// capacity, every key found, counts consistent.
#include <gtest/gtest.h>

#include <random>

#include "idforge/error.hpp"
#include "idforge/lab/btree_sim.hpp"
#include "idforge/lab/key_source.hpp"

namespace idforge::lab {
namespace {

struct Shape {
  std::uint32_t leaf, fanout;
  double rightmost_fill;
  std::uint64_t pool;
};

std::vector<Key128> mixed_keys(std::uint64_t seed, std::size_t n) {
  // Runs of ascending keys at the right edge interleaved with random ones: exercises both
  // split rules and the interior right-edge rule.
  std::mt19937_64 rng(seed);
  std::vector<Key128> keys;
  std::uint64_t next_high = 1ULL << 62;
  while (keys.size() < n) {
    if (rng() % 3 == 0) {
      for (int i = 0; i < 20 && keys.size() < n; ++i) keys.push_back({next_high++, rng()});
    } else {
      keys.push_back({rng() >> 2, rng()});
    }
  }
  return keys;
}

void expect_sound(const BTreeSim& tree, const std::vector<Key128>& keys) {
  const auto problems = tree.check();
  for (const auto& p : problems) ADD_FAILURE() << p;
  const auto leaves = tree.leaves();
  const BTreeStats s = tree.stats();
  std::size_t total = 0;
  const Key128* prev = nullptr;
  for (const auto& leaf : leaves) {
    EXPECT_LE(leaf.keys.size(), tree.config().leaf_capacity);
    EXPECT_FALSE(leaf.keys.empty());
    for (const Key128& k : leaf.keys) {
      if (prev) EXPECT_LT(*prev, k);
      prev = &k;
    }
    total += leaf.keys.size();
  }
  EXPECT_EQ(total, keys.size());
  EXPECT_EQ(leaves.size(), s.leaves);
  EXPECT_EQ(s.leaves, s.leaf_splits + 1);
  EXPECT_EQ(s.page_writes, s.inserts + 2 * s.splits());
  EXPECT_NEAR(s.leaf_fill,
              static_cast<double>(keys.size()) / (s.leaves * tree.config().leaf_capacity), 1e-12);
  for (const Key128& k : keys) ASSERT_TRUE(tree.contains(k)) << to_hex(k);
  EXPECT_FALSE(tree.contains({~0ULL, ~0ULL}));
}

TEST(BTreeInvariants, HoldAfterRandomWorkloadsOfManyShapes) {
  const Shape shapes[] = {{2, 3, 1.0, 0},  {3, 3, 0.5, 4},      {4, 4, 1.0, 0},     {5, 7, 0.9, 16},
                          {16, 5, 1.0, 3}, {64, 32, 0.9375, 0}, {255, 100, 0.7, 50}};
  std::uint64_t seed = 1;
  for (const Shape& sh : shapes) {
    for (std::size_t n : {1u, 7u, 500u, 20000u}) {
      BTreeConfig c;
      c.leaf_capacity = sh.leaf;
      c.interior_fanout = sh.fanout;
      c.rightmost_fill = sh.rightmost_fill;
      c.pool_pages = sh.pool;
      BTreeSim tree(c);
      const auto keys = mixed_keys(seed++, n);
      tree.insert(keys.data(), keys.size());
      SCOPED_TRACE("leaf " + std::to_string(sh.leaf) + " fanout " + std::to_string(sh.fanout) +
                   " n " + std::to_string(n));
      expect_sound(tree, keys);
    }
  }
}

TEST(BTreeInvariants, AscendingKeysFillEveryLeafButTheLast) {
  BTreeConfig c;
  c.leaf_capacity = 10;
  c.interior_fanout = 4;
  BTreeSim tree(c);
  std::vector<Key128> keys;
  for (std::uint64_t i = 1; i <= 1001; ++i) keys.push_back({i, 0});
  tree.insert(keys.data(), keys.size());
  expect_sound(tree, keys);
  const auto leaves = tree.leaves();
  ASSERT_EQ(leaves.size(), 101u);
  for (std::size_t i = 0; i + 1 < leaves.size(); ++i) EXPECT_EQ(leaves[i].keys.size(), 10u);
  EXPECT_EQ(leaves.back().keys.size(), 1u);
}

TEST(BTreeInvariants, RightmostFillKeepsThatShareOnTheOldPage) {
  BTreeConfig c;
  c.leaf_capacity = 10;
  c.rightmost_fill = 0.9;
  BTreeSim tree(c);
  for (std::uint64_t i = 1; i <= 1000; ++i) tree.insert({i, 0});
  const auto leaves = tree.leaves();
  for (std::size_t i = 0; i + 1 < leaves.size(); ++i) EXPECT_EQ(leaves[i].keys.size(), 9u);
}

TEST(BTreeInvariants, DescendingKeysSplitEvenly) {
  BTreeConfig c;
  c.leaf_capacity = 10;
  BTreeSim tree(c);
  std::vector<Key128> keys;
  for (std::uint64_t i = 1000; i >= 1; --i) keys.push_back({i, 0});
  tree.insert(keys.data(), keys.size());
  expect_sound(tree, keys);
  EXPECT_NEAR(tree.stats().leaf_fill, 0.5, 0.06);
}

TEST(BTreeInvariants, PoolMissesOnlyWhenTheTreeOutgrowsIt) {
  for (std::uint64_t pool : {1000000u, 8u}) {
    BTreeConfig c;
    c.leaf_capacity = 8;
    c.interior_fanout = 8;
    c.pool_pages = pool;
    BTreeSim tree(c);
    auto src = make_model_key_source(KeyKind::uuid4);
    for (int i = 0; i < 5000; ++i) tree.insert(src->next());
    if (pool > 10000)
      EXPECT_EQ(tree.stats().pool_misses, 0u);
    else
      EXPECT_GT(tree.stats().pool_misses, 1000u);
  }
}

TEST(BTreeInvariants, BadShapesAreRefusedNamingTheValue) {
  auto refused = [](BTreeConfig c, const std::string& says) {
    try {
      BTreeSim tree(c);
      ADD_FAILURE() << "accepted, expected: " << says;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  BTreeConfig c;
  c.leaf_capacity = 1;
  refused(c, "leaf capacity 1");
  c = {};
  c.interior_fanout = 2;
  refused(c, "fan-out 2");
  c = {};
  c.rightmost_fill = 0;
  refused(c, "rightmost fill 0");
  c = {};
  c.rightmost_fill = 1.5;
  refused(c, "rightmost fill 1.5");
  EXPECT_THROW(BTreeConfig::for_page(20, 16), Error);
  EXPECT_EQ(BTreeConfig::for_page(16384, 16).leaf_capacity, 1024u);
  EXPECT_EQ(BTreeConfig::for_page(16384, 8).leaf_capacity, 2048u);
}

}  // namespace
}  // namespace idforge::lab
