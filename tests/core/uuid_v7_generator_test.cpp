// UuidV7Generator (one thread): order, time, clock stepping back, overflow, batches.
#include <gtest/gtest.h>

#include <vector>

#include "expect_errc.hpp"
#include "idforge/error.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kStartMs = 1'700'000'000'000;

TEST(UuidV7Generator, ThousandsInOneMillisecondKeepItsTimeAndOrder) {
  ManualClock clock(kStartMs * kMs + 123);
  UuidV7Generator gen(clock);
  Uuid prev = gen.next();
  for (int i = 0; i < 100'000; ++i) {
    const Uuid u = gen.next();
    ASSERT_LT(prev, u);
    ASSERT_EQ(decompose_v7(u).unix_ms, static_cast<std::uint64_t>(kStartMs));  // no borrowing
    prev = u;
  }
}

TEST(UuidV7Generator, CounterOverflowBorrowsTheNextMillisecond) {
  ManualClock clock(kStartMs * kMs);
  UuidV7Generator gen(clock);
  // The last ID before a restart had the counter full: rand_a and the top 30 bits of rand_b.
  const Uuid full = compose_v7(kStartMs, 0xFFF, (std::uint64_t{0x3FFFFFFF} << 32) | 0x1234);
  gen.resume_after(full);
  const Uuid next = gen.next();
  EXPECT_GT(next, full);
  EXPECT_EQ(embedded_unix_ms(next), kStartMs + 1);  // borrowed, ahead of the clock
  EXPECT_EQ(UuidV7Stamp::stamp_of(next), static_cast<UuidV7Stamp::u128>(kStartMs + 1) << 42);
  clock.advance_ms(1);  // the clock reaches the borrowed millisecond: counting goes on there
  EXPECT_EQ(UuidV7Stamp::stamp_of(gen.next()),
            (static_cast<UuidV7Stamp::u128>(kStartMs + 1) << 42) + 1);
}

TEST(UuidV7Generator, ResumeAfterAnEarlierIdChangesNothing) {
  ManualClock clock(kStartMs * kMs);
  UuidV7Generator gen(clock);
  const Uuid a = gen.next();
  gen.resume_after(compose_v7(kStartMs - 10, 0, 0));
  EXPECT_GT(gen.next(), a);
}

TEST(UuidV7Generator, SeededCounterIsRandomAcrossMilliseconds) {
  ManualClock clock(kStartMs * kMs);
  UuidV7Generator gen(clock);
  const Uuid a = gen.next();
  clock.advance_ms(1);
  const Uuid b = gen.next();
  // Fresh 41-bit seeds: equal rand_a in two milliseconds happens with p = 1/2048.
  EXPECT_NE(UuidV7Stamp::stamp_of(a) & UuidV7Stamp::kSeedMask,
            UuidV7Stamp::stamp_of(b) & UuidV7Stamp::kSeedMask);
}

TEST(UuidV7Generator, ThePast48BitFieldIsRefused) {
  // An int64 ns clock ends in 2262, so only a resumed state reaches the field's end.
  ManualClock clock(kStartMs * kMs);
  UuidV7Generator gen(clock);
  gen.resume_after(compose_v7(kMaxUnixMs48, 0xFFF, ~std::uint64_t{0}));
  EXPECT_ERRC(gen.next(), errc::time_exhausted, "10889");
}

// resume_after takes the bits of a v7 as time and counter; another UUID's bits are no time,
// and max (or a v4 with high bits) used to pin the generator at year 10889 for good.
template <class Gen>
void expect_non_v7_refused() {
  ManualClock clock(kStartMs * kMs);
  Gen gen(clock);
  const Uuid before = gen.next();
  for (const char* text :
       {"ffffffff-ffff-ffff-ffff-ffffffffffff", "00000000-0000-0000-0000-000000000000",
        "f81d4fae-7dec-41d0-a765-00a0c91e6bf6",     // v4
        "ffffffff-ffff-7fff-7fff-ffffffffffff"}) {  // v7 bits, NCS variant
    EXPECT_ERRC(gen.resume_after(Uuid::parse(text)), errc::invalid_argument, text, "not a UUIDv7");
  }
  const Uuid after = gen.next();  // nothing moved: still this millisecond, still in order
  EXPECT_GT(after, before);
  EXPECT_EQ(embedded_unix_ms(after).value_or(0), kStartMs);
}

TEST(UuidV7Generator, ResumeAfterRefusesAnythingButAVersion7) {
  expect_non_v7_refused<UuidV7Generator>();
}

TEST(SharedUuidV7Generator, ResumeAfterRefusesAnythingButAVersion7) {
  expect_non_v7_refused<SharedUuidV7Generator>();
}

}  // namespace
}  // namespace idforge
