// What the UUIDv7 and ULID generators share, one body per property over each of them:
// UuidV7Generator and UlidGenerator (one thread), SharedUuidV7Generator and
// SharedUlidGenerator (any number). What differs (a UUID's counter borrows the next
// millisecond, a ULID's random part refuses to wrap) stays in uuid_v7_generator_test.cpp,
// uuid_v7_shared_test.cpp and ulid_generator_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <thread>
#include <type_traits>
#include <vector>

#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kStartMs = 1'700'000'000'000;

std::int64_t ms_of(const Uuid& u) {
  return embedded_unix_ms(u).value();
}
std::int64_t ms_of(const Ulid& u) {
  return static_cast<std::int64_t>(u.unix_ms());
}

template <class Gen>
using IdOf = decltype(std::declval<Gen&>().next());

// Checks only one kind of ID has: a v7 UUID's version and variant bits.
void expect_well_formed(const Uuid& u) {
  EXPECT_EQ(u.version(), 7);
  EXPECT_EQ(u.variant(), UuidVariant::rfc9562);
}
void expect_well_formed(const Ulid&) {}

template <class Gen>
class TimeOrderedGenerator : public ::testing::Test {};
using AllGenerators =
    ::testing::Types<UuidV7Generator, UlidGenerator, SharedUuidV7Generator, SharedUlidGenerator>;
TYPED_TEST_SUITE(TimeOrderedGenerator, AllGenerators);

TYPED_TEST(TimeOrderedGenerator, OneMillionAreStrictlyIncreasing) {
  TypeParam gen;
  auto prev = gen.next();
  for (int i = 0; i < 1'000'000; ++i) {
    const auto id = gen.next();
    ASSERT_LT(prev, id) << i;
    prev = id;
  }
  expect_well_formed(prev);
}

TYPED_TEST(TimeOrderedGenerator, EmbedsTheClocksMillisecond) {
  ManualClock clock(kStartMs * kMs + 999'999);
  TypeParam gen(clock);
  EXPECT_EQ(ms_of(gen.next()), kStartMs);
  clock.advance_ms(7);
  EXPECT_EQ(ms_of(gen.next()), kStartMs + 7);
  EXPECT_EQ(gen.last_unix_ms(), static_cast<std::uint64_t>(kStartMs + 7));
}

// An NTP step back: the generator keeps the last millisecond, counts on inside it, never
// waits for the clock, and follows the clock again once it passes that millisecond.
TYPED_TEST(TimeOrderedGenerator, ClockSteppingBackKeepsTheLastTimeAndNeverGoesBack) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(clock);
  const auto before = gen.next();
  clock.advance_ms(-60'000);
  auto prev = before;
  for (int i = 0; i < 1000; ++i) {
    const auto id = gen.next();
    ASSERT_LT(prev, id);
    ASSERT_EQ(ms_of(id), kStartMs);
    if constexpr (std::is_same_v<IdOf<TypeParam>, Ulid>)  // monotonic ULIDs count by one
      if (i == 0) EXPECT_EQ(UlidStamp::value_of(id), UlidStamp::value_of(before) + 1);
    prev = id;
  }
  EXPECT_EQ(clock.waited_ns(), 0);
  EXPECT_EQ(gen.last_unix_ms(), static_cast<std::uint64_t>(kStartMs));
  clock.set_ms(kStartMs + 1);
  EXPECT_EQ(ms_of(gen.next()), kStartMs + 1);
}

TYPED_TEST(TimeOrderedGenerator, BatchesAreIncreasingAndContinueTheSequence) {
  using Id = IdOf<TypeParam>;
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(clock);
  std::vector<Id> ids(1000);
  ids[0] = gen.next();
  gen.next_batch(std::span(ids).subspan(1));
  for (std::size_t i = 1; i < ids.size(); ++i) {
    ASSERT_LT(ids[i - 1], ids[i]);
    if constexpr (std::is_same_v<Id, Ulid>)  // inside a millisecond: the previous plus one
      ASSERT_EQ(UlidStamp::value_of(ids[i]), UlidStamp::value_of(ids[i - 1]) + 1);
  }
  EXPECT_LT(ids.back(), gen.next());
  for (const Id& id : ids) ASSERT_EQ(ms_of(id), kStartMs);
}

// --- the generators threads share ------------------------------------------------------------

template <class Gen>
class SharedTimeOrderedGenerator : public ::testing::Test {};
using SharedGenerators = ::testing::Types<SharedUuidV7Generator, SharedUlidGenerator>;
TYPED_TEST_SUITE(SharedTimeOrderedGenerator, SharedGenerators);

TYPED_TEST(SharedTimeOrderedGenerator, TwoThreadsEachSeeIncreasingIdsAndNoneRepeats) {
  using Id = IdOf<TypeParam>;
  TypeParam gen;
  constexpr int kPerThread = 500'000;
  std::vector<Id> a(kPerThread), b(kPerThread);
  auto run = [&gen](std::vector<Id>& out) {
    for (auto& id : out) id = gen.next();
  };
  std::thread t1(run, std::ref(a));
  std::thread t2(run, std::ref(b));
  t1.join();
  t2.join();
  for (const auto* v : {&a, &b})
    for (std::size_t i = 1; i < v->size(); ++i) ASSERT_LT((*v)[i - 1], (*v)[i]) << i;
  std::vector<Id> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

}  // namespace
}  // namespace idforge
