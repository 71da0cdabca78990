#include <gtest/gtest.h>

#include <array>
#include <unordered_set>
#include <vector>

#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

TEST(UuidV4, VersionAndVariantAreSetOnEveryId) {
  for (int i = 0; i < 10'000; ++i) {
    const Uuid u = new_uuid_v4();
    ASSERT_EQ(u.version(), 4);
    ASSERT_EQ(u.variant(), UuidVariant::rfc9562);
  }
}

TEST(UuidV4, TheOther122BitsAreRandom) {
  // Over 200k IDs each of the 122 free bits is set about half the time (6 sigma), and no
  // value repeats.
  constexpr int kIds = 200'000;
  std::array<int, 128> ones{};
  std::unordered_set<Uuid> seen;
  for (int i = 0; i < kIds; ++i) {
    const Uuid u = new_uuid_v4();
    ASSERT_TRUE(seen.insert(u).second);
    for (int b = 0; b < 64; ++b) {
      ones[b] += static_cast<int>((u.high() >> (63 - b)) & 1);
      ones[64 + b] += static_cast<int>((u.low() >> (63 - b)) & 1);
    }
  }
  for (int b = 0; b < 128; ++b) {
    const bool fixed = (b >= 48 && b < 52) || b == 64 || b == 65;
    if (!fixed) EXPECT_NEAR(ones[b], kIds / 2, 6 * 224) << "bit " << b;
  }
}

TEST(UuidV4, BatchFillsEverySlot) {
  std::vector<Uuid> ids(1000);
  new_uuid_v4_batch(ids);
  std::unordered_set<Uuid> seen(ids.begin(), ids.end());
  EXPECT_EQ(seen.size(), ids.size());
  for (const Uuid& u : ids) EXPECT_EQ(u.version(), 4);
}

}  // namespace
}  // namespace idforge
