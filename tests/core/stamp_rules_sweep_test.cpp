// The UUIDv7 and ULID stamp rules against reference models that keep (millisecond,
// counter) as separate numbers and carry by hand, over every combination of edge values:
// the last stamp at zero, mid-field and at the very end of the 48-bit millisecond field
// with its counter empty, half full and full; the clock before 1970, at, just behind and
// just past the last millisecond, at the end of the field and far past it; requests of 1,
// 2 and 256 IDs; inherited through fork or not; seeds of all zeros and all ones. A result
// must be the model's exactly, and nothing may come back past the field (no wrap).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "expect_errc.hpp"
#include "idforge/error.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge {
namespace {

using u128 = detail::u128;
constexpr std::uint64_t kMs48 = kMaxUnixMs48;  // the last millisecond both fields hold

struct Split {
  std::uint64_t ms;
  u128 counter;
};

std::vector<std::int64_t> clock_readings(std::uint64_t last_ms) {
  std::vector<std::int64_t> r{std::numeric_limits<std::int64_t>::min(),
                              -1,
                              0,
                              1,
                              1'767'225'600'000,
                              static_cast<std::int64_t>(kMs48) - 1,
                              static_cast<std::int64_t>(kMs48),
                              static_cast<std::int64_t>(kMs48) + 1,
                              std::numeric_limits<std::int64_t>::max()};
  for (std::int64_t d : {-1, 0, 1}) r.push_back(static_cast<std::int64_t>(last_ms) + d);
  return r;
}

// ---- UUIDv7: ms 48 | counter 42 ------------------------------------------------------------

struct V7Model {
  static constexpr u128 kCounterEnd = u128{1} << UuidV7Stamp::kCounterBits;
  // (first, last) or nullopt for "exhausted".
  static std::optional<std::pair<Split, Split>> reserve(std::optional<Split> last,
                                                        std::int64_t now_ms, std::uint64_t seed,
                                                        std::uint64_t n, bool fresh) {
    const std::uint64_t now = now_ms < 0 ? 0 : static_cast<std::uint64_t>(now_ms);
    const u128 seed41 = seed & ((std::uint64_t{1} << 41) - 1);
    Split first;
    if (!last || now > last->ms) {
      first = {now, seed41};
      if (now == 0 && seed41 == 0) first.counter = 1;  // stamp 0 means "nothing issued"
    } else if (fresh) {
      first = {last->ms + 1, seed41};
    } else {
      first = add(*last, 1);
    }
    const Split end = add(first, n - 1);
    if (first.ms > kMs48 || end.ms > kMs48) return std::nullopt;
    return std::make_pair(first, end);
  }
  static Split add(Split s, u128 k) {
    const u128 c = s.counter + k;
    return {s.ms + static_cast<std::uint64_t>(c / kCounterEnd), c % kCounterEnd};
  }
  static u128 stamp(Split s) { return (u128{s.ms} << UuidV7Stamp::kCounterBits) | s.counter; }
};

TEST(StampRulesSweep, UuidV7ReserveMatchesTheModelAndNeverPassesTheField) {
  const u128 full = V7Model::kCounterEnd - 1;
  std::vector<std::optional<Split>> lasts{std::nullopt};
  for (std::uint64_t ms :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1'767'225'600'000}, kMs48 - 1, kMs48})
    for (u128 c : {u128{0}, u128{1}, full / 2, full - 255, full - 1, full})
      lasts.push_back(Split{ms, c});
  int checked = 0;
  for (const auto& last : lasts) {
    // The generators represent "nothing issued" by stamp 0.
    const u128 last_stamp = last ? V7Model::stamp(*last) : 0;
    if (last && last_stamp == 0) continue;
    for (std::int64_t now : clock_readings(last ? last->ms : 0))
      for (std::uint64_t seed : {std::uint64_t{0}, ~std::uint64_t{0}})
        for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{256}})
          for (bool fresh : {false, true}) {
            const auto want = V7Model::reserve(last, now, seed, n, fresh);
            const auto got = UuidV7Stamp::reserve(last_stamp, now, seed, n, fresh);
            ++checked;
            ASSERT_EQ(got.exhausted, !want.has_value())
                << "last " << (last ? last->ms : 0) << " now " << now << " n " << n << " fresh "
                << fresh;
            if (!want) continue;
            ASSERT_TRUE(got.first == V7Model::stamp(want->first)) << "now " << now << " n " << n;
            ASSERT_TRUE(got.last == V7Model::stamp(want->second)) << "now " << now << " n " << n;
            ASSERT_TRUE(got.first > last_stamp) << "not after the last stamp";
            ASSERT_LE(UuidV7Stamp::unix_ms(got.last), kMs48);
            // The UUID carries exactly that stamp (compose and stamp_of agree, no bit lost).
            ASSERT_TRUE(UuidV7Stamp::stamp_of(UuidV7Stamp::compose(got.last, 0xdeadbeef)) ==
                        got.last);
          }
  }
  EXPECT_GT(checked, 4000);
}

TEST(StampRulesSweep, UuidV7GeneratorRefusesAfterTheLastMillisecond) {
  ManualClock clock(1'767'225'600'000 * 1'000'000);
  UuidV7Generator gen(clock);
  gen.resume_after(UuidV7Stamp::compose(V7Model::stamp({kMs48, V7Model::kCounterEnd - 1}), 0));
  EXPECT_ERRC(gen.next(), errc::time_exhausted, "10889");
}

// ---- ULID: ms 48 | random 80 ---------------------------------------------------------------

struct UlidModel {
  static constexpr u128 kRandomEnd = u128{1} << 80;
  enum class Out { ok, counter_exhausted, time_exhausted };
  static std::pair<Out, std::pair<Split, Split>> reserve(std::optional<Split> last,
                                                         std::int64_t now_ms, u128 random,
                                                         std::uint64_t n, bool fresh) {
    const std::uint64_t now = now_ms < 0 ? 0 : static_cast<std::uint64_t>(now_ms);
    const u128 r80 = random % kRandomEnd;
    Split first;
    if (!last || now > last->ms) {
      if (now > kMs48) return {Out::time_exhausted, {}};
      first = {now, r80};
      if (now == 0 && r80 == 0) first.counter = 1;  // value 0 means "nothing issued"
    } else if (fresh) {
      if (last->ms + 1 > kMs48) return {Out::time_exhausted, {}};
      first = {last->ms + 1, r80};
    } else {
      if (last->counter + 1 >= kRandomEnd) return {Out::counter_exhausted, {}};
      first = {last->ms, last->counter + 1};
    }
    // Within one millisecond only: the spec forbids carrying into the time.
    if (first.counter + (n - 1) >= kRandomEnd) return {Out::counter_exhausted, {}};
    return {Out::ok, {first, {first.ms, first.counter + (n - 1)}}};
  }
  static u128 value(Split s) { return (u128{s.ms} << 80) | s.counter; }
};

TEST(StampRulesSweep, UlidReserveMatchesTheModelAndNeverWraps) {
  const u128 full = UlidModel::kRandomEnd - 1;
  std::vector<std::optional<Split>> lasts{std::nullopt};
  for (std::uint64_t ms :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1'767'225'600'000}, kMs48 - 1, kMs48})
    for (u128 c : {u128{0}, u128{1}, full / 2, full - 255, full - 1, full})
      lasts.push_back(Split{ms, c});
  int checked = 0;
  for (const auto& last : lasts) {
    const u128 last_value = last ? UlidModel::value(*last) : 0;
    if (last && last_value == 0) continue;
    for (std::int64_t now : clock_readings(last ? last->ms : 0))
      for (u128 random : {u128{0}, full, full - 1})
        for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{256}})
          for (bool fresh : {false, true}) {
            const auto [want, range] = UlidModel::reserve(last, now, random, n, fresh);
            const auto got = UlidStamp::reserve(last_value, now, random, n, fresh);
            ++checked;
            const auto expected = want == UlidModel::Out::ok ? UlidStamp::Outcome::ok
                                  : want == UlidModel::Out::counter_exhausted
                                      ? UlidStamp::Outcome::counter_exhausted
                                      : UlidStamp::Outcome::time_exhausted;
            ASSERT_EQ(got.outcome, expected) << "last ms " << (last ? last->ms : 0) << " now "
                                             << now << " n " << n << " fresh " << fresh;
            if (want != UlidModel::Out::ok) continue;
            ASSERT_TRUE(got.first == UlidModel::value(range.first));
            ASSERT_TRUE(got.last == UlidModel::value(range.second));
            ASSERT_TRUE(got.first > last_value);
            ASSERT_LE(UlidStamp::unix_ms(got.last), kMs48);
          }
  }
  EXPECT_GT(checked, 4000);
}

}  // namespace
}  // namespace idforge
