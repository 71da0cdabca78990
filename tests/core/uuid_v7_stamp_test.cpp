// The pure v7 counter rule (RFC 9562 §6.2 Method 1, 42-bit counter): one case per rule.
#include <gtest/gtest.h>

#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

using S = UuidV7Stamp;
using u128 = S::u128;

constexpr u128 stamp(std::uint64_t ms, std::uint64_t counter) {
  return (static_cast<u128>(ms) << S::kCounterBits) | counter;
}
constexpr std::uint64_t kCounterMax = (std::uint64_t{1} << S::kCounterBits) - 1;

TEST(UuidV7Stamp, NewMillisecondSeedsTheCounterWithItsTopBitClear) {
  const auto r = S::reserve(stamp(100, 5), 101, ~std::uint64_t{0}, 1, false);
  EXPECT_FALSE(r.exhausted);
  EXPECT_EQ(r.first, stamp(101, S::kSeedMask));
  EXPECT_EQ(S::kSeedMask, (std::uint64_t{1} << 41) - 1);  // the guard bit stays 0
}

TEST(UuidV7Stamp, SameMillisecondIncrements) {
  EXPECT_EQ(S::reserve(stamp(100, 5), 100, 777, 1, false).first, stamp(100, 6));
}

TEST(UuidV7Stamp, ClockBehindKeepsTheLastTimeAndIncrements) {
  EXPECT_EQ(S::reserve(stamp(100, 5), 40, 777, 1, false).first, stamp(100, 6));
  EXPECT_EQ(S::reserve(stamp(100, 5), -5, 777, 1, false).first, stamp(100, 6));
}

TEST(UuidV7Stamp, CounterOverflowBorrowsTheNextMillisecond) {
  const auto r = S::reserve(stamp(100, kCounterMax), 100, 777, 1, false);
  EXPECT_FALSE(r.exhausted);
  EXPECT_EQ(r.first, stamp(101, 0));
  EXPECT_EQ(S::unix_ms(r.first), 101u);
}

TEST(UuidV7Stamp, BatchReservesConsecutiveStamps) {
  const auto r = S::reserve(stamp(100, 5), 100, 0, 10, false);
  EXPECT_EQ(r.first, stamp(100, 6));
  EXPECT_EQ(r.last, stamp(100, 15));
}

TEST(UuidV7Stamp, ForkedStateMovesToALaterMillisecondWithAFreshSeed) {
  EXPECT_EQ(S::reserve(stamp(100, 5), 100, 9, 1, true).first, stamp(101, 9));
  EXPECT_EQ(S::reserve(stamp(100, 5), 300, 9, 1, true).first, stamp(300, 9));
}

TEST(UuidV7Stamp, PastThe48BitFieldIsExhausted) {
  EXPECT_TRUE(S::reserve(stamp(kMaxUnixMs48, kCounterMax), 0, 0, 1, false).exhausted);
  EXPECT_FALSE(S::reserve(stamp(kMaxUnixMs48, kCounterMax - 1), 0, 0, 1, false).exhausted);
}

TEST(UuidV7Stamp, ComposeAndStampOfAreInverse) {
  const u128 s = stamp(0x017F22E279B0, 0x2AB'CDEF'1234);
  const Uuid u = S::compose(s, 0xDEADBEEF);
  EXPECT_EQ(u.version(), 7);
  EXPECT_EQ(u.variant(), UuidVariant::rfc9562);
  EXPECT_EQ(decompose_v7(u).unix_ms, 0x017F22E279B0u);
  EXPECT_EQ(u.low() & 0xFFFF'FFFF, 0xDEADBEEFu);
  EXPECT_EQ(S::stamp_of(u), s);
}

TEST(UuidV7Stamp, StampOrderIsUuidOrderWhateverTheRandomTail) {
  const Uuid a = S::compose(stamp(5, 0x3FFFFFFF), 0xFFFFFFFF);  // rand_a carry boundary
  const Uuid b = S::compose(stamp(5, 0x40000000), 0);
  EXPECT_LT(a, b);
  EXPECT_LT(S::compose(stamp(5, kCounterMax), 0xFFFFFFFF), S::compose(stamp(6, 0), 0));
}

}  // namespace
}  // namespace idforge
