// The names this release replaces still compile and still mean what they meant, so a user's
// build keeps working (with a deprecation warning) until the next release. This file alone
// uses them; the rest of the project uses the new names and builds without such warnings.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include <gtest/gtest.h>

#include <array>
#include <type_traits>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/ksuid.hpp"
#include "idforge/parse_status.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/typeid.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

// Snowflake: the rule's names, and the old ones with their old meaning for one more release.
static_assert(std::is_same_v<SharedSnowflakeGenerator, BasicSnowflakeGenerator<true>>);
static_assert(std::is_same_v<UnsharedSnowflakeGenerator, BasicSnowflakeGenerator<false>>);
static_assert(std::is_same_v<SnowflakeGenerator, SharedSnowflakeGenerator>,
              "SnowflakeGenerator stays thread-safe until the next release");
static_assert(std::is_same_v<LocalSnowflakeGenerator, UnsharedSnowflakeGenerator>);

// One parse status for every text family.
static_assert(std::is_same_v<UuidParseStatus, ParseStatus>);
static_assert(std::is_same_v<UlidParseStatus, ParseStatus>);
static_assert(std::is_same_v<KsuidParseStatus, ParseStatus>);
static_assert(std::is_same_v<TypeIdParseStatus, ParseStatus>);

TEST(DeprecatedNames, UuidV4IsNewUuidV4) {
  const Uuid u = uuid_v4();
  EXPECT_EQ(u.version(), 4);
  EXPECT_EQ(u.variant(), UuidVariant::rfc9562);
  std::array<Uuid, 8> batch{};
  uuid_v4_batch(batch);
  for (const Uuid& b : batch) EXPECT_EQ(b.version(), 4);
  EXPECT_NE(batch[0], batch[1]);
}

TEST(DeprecatedNames, MakeKsuidIsComposeKsuid) {
  Ksuid::Payload p{};
  p[15] = 7;
  const std::int64_t t = Ksuid::kEpochUnixSeconds + 1234;
  EXPECT_EQ(make_ksuid(t, p), compose_ksuid(t, p));
  EXPECT_THROW((void)make_ksuid(Ksuid::kEpochUnixSeconds - 1, p), Error);
}

TEST(DeprecatedNames, OldSnowflakeNamesStillIssue) {
  ManualClock clock(1'700'000'000'000 * 1'000'000LL);
  SnowflakeGenerator shared(presets::twitter(), 1, clock);
  LocalSnowflakeGenerator local(presets::twitter(), 2, clock);
  const Snowflake a = shared.next();
  EXPECT_LT(a, shared.next());
  const Snowflake b = local.next();
  EXPECT_LT(b, local.next());
}

}  // namespace
}  // namespace idforge

#pragma GCC diagnostic pop
