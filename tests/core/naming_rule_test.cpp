// The naming rule, in every generator family: the plain name is the generator for one
// thread, Shared... the one any number of threads may share. A change that breaks it fails
// to compile here.
#include <gtest/gtest.h>

#include <type_traits>
#include <utility>

#include "idforge/clock.hpp"
#include "idforge/snowflake_generator.hpp"
#include "idforge/typeid.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

static_assert(std::is_same_v<SnowflakeGenerator, BasicSnowflakeGenerator<false>>);
static_assert(std::is_same_v<SharedSnowflakeGenerator, BasicSnowflakeGenerator<true>>);
static_assert(!std::is_same_v<UuidV7Generator, SharedUuidV7Generator>);
static_assert(!std::is_same_v<UlidGenerator, SharedUlidGenerator>);
static_assert(!std::is_same_v<TypeIdGenerator, SharedTypeIdGenerator>);

// No generator can be copied or moved: a copy would issue what the original issues.
template <class G>
constexpr bool kPinned = !std::is_copy_constructible_v<G> && !std::is_move_constructible_v<G> &&
                         !std::is_copy_assignable_v<G> && !std::is_move_assignable_v<G>;
static_assert(kPinned<SnowflakeGenerator> && kPinned<SharedSnowflakeGenerator>);
static_assert(kPinned<UuidV7Generator> && kPinned<SharedUuidV7Generator>);
static_assert(kPinned<UlidGenerator> && kPinned<SharedUlidGenerator>);
static_assert(kPinned<TypeIdGenerator> && kPinned<SharedTypeIdGenerator>);

// Who may throw: a ULID resumes after any ULID, a UUIDv7 generator refuses what is not a v7.
static_assert(noexcept(std::declval<UlidGenerator&>().resume_after(Ulid{})));
static_assert(noexcept(std::declval<SharedUlidGenerator&>().resume_after(Ulid{})));
static_assert(!noexcept(std::declval<UuidV7Generator&>().resume_after(Uuid{})));

TEST(NamingRule, BothSnowflakeGeneratorsIssueTheSameSequenceOnOneThread) {
  ManualClock clock(1'700'000'000'000 * 1'000'000LL);
  SnowflakeGenerator one(presets::twitter(), 1, clock);
  SharedSnowflakeGenerator shared(presets::twitter(), 1, clock);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(one.next(), shared.next());
}

}  // namespace
}  // namespace idforge
