// Every generator family reports its high-water mark the same way: last_unix_ms() returns
// std::int64_t Unix ms, kNoUnixMs before anything was issued, and the clock's millisecond
// after an ID was issued at it. So one mark-persisting routine serves every family.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "idforge/clock.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/typeid.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kStartMs = 1'700'000'000'000;

static_assert(kNoUnixMs == std::numeric_limits<std::int64_t>::min());
static_assert(SnowflakePolicy{}.issued_up_to_unix_ms == kNoUnixMs);

// Builds each family's generator on a clock.
struct SharedSnowflake {
  using Gen = SharedSnowflakeGenerator;
  static Gen make(Clock& c) { return Gen(presets::twitter(), 1, c); }
};
struct UnsharedSnowflake {
  using Gen = SnowflakeGenerator;
  static Gen make(Clock& c) { return Gen(presets::twitter(), 1, c); }
};
template <class G>
struct ClockOnly {
  using Gen = G;
  static Gen make(Clock& c) { return Gen(c); }
};
template <class G>
struct WithPrefix {
  using Gen = G;
  static Gen make(Clock& c) { return Gen("user", c); }
};

template <class F>
class LastUnixMs : public ::testing::Test {};
using Families = ::testing::Types<SharedSnowflake, UnsharedSnowflake, ClockOnly<UuidV7Generator>,
                                  ClockOnly<SharedUuidV7Generator>, ClockOnly<UlidGenerator>,
                                  ClockOnly<SharedUlidGenerator>, WithPrefix<TypeIdGenerator>,
                                  WithPrefix<SharedTypeIdGenerator>>;
TYPED_TEST_SUITE(LastUnixMs, Families);

TYPED_TEST(LastUnixMs, IsSignedMsAndNoUnixMsUntilTheFirstId) {
  using Gen = typename TypeParam::Gen;
  static_assert(std::is_same_v<decltype(std::declval<const Gen&>().last_unix_ms()), std::int64_t>);
  ManualClock clock(kStartMs * 1'000'000);
  auto gen = TypeParam::make(clock);  // guaranteed elision: the generators do not move
  EXPECT_EQ(gen.last_unix_ms(), kNoUnixMs);
  (void)gen.next();
  EXPECT_EQ(gen.last_unix_ms(), kStartMs);
  clock.advance_ms(5);
  (void)gen.next();
  EXPECT_EQ(gen.last_unix_ms(), kStartMs + 5);
}

}  // namespace
}  // namespace idforge
