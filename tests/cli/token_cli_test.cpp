// `idforge gen token` and the secret warning of `idforge inspect`: a token is random and
// says nothing of time; a time-based ID says plainly that it must not be a secret.
#include <gtest/gtest.h>

#include <set>

#include "run_command.hpp"

namespace idforge {
namespace {

using test::run_idforge;

TEST(TokenCli, PrintsCountTokensOfTheAskedSize) {
  const auto r =
      run_idforge({"gen", "token", "-n", "5", "--bits", "128", "--encoding", "base64url"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = r.lines();
  ASSERT_EQ(lines.size(), 5u);
  std::set<std::string> seen(lines.begin(), lines.end());
  EXPECT_EQ(seen.size(), 5u);
  for (const auto& l : lines) {
    EXPECT_EQ(l.size(), 22u) << l;
    EXPECT_EQ(
        l.find_first_not_of("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"),
        std::string::npos);
  }
  const auto def = run_idforge({"gen", "token"});
  ASSERT_EQ(def.exit_code, 0);
  EXPECT_EQ(def.lines().at(0).size(), 43u);  // 256 bits in base62
}

TEST(TokenCli, RefusesTooFewBitsAndUnknownEncodings) {
  const auto few = run_idforge({"gen", "token", "--bits", "64"});
  EXPECT_EQ(few.exit_code, 1);
  EXPECT_NE(few.err.find("token bits 64"), std::string::npos) << few.err;
  const auto enc = run_idforge({"gen", "token", "--encoding", "hex"});
  EXPECT_EQ(enc.exit_code, 1);
  EXPECT_NE(enc.err.find("unknown token encoding 'hex': use base62 or base64url"),
            std::string::npos)
      << enc.err;
  EXPECT_EQ(enc.err.find("position"), std::string::npos) << enc.err;
}

// Hex was read as a count (0x80 as 128); too many bits got the reason for too few.
TEST(TokenCli, BitsAreDecimalAndTooManyGetTheirOwnReason) {
  const auto hex = run_idforge({"gen", "token", "--bits", "0x80"});
  EXPECT_EQ(hex.exit_code, 2);
  EXPECT_NE(hex.err.find("'0x80' is not a whole number"), std::string::npos) << hex.err;
  const auto many = run_idforge({"gen", "token", "--bits", "65536"});
  EXPECT_EQ(many.exit_code, 1);
  EXPECT_NE(many.err.find("token bits 65536"), std::string::npos) << many.err;
  EXPECT_EQ(many.err.find("can be guessed"), std::string::npos) << many.err;
}

TEST(TokenCli, RefusesBase64ForItWouldNotBeStandardBase64) {
  const auto r = run_idforge({"gen", "token", "--encoding", "base64"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("unknown token encoding 'base64': use base62 or base64url"),
            std::string::npos)
      << r.err;
}

TEST(TokenCli, Base64urlRoundsBitsUpToWholeBytesAndHelpSaysSo) {
  const auto r = run_idforge({"gen", "token", "--bits", "129", "--encoding", "base64url"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.lines().at(0).size(), 23u);  // 17 bytes = 136 bits
  const auto help = run_idforge({"gen", "token", "--help"});
  EXPECT_NE(help.out.find("whole bytes (base64url)"), std::string::npos) << help.out;
}

TEST(InspectSecretWarning, TimeBasedIdsSayTheyAreNoSecret) {
  for (const std::vector<std::string>& gen :
       {std::vector<std::string>{"gen", "uuid7"},
        std::vector<std::string>{"gen", "snowflake", "--node", "3"},
        std::vector<std::string>{"gen", "ulid"}}) {
    const auto id = run_idforge(gen);
    ASSERT_EQ(id.exit_code, 0) << id.err;
    const auto text = run_idforge({"inspect", id.lines().at(0)});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("reveals its creation time; must not be used as a secret"),
              std::string::npos)
        << text.out;
    const auto json = run_idforge({"inspect", "--json", id.lines().at(0)});
    EXPECT_NE(json.out.find("\"warning\":\"reveals its creation time"), std::string::npos)
        << json.out;
  }
}

TEST(InspectSecretWarning, UuidV2RevealsItsTimeToo) {
  const auto text = run_idforge({"inspect", "000003e8-9414-21ec-8000-0242ac120002"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("reveals its creation time; must not be used as a secret"),
            std::string::npos)
      << text.out;
}

TEST(InspectSecretWarning, RandomUuid4HasNoWarning) {
  const auto id = run_idforge({"gen", "uuid4"});
  ASSERT_EQ(id.exit_code, 0);
  const auto text = run_idforge({"inspect", id.lines().at(0)});
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_EQ(text.out.find("warning"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace idforge
