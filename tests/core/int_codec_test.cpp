#include "idforge/int_codec.hpp"

#include <gtest/gtest.h>

#include <random>

#include "idforge/error.hpp"

namespace idforge {
namespace {

constexpr IntEncoding kAll[] = {IntEncoding::decimal, IntEncoding::hex, IntEncoding::base32,
                                IntEncoding::base62};

TEST(IntCodec, RoundTripsExtremesAndRandomValues) {
  std::mt19937_64 rng(42);  // test data only, not ID randomness
  std::vector<std::uint64_t> values{0, 1, 61, 62, 1468006400000151552ull, (1ull << 53), ~0ull};
  for (int i = 0; i < 1000; ++i) values.push_back(rng());
  for (auto e : kAll)
    for (auto v : values) EXPECT_EQ(decode_u64(encode_u64(v, e), e), v) << to_string(e) << " " << v;
}

TEST(IntCodec, FixedWidthFormsSortLikeNumbers) {
  std::mt19937_64 rng(7);
  for (auto e : {IntEncoding::hex, IntEncoding::base32, IntEncoding::base62})
    for (int i = 0; i < 1000; ++i) {
      const std::uint64_t a = rng(), b = rng();
      EXPECT_EQ(a < b, encode_u64(a, e) < encode_u64(b, e)) << to_string(e);
    }
}

TEST(IntCodec, KnownForms) {
  EXPECT_EQ(encode_u64(1468006400000151552ull, IntEncoding::hex), "145f680b00025000");
  EXPECT_EQ(encode_u64(~0ull, IntEncoding::base32), "FZZZZZZZZZZZZ");
  EXPECT_EQ(encode_u64(~0ull, IntEncoding::base62), "LygHa16AHYF");
  EXPECT_EQ(encode_u64(0, IntEncoding::base62), "00000000000");
}

TEST(IntCodec, CrockfordAliasesAndCase) {
  EXPECT_EQ(decode_u64("ilo", IntEncoding::base32), decode_u64("110", IntEncoding::base32));
  EXPECT_EQ(decode_u64("abc", IntEncoding::base32), decode_u64("ABC", IntEncoding::base32));
  EXPECT_EQ(decode_u64("0x1F", IntEncoding::hex), 31u);
}

TEST(IntCodec, RejectsBadInputWithPosition) {
  struct Case {
    const char* text;
    IntEncoding e;
    std::size_t pos;
    const char* reason;
  };
  const Case cases[] = {
      {"", IntEncoding::decimal, 0, "no digits"},
      {"12a4", IntEncoding::decimal, 2, "'a' is not a decimal digit"},
      {"-5", IntEncoding::decimal, 0, "'-'"},
      {"18446744073709551616", IntEncoding::decimal, 19, "exceeds 2^64-1"},
      {"123456789012345678901", IntEncoding::decimal, 20, "too long"},
      {"0x", IntEncoding::hex, 2, "no digits"},
      {"0xabg", IntEncoding::hex, 4, "'g'"},
      {"12345678901234567", IntEncoding::hex, 16, "too long"},
      {"7U", IntEncoding::base32, 1, "excludes U"},
      {"G000000000000", IntEncoding::base32, 0, "65 bits"},
      {"LygHa16AHYG", IntEncoding::base62, 10, "exceeds"},
      {"ab-c", IntEncoding::base62, 2, "'-'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      decode_u64(c.text, c.e);
      ADD_FAILURE() << "accepted";
    } catch (const ParseError& err) {
      EXPECT_EQ(err.position(), c.pos) << err.what();
      EXPECT_NE(std::string(err.what()).find(c.reason), std::string::npos) << err.what();
      EXPECT_EQ(err.input(), c.text);
    }
  }
}

TEST(IntCodec, EncodingNames) {
  EXPECT_EQ(parse_int_encoding("dec"), IntEncoding::decimal);
  EXPECT_EQ(parse_int_encoding("crockford"), IntEncoding::base32);
  EXPECT_THROW(parse_int_encoding("base64"), ParseError);
}

}  // namespace
}  // namespace idforge
