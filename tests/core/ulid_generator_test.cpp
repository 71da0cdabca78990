// ULID generators: monotonic increments, order, clock stepping back, overflow as an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "expect_errc.hpp"
#include "idforge/error.hpp"
#include "idforge/ulid_generator.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kStartMs = 1'700'000'000'000;
using u128 = UlidStamp::u128;
u128 value(const Ulid& u) {
  return UlidStamp::value_of(u);
}

TEST(UlidGenerator, InsideAMillisecondEachIsThePreviousPlusOne) {
  ManualClock clock(kStartMs * kMs);
  UlidGenerator gen(clock);
  const Ulid first = gen.next();
  EXPECT_EQ(first.unix_ms(), static_cast<std::uint64_t>(kStartMs));
  Ulid prev = first;
  for (int i = 0; i < 1000; ++i) {
    const Ulid u = gen.next();
    ASSERT_EQ(value(u), value(prev) + 1);
    prev = u;
  }
}

TEST(UlidGenerator, ANewMillisecondTakesFreshRandomBits) {
  ManualClock clock(kStartMs * kMs);
  UlidGenerator gen(clock);
  const Ulid a = gen.next();
  clock.advance_ms(1);
  const Ulid b = gen.next();
  EXPECT_EQ(b.unix_ms(), static_cast<std::uint64_t>(kStartMs + 1));
  EXPECT_NE(b.random_low(), a.random_low() + 1);
}

TEST(UlidGenerator, RandomPartOverflowIsAnErrorNotAWrap) {
  ManualClock clock(kStartMs * kMs);
  UlidGenerator gen(clock);
  const Ulid last = Ulid::from_parts(kStartMs, 0xFFFF, ~std::uint64_t{0});
  gen.resume_after(last);
  EXPECT_ERRC(gen.next(), errc::counter_exhausted, std::to_string(kStartMs));
  EXPECT_EQ(gen.last_unix_ms(), static_cast<std::uint64_t>(kStartMs));  // nothing issued
  clock.advance_ms(1);  // the next millisecond starts afresh
  const Ulid next = gen.next();
  EXPECT_GT(next, last);
  EXPECT_EQ(next.unix_ms(), static_cast<std::uint64_t>(kStartMs + 1));
}

TEST(UlidGenerator, ABatchThatWouldOverflowIssuesNothing) {
  ManualClock clock(kStartMs * kMs);
  UlidGenerator gen(clock);
  gen.resume_after(Ulid::from_parts(kStartMs, 0xFFFF, ~std::uint64_t{0} - 5));
  std::vector<Ulid> ids(10);
  EXPECT_THROW(gen.next_batch(ids), Error);
  EXPECT_EQ(value(gen.next()), value(Ulid::from_parts(kStartMs, 0xFFFF, ~std::uint64_t{0} - 4)));
}

TEST(UlidStampRule, PureCases) {
  const u128 last = (static_cast<u128>(100) << 80) | 5;
  EXPECT_EQ(UlidStamp::reserve(last, 100, 77, 1, false).first, last + 1);
  EXPECT_EQ(UlidStamp::reserve(last, 99, 77, 1, false).first, last + 1);
  EXPECT_EQ(UlidStamp::reserve(last, 101, 77, 1, false).first, (static_cast<u128>(101) << 80) | 77);
  EXPECT_EQ(UlidStamp::reserve(last, 100, 77, 1, true).first, (static_cast<u128>(101) << 80) | 77);
  const u128 full = (static_cast<u128>(100) << 80) | UlidStamp::kRandomMask;
  EXPECT_EQ(UlidStamp::reserve(full, 100, 77, 1, false).outcome,
            UlidStamp::Outcome::counter_exhausted);
  EXPECT_EQ(UlidStamp::reserve(full - 3, 100, 77, 4, false).outcome,
            UlidStamp::Outcome::counter_exhausted);
  EXPECT_EQ(UlidStamp::reserve(full - 3, 100, 77, 3, false).outcome, UlidStamp::Outcome::ok);
}

TEST(SharedUlidGenerator, OverflowIsAnError) {
  ManualClock clock(kStartMs * kMs);
  SharedUlidGenerator gen(clock);
  gen.resume_after(Ulid::from_parts(kStartMs, 0xFFFF, ~std::uint64_t{0}));
  EXPECT_THROW(gen.next(), Error);
  std::vector<Ulid> ids(3);
  EXPECT_THROW(gen.next_batch(ids), Error);
}

}  // namespace
}  // namespace idforge
