// A monotonic generator (UUIDv7, ULID, either kind) on a clock that reads before 1970 takes
// the reading as millisecond 0, as its rule says: the IDs are of millisecond 0 and count on
// inside it, and a step forward past 1970 moves them on.
#include <gtest/gtest.h>

#include "idforge/clock.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

template <class G>
class MonotonicBefore1970 : public ::testing::Test {};
using Generators =
    ::testing::Types<UuidV7Generator, SharedUuidV7Generator, UlidGenerator, SharedUlidGenerator>;
TYPED_TEST_SUITE(MonotonicBefore1970, Generators);

TYPED_TEST(MonotonicBefore1970, ReadsCountAsMillisecondZeroAndStillIncrease) {
  ManualClock clock(-1);  // one nanosecond before 1970: floored, that is millisecond -1
  TypeParam gen(clock);
  auto prev = gen.next();
  EXPECT_EQ(gen.last_unix_ms(), 0);
  clock.set_ms(-5'000);
  for (int i = 0; i < 100; ++i) {
    const auto id = gen.next();
    ASSERT_LT(prev, id);
    prev = id;
  }
  EXPECT_EQ(gen.last_unix_ms(), 0);
  clock.set_ms(7);
  ASSERT_LT(prev, gen.next());
  EXPECT_EQ(gen.last_unix_ms(), 7);
}

}  // namespace
}  // namespace idforge
