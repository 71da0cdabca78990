#include "idforge/typeid.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "idforge/error.hpp"

namespace idforge {
namespace {

// The TypeID specification's conformance vectors, version 0.3.0 (github.com/jetify-com/typeid,
// spec/valid.yml and spec/invalid.yml, "Last updated: 2024-04-10"), written out as a table.
struct ValidCase {
  const char* name;
  const char* typeid_text;
  const char* prefix;
  const char* uuid;
};
constexpr ValidCase kValid[] = {
    {"nil", "00000000000000000000000000", "", "00000000-0000-0000-0000-000000000000"},
    {"one", "00000000000000000000000001", "", "00000000-0000-0000-0000-000000000001"},
    {"ten", "0000000000000000000000000a", "", "00000000-0000-0000-0000-00000000000a"},
    {"sixteen", "0000000000000000000000000g", "", "00000000-0000-0000-0000-000000000010"},
    {"thirty-two", "00000000000000000000000010", "", "00000000-0000-0000-0000-000000000020"},
    {"max-valid", "7zzzzzzzzzzzzzzzzzzzzzzzzz", "", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
    {"valid-alphabet", "prefix_0123456789abcdefghjkmnpqrs", "prefix",
     "0110c853-1d09-52d8-d73e-1194e95b5f19"},
    {"valid-uuidv7", "prefix_01h455vb4pex5vsknk084sn02q", "prefix",
     "01890a5d-ac96-774b-bcce-b302099a8057"},
    {"prefix-underscore", "pre_fix_00000000000000000000000000", "pre_fix",
     "00000000-0000-0000-0000-000000000000"},
};

struct InvalidCase {
  const char* name;
  const char* typeid_text;
};
constexpr InvalidCase kInvalid[] = {
    {"prefix-uppercase", "PREFIX_00000000000000000000000000"},
    {"prefix-numeric", "12345_00000000000000000000000000"},
    {"prefix-period", "pre.fix_00000000000000000000000000"},
    {"prefix-non-ascii",
     "pr\xc3\xa9"
     "fix_00000000000000000000000000"},
    {"prefix-spaces", "  prefix_00000000000000000000000000"},
    {"prefix-64-chars",
     "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000"},
    {"separator-empty-prefix", "_00000000000000000000000000"},
    {"separator-empty", "_"},
    {"suffix-short", "prefix_1234567890123456789012345"},
    {"suffix-long", "prefix_123456789012345678901234567"},
    {"suffix-spaces", "prefix_1234567890123456789012345 "},
    {"suffix-uppercase", "prefix_0123456789ABCDEFGHJKMNPQRS"},
    {"suffix-hyphens", "prefix_123456789-123456789-123456"},
    {"suffix-wrong-alphabet", "prefix_ooooooiiiiiiuuuuuuulllllll"},
    {"suffix-ambiguous-crockford", "prefix_i23456789ol23456789oi23456"},
    {"suffix-hyphens-crockford", "prefix_123456789-0123456789-0123456"},
    {"suffix-overflow", "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz"},
    {"prefix-underscore-start", "_prefix_00000000000000000000000000"},
    {"prefix-underscore-end", "prefix__00000000000000000000000000"},
};

TEST(TypeId, SpecValidVectorsDecode) {
  for (const auto& c : kValid) {
    SCOPED_TRACE(c.name);
    const TypeId t = TypeId::parse(c.typeid_text);
    EXPECT_EQ(t.prefix(), c.prefix);
    EXPECT_EQ(t.uuid().to_string(), c.uuid);
  }
}

TEST(TypeId, SpecValidVectorsEncode) {
  for (const auto& c : kValid) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(TypeId(c.prefix, Uuid::parse(c.uuid)).to_string(), c.typeid_text);
  }
}

TEST(TypeId, SpecInvalidVectorsAreRejected) {
  for (const auto& c : kInvalid) {
    SCOPED_TRACE(c.name);
    EXPECT_THROW(TypeId::parse(c.typeid_text), ParseError);
    EXPECT_FALSE(TypeId::try_parse(c.typeid_text).has_value());
  }
}

TEST(TypeId, ErrorsNamePositionAndRule) {
  struct Case {
    const char* text;
    std::size_t position;
    const char* reason_part;
  };
  const Case cases[] = {
      {"user_01h455vb4pex5vsknk084sn02Q", 30, "lowercase"},
      {"user_01h455vb4pex5vsknk084sn0iq", 29, "'i'"},
      {"user_81h455vb4pex5vsknk084sn02q", 5, "128 bits"},
      {"User_01h455vb4pex5vsknk084sn02q", 0, "lowercase letters"},
      {"_01h455vb4pex5vsknk084sn02q", 0, "no '_' separator"},
      {"user__01h455vb4pex5vsknk084sn02q", 4, "end with '_'"},
      {"user_01h455", 11, "26"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      (void)TypeId::parse(c.text);
      ADD_FAILURE() << "parsed";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), c.position);
      EXPECT_NE(e.reason().find(c.reason_part), std::string::npos) << e.reason();
    }
  }
}

TEST(TypeId, PrefixRules) {
  EXPECT_TRUE(check_typeid_prefix("").ok());
  EXPECT_TRUE(check_typeid_prefix("a").ok());
  EXPECT_TRUE(check_typeid_prefix("a_b").ok());
  EXPECT_TRUE(check_typeid_prefix(std::string(63, 'x')).ok());
  EXPECT_EQ(check_typeid_prefix(std::string(64, 'x')).position, 63u);
  EXPECT_FALSE(check_typeid_prefix("_").ok());
  EXPECT_FALSE(check_typeid_prefix("a1").ok());
  EXPECT_THROW(TypeId("Bad", Uuid::nil()), ParseError);
}

TEST(TypeId, SuffixIsTheLowercaseUlidEncoding) {
  const Uuid u = Uuid::parse("01890a5d-ac96-774b-bcce-b302099a8057");
  char buf[26];
  encode_typeid_suffix(u, buf);
  EXPECT_EQ(std::string(buf, 26), "01h455vb4pex5vsknk084sn02q");
  Uuid back;
  ASSERT_TRUE(decode_typeid_suffix("01h455vb4pex5vsknk084sn02q", back).ok());
  EXPECT_EQ(back, u);
}

TEST(TypeId, RoundTripsRandomValues) {
  for (int i = 0; i < 10000; ++i) {
    const Uuid u = new_uuid_v4();
    const TypeId t("thing", u);
    const std::string s = t.to_string();
    EXPECT_EQ(s.size(), t.text_size());
    EXPECT_EQ(TypeId::parse(s), t);
  }
}

TEST(TypeId, OrdersByPrefixThenUuid) {
  const Uuid lo = Uuid::from_u64(1, 0), hi = Uuid::from_u64(2, 0);
  EXPECT_LT(TypeId("a", hi), TypeId("b", lo));
  EXPECT_LT(TypeId("a", lo), TypeId("a", hi));
  EXPECT_EQ(TypeId("a", lo), TypeId("a", lo));
}

TEST(TypeIdGenerator, MakesIncreasingV7WithItsPrefix) {
  ManualClock clock(1'700'000'000'000'000'000);
  TypeIdGenerator gen("user", clock);
  TypeId prev = gen.next();
  EXPECT_EQ(prev.prefix(), "user");
  EXPECT_EQ(prev.uuid().version(), 7);
  EXPECT_EQ(prev.uuid().high() >> 16, 1'700'000'000'000u);
  for (int i = 0; i < 10000; ++i) {
    if (i % 1000 == 0) clock.advance_ms(1);
    const TypeId t = gen.next();
    EXPECT_LT(prev, t);
    EXPECT_LT(prev.to_string(), t.to_string());  // the text sorts like the value
    prev = t;
  }
}

TEST(TypeIdGenerator, RejectsABadPrefixOnce) {
  EXPECT_THROW(TypeIdGenerator("no-dash"), ParseError);
  EXPECT_THROW(TypeIdGenerator(std::string(64, 'a')), ParseError);
}

TEST(TypeIdGenerator, EmptyPrefixWritesNoSeparator) {
  TypeIdGenerator gen("");
  const std::string s = gen.next().to_string();
  EXPECT_EQ(s.size(), 26u);
  EXPECT_EQ(s.find('_'), std::string::npos);
}

}  // namespace
}  // namespace idforge

namespace idforge {
namespace {

// Found by the id128 fuzzer: an empty prefix given as a default string_view (null data).
TEST(TypeId, EmptyPrefixWithNullDataIsFine) {
  const Uuid u = Uuid::parse("01890a5d-ac96-774b-bcce-b302099a8057");
  const TypeId t(std::string_view{}, u);
  EXPECT_EQ(t.prefix(), "");
  EXPECT_EQ(t.to_string(), "01h455vb4pex5vsknk084sn02q");
}

}  // namespace
}  // namespace idforge
