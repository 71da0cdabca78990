#include "idforge/random.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <set>
#include <thread>
#include <vector>

namespace idforge {
namespace {

TEST(Random, SuccessiveWordsDiffer) {
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 100'000; ++i) EXPECT_TRUE(seen.insert(random_u64()).second);
}

TEST(Random, BitsAreBalanced) {
  // 1M words: each of the 64 bit positions is set about half the time (6 sigma bound).
  constexpr int kWords = 1 << 20;
  std::array<int, 64> ones{};
  for (int i = 0; i < kWords; ++i) {
    const std::uint64_t v = random_u64();
    for (int b = 0; b < 64; ++b) ones[b] += static_cast<int>((v >> b) & 1);
  }
  for (int b = 0; b < 64; ++b) EXPECT_NEAR(ones[b], kWords / 2, 6 * 512) << "bit " << b;
}

TEST(Random, RequestsLargerThanTheBufferAreFilledCompletely) {
  std::vector<std::uint64_t> big(3 * kRandomBufferBytes / 8 + 5, 0);
  random_fill(big.data(), big.size() * 8);
  std::size_t zeros = 0;
  for (auto v : big) zeros += v == 0;
  EXPECT_EQ(zeros, 0u);
  EXPECT_EQ(std::set<std::uint64_t>(big.begin(), big.end()).size(), big.size());
}

TEST(Random, ReseedsAfterTheConfiguredVolume) {
  random_u64();
  const std::uint64_t before = random_seed_count();
  std::vector<unsigned char> chunk(64 * 1024);
  for (std::uint64_t made = 0; made < 2 * kRandomReseedBytes + chunk.size(); made += chunk.size())
    random_fill(chunk.data(), chunk.size());
  EXPECT_GE(random_seed_count(), before + 2);
  random_reseed();
  EXPECT_GE(random_seed_count(), before + 3);
}

TEST(Random, EachThreadHasItsOwnSeededStream) {
  std::uint64_t a = 0, b = 0, seeds_a = 0;
  std::thread t1([&] {
    a = random_u64();
    seeds_a = random_seed_count();
  });
  std::thread t2([&] { b = random_u64(); });
  t1.join();
  t2.join();
  EXPECT_NE(a, b);
  EXPECT_EQ(seeds_a, 1u);  // a fresh thread seeds on first use
}

}  // namespace
}  // namespace idforge
