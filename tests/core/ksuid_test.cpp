#include "idforge/ksuid.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "expect_errc.hpp"
#include "idforge/error.hpp"

namespace idforge {
namespace {

std::string raw_hex(const Ksuid& k) {
  std::string s;
  char buf[3];
  for (auto b : k.bytes()) {
    std::snprintf(buf, sizeof buf, "%02X", b);
    s += buf;
  }
  return s;
}

// The examples of the reference implementation's README (github.com/segmentio/ksuid,
// "Inspect the components of a KSUID"): text, raw bytes and timestamp agree.
struct Example {
  const char* text;
  const char* raw;
  std::uint32_t timestamp;
};
constexpr Example kExamples[] = {
    {"0ujtsYcgvSTl8PAuAdqWYSMnLOv", "0669F7EFB5A1CD34B5F99D1154FB6853345C9735", 107608047},
    {"0ujzPyRiIAffKhBux4PvQdDqMHY", "066A029C73FC1AA3B2446246D6E89FCD909E8FE8", 107610780},
};

TEST(Ksuid, ReadmeExamplesDecode) {
  for (const auto& e : kExamples) {
    SCOPED_TRACE(e.text);
    const Ksuid k = Ksuid::parse(e.text);
    EXPECT_EQ(raw_hex(k), e.raw);
    EXPECT_EQ(k.timestamp(), e.timestamp);
  }
}

TEST(Ksuid, ReadmeExamplesEncode) {
  for (const auto& e : kExamples) {
    SCOPED_TRACE(e.text);
    Ksuid::Bytes b;
    for (int i = 0; i < 20; ++i)
      b[i] = static_cast<std::uint8_t>(std::stoi(std::string(e.raw + 2 * i, 2), nullptr, 16));
    EXPECT_EQ(Ksuid(b).to_string(), e.text);
  }
}

TEST(Ksuid, TimeIsSecondsSinceTheKsuidEpoch) {
  // README: 2017-10-09 21:00:47 -0700 PDT.
  const Ksuid k = Ksuid::parse("0ujtsYcgvSTl8PAuAdqWYSMnLOv");
  EXPECT_EQ(k.unix_seconds(), 1'507'608'047);
}

TEST(Ksuid, NilAndMax) {
  EXPECT_EQ(Ksuid().to_string(), "000000000000000000000000000");
  EXPECT_EQ(Ksuid::max().to_string(), "aWgEPTl1tmebfsQzFP4bxwgy80V");
  EXPECT_EQ(Ksuid::parse("aWgEPTl1tmebfsQzFP4bxwgy80V"), Ksuid::max());
  EXPECT_EQ(Ksuid::parse("000000000000000000000000000"), Ksuid());
}

TEST(Ksuid, OverflowIsRejected) {
  // One above 2^160 - 1, and the largest 27-character text.
  for (const char* text : {"aWgEPTl1tmebfsQzFP4bxwgy80W", "zzzzzzzzzzzzzzzzzzzzzzzzzzz",
                           "b00000000000000000000000000"}) {
    SCOPED_TRACE(text);
    try {
      (void)Ksuid::parse(text);
      ADD_FAILURE() << "parsed";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), 0u);
      EXPECT_NE(e.reason().find("160 bits"), std::string::npos);
    }
  }
}

TEST(Ksuid, MalformedTextIsRejectedWithPosition) {
  struct Case {
    const char* text;
    std::size_t position;
  };
  const Case cases[] = {
      {"", 0},
      {"0ujtsYcgvSTl8PAuAdqWYSMnLO", 26},
      {"0ujtsYcgvSTl8PAuAdqWYSMnLOvX", 27},
      {"0ujtsYcgvSTl8PAu-dqWYSMnLOv", 16},
      {"0ujtsYcgvSTl8PAuAdqWYSMnLO_", 26},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    Ksuid k;
    const KsuidParseStatus st = parse_ksuid(c.text, k);
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.position, c.position);
    EXPECT_EQ(k, Ksuid());  // unchanged
  }
}

TEST(Ksuid, RoundTripsAndTextOrderIsByteOrder) {
  ManualClock clock(1'700'000'000'000'000'000);
  Ksuid prev_k;
  std::string prev_s = prev_k.to_string();
  for (int i = 0; i < 10000; ++i) {
    clock.advance_ns(1'000'000'000);
    const Ksuid k = new_ksuid(clock);
    const std::string s = k.to_string();
    EXPECT_EQ(Ksuid::parse(s), k);
    EXPECT_LT(prev_k, k);
    EXPECT_LT(prev_s, s);
    prev_k = k;
    prev_s = s;
  }
}

TEST(Ksuid, GenerationTakesTheClocksSecond) {
  ManualClock clock(1'507'608'047'999'000'000);
  const Ksuid k = new_ksuid(clock);
  EXPECT_EQ(k.timestamp(), 107608047u);
  EXPECT_NE(new_ksuid(clock).payload(), k.payload());
}

TEST(Ksuid, GenerationOutsideTheTimestampRangeIsRefused) {
  ManualClock before(1'399'999'999'000'000'000);
  EXPECT_ERRC((void)new_ksuid(before), errc::clock_before_epoch);
  const Ksuid::Payload p{};
  EXPECT_EQ(make_ksuid(Ksuid::kEpochUnixSeconds, p).timestamp(), 0u);
  EXPECT_EQ(make_ksuid(Ksuid::kEpochUnixSeconds + 0xFFFF'FFFFll, p).timestamp(), 0xFFFF'FFFFu);
  EXPECT_ERRC((void)make_ksuid(Ksuid::kEpochUnixSeconds + 0x1'0000'0000ll, p),
              errc::time_exhausted);
}

}  // namespace
}  // namespace idforge
