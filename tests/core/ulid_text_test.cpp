// ULID text and binary forms, with the examples of the ULID spec (github.com/ulid/spec).
#include <gtest/gtest.h>

#include "idforge/random.hpp"
#include "idforge/time_format.hpp"
#include "idforge/ulid.hpp"
#include "text_paths.hpp"

namespace idforge {
namespace {

IDFORGE_TEXT_PATH_SUITE(UlidText);

TEST_P(UlidText, SpecExampleRoundTrips) {
  const Ulid u = Ulid::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(u.to_string(), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(u.high(), 0x01563E3AB5D3D676ull);
  EXPECT_EQ(u.low(), 0x4C61EFB99302BD5Bull);
  EXPECT_EQ(u.unix_ms(), 1469922850259u);
}

TEST_P(UlidText, SpecTimestampExample) {
  // The spec's reference implementation: ulid(1469918176385) starts with "01ARYZ6S41".
  const Ulid u = Ulid::from_parts(1469918176385, 0, 0);
  EXPECT_EQ(u.to_string().substr(0, 10), "01ARYZ6S41");
  EXPECT_EQ(Ulid::parse("01ARYZ6S41TSV4RRFFQ69G5FAV").unix_ms(), 1469918176385u);
  EXPECT_EQ(format_iso8601_ms(1469918176385), "2016-07-30T22:36:16.385Z");
}

TEST_P(UlidText, SpecMonotonicExampleIsAnIncrementByOne) {
  // The spec's monotonicity example: two ULIDs made in the same millisecond.
  const Ulid a = Ulid::parse("01BX5ZZKBKACTAV9WEVGEMMVRZ");
  const Ulid b = Ulid::parse("01BX5ZZKBKACTAV9WEVGEMMVS0");
  EXPECT_EQ(a.unix_ms(), b.unix_ms());
  EXPECT_EQ(b.low(), a.low() + 1);
  EXPECT_LT(a, b);
}

TEST_P(UlidText, LargestValidUlidIsAllOnes) {
  const Ulid max = Ulid::parse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
  EXPECT_EQ(max.high(), ~std::uint64_t{0});
  EXPECT_EQ(max.low(), ~std::uint64_t{0});
  EXPECT_EQ(max.unix_ms(), (std::uint64_t{1} << 48) - 1);
  EXPECT_EQ(Ulid().to_string(), "00000000000000000000000000");
}

TEST_P(UlidText, CaseInsensitiveAndCrockfordAliases) {
  const Ulid u = Ulid::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(Ulid::parse("01arz3ndektsv4rrffq69g5fav"), u);
  // I and L read as 1, O as 0.
  EXPECT_EQ(Ulid::parse("OIARZ3NDEKTSV4RRFFQ69G5FAV"), u);
  EXPECT_EQ(Ulid::parse("0lARZ3NDEKTSV4RRFFQ69G5FAV"), u);
  EXPECT_EQ(Ulid::parse("oiarz3ndektsv4rrffq69g5fav"), u);
}

TEST_P(UlidText, ToCharsWritesExactly26) {
  char buf[30];
  std::fill(std::begin(buf), std::end(buf), '#');
  const Ulid u = Ulid::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(u.to_chars(buf), buf + Ulid::kTextSize);
  EXPECT_EQ(std::string(buf, 26), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(buf[26], '#');
}

TEST_P(UlidText, RoundTripsOfRandomValuesAndTextOrderIsValueOrder) {
  Ulid prev;
  std::string prev_text = prev.to_string();
  for (int i = 0; i < 10'000; ++i) {
    const Ulid u = Ulid::from_u64(random_u64(), random_u64());
    const std::string t = u.to_string();
    ASSERT_EQ(Ulid::parse(t), u);
    ASSERT_EQ((u < prev), (t < prev_text));
    prev = u;
    prev_text = t;
  }
}

TEST_P(UlidText, SameBytesAsAUuid) {
  const Ulid u = Ulid::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV");
  const Uuid as_uuid = u.to_uuid();
  EXPECT_EQ(as_uuid.to_string(), "01563e3a-b5d3-d676-4c61-efb99302bd5b");
  EXPECT_EQ(Ulid::from_uuid(as_uuid), u);
  EXPECT_EQ(as_uuid.bytes(), u.bytes());
}

}  // namespace
}  // namespace idforge
