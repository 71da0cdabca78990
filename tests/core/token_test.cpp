// random_token: the length and alphabet each encoding promises, at least the entropy asked
// for, no two alike, every base62 character drawn evenly, and bad bits refused by name.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>
#include <string>

#include "expect_errc.hpp"
#include "idforge/error.hpp"
#include "idforge/token.hpp"

namespace idforge {
namespace {

bool all_in(const std::string& s, const std::string& alphabet) {
  return s.find_first_not_of(alphabet) == std::string::npos;
}

const std::string kBase62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const std::string kBase64Url = kBase62 + "-_";

TEST(Token, LengthsAndEntropyForTheUsualSizes) {
  struct Case {
    unsigned bits;
    TokenEncoding enc;
    std::size_t length;
  };
  const Case cases[] = {{128, TokenEncoding::base62, 22},
                        {256, TokenEncoding::base62, 43},
                        {128, TokenEncoding::base64url, 22},
                        {256, TokenEncoding::base64url, 43},
                        {130, TokenEncoding::base64url, 23},
                        // Rounded up to whole bytes: 17 bytes = 136 bits, as documented.
                        {129, TokenEncoding::base64url, 23},
                        {129, TokenEncoding::base62, 22}};
  for (const auto& c : cases) {
    const TokenOptions o{c.bits, c.enc};
    SCOPED_TRACE(std::to_string(c.bits));
    EXPECT_EQ(token_length(o), c.length);
    EXPECT_EQ(random_token(o).size(), c.length);
    EXPECT_GE(token_entropy_bits(o), c.bits);
  }
}

TEST(Token, UsesOnlyItsAlphabet) {
  for (int i = 0; i < 200; ++i) {
    EXPECT_TRUE(all_in(random_token({256, TokenEncoding::base62}), kBase62));
    const std::string u = random_token({256, TokenEncoding::base64url});
    EXPECT_TRUE(all_in(u, kBase64Url)) << u;
    EXPECT_EQ(u.find('='), std::string::npos);
  }
}

TEST(Token, NoTwoAlike) {
  std::set<std::string> seen;
  for (int i = 0; i < 20000; ++i)
    EXPECT_TRUE(seen.insert(random_token({128, TokenEncoding::base62})).second);
}

TEST(Token, Base62CharactersAreEvenlyDrawn) {
  // 62 x 1000 characters: each count is about 1000 with a standard deviation near 31; a
  // modulo bias (bytes 248..255 kept) would lift 0..7 by 3%, a broken draw by far more.
  std::array<int, 256> count{};
  std::size_t total = 0;
  while (total < 62'000) {
    for (char c : random_token({4096, TokenEncoding::base62}))
      ++count[static_cast<unsigned char>(c)];
    total += token_length({4096, TokenEncoding::base62});
  }
  for (char c : kBase62) {
    const double expected = static_cast<double>(total) / 62;
    EXPECT_NEAR(count[static_cast<unsigned char>(c)], expected, expected * 0.2) << c;
  }
}

TEST(Token, RefusesTooFewOrTooManyBits) {
  for (unsigned bits : {0u, 64u, 127u, 4097u}) {
    EXPECT_TRUE(test::throws_errc(
        [&] {
          random_token({bits, TokenEncoding::base62});
        },
        errc::invalid_argument, {"token bits " + std::to_string(bits)}));
  }
}

TEST(Token, ParsesEncodingNames) {
  EXPECT_EQ(parse_token_encoding("base62"), TokenEncoding::base62);
  EXPECT_EQ(parse_token_encoding("base64url"), TokenEncoding::base64url);
}

TEST(Token, RefusesOtherEncodingsNamingValueAndChoices) {
  // "base64" too: a user asking for it expects '+' and '/', which base64url never writes.
  for (const char* name : {"hex", "base64", "Base62", ""}) {
    EXPECT_TRUE(test::throws_errc(
        [&] { (void)parse_token_encoding(name); }, errc::invalid_argument,
        {"unknown token encoding '" + std::string(name) + "': use base62 or base64url"}))
        << name;
  }
}

}  // namespace
}  // namespace idforge
