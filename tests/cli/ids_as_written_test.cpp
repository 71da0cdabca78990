// An ID argument is one ID, exactly as written: "[1234,5678]" is not a list of two
// Snowflakes and "[<uuid>]" is not a UUID; brackets are no ID form, so both are refused.
#include <gtest/gtest.h>

#include "one_line_error.hpp"
#include "run_command.hpp"

namespace idforge {
namespace {

using test::expect_one_line_error;
using test::run_idforge;

constexpr const char* kUuid = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

TEST(CliIdsAsWritten, InspectRefusesABracketedListWithTheRule) {
  const auto r = run_idforge({"inspect", "[1234,5678]"});
  expect_one_line_error(r, 1, "invalid ID '[1234,5678]'");
  EXPECT_NE(r.err.find("expected a UUID"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliIdsAsWritten, InspectRefusesABracketedUuid) {
  const auto r = run_idforge({"inspect", std::string("[") + kUuid + "]"});
  expect_one_line_error(r, 1, std::string("invalid ID '[") + kUuid + "]'");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliIdsAsWritten, ConvertRefusesABracketedUuid) {
  const auto r = run_idforge({"convert", std::string("[") + kUuid + "]", "--to", "ulid"});
  expect_one_line_error(r, 1, std::string("'[") + kUuid + "]'");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliIdsAsWritten, SeveralIdsAreStillSeveralArguments) {
  const auto r = run_idforge({"inspect", "--json", "1234", kUuid, "--layout", "twitter", "5678"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = r.lines();
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_NE(lines[0].find(R"("input":"1234")"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find(kUuid), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find(R"("input":"5678")"), std::string::npos) << lines[2];
}

TEST(CliIdsAsWritten, AnUnknownOptionOrNoIdIsAUsageError) {
  expect_one_line_error(run_idforge({"inspect", "1234", "--bogus"}), 2, "--bogus");
  expect_one_line_error(run_idforge({"inspect"}), 2, "an ID is required");
  expect_one_line_error(run_idforge({"convert", "--to", "ulid"}), 2, "an ID is required");
}

// "-5" used to be taken for an option and answered with a usage error; it is an ID argument
// that does not decode, and the error says why.
// "--" ends the options: what follows is IDs, taken as written even when it starts with '-'.
TEST(CliIdsAsWritten, AfterDoubleDashEveryArgumentIsAnId) {
  const auto r = run_idforge({"inspect", "--", kUuid});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("uuid"), std::string::npos) << r.out;
  const auto two = run_idforge({"inspect", kUuid, "--", "01ARZ3NDEKTSV4RRFFQ69G5FAV"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(two.out.find("ulid"), std::string::npos) << two.out;
  // An option's spelling after "--" is an ID, refused as one (exit 1), not read as the option.
  const auto dash = run_idforge({"inspect", "--", "--json"});
  expect_one_line_error(dash, 1, "invalid ID '--json'");
  const auto conv = run_idforge({"convert", "--to", "ulid", "--", kUuid});
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
}

TEST(CliIdsAsWritten, ACommandThatTakesNoIdsRefusesArgumentsAfterDoubleDash) {
  const auto r = run_idforge({"gen", "uuid7", "--", "x"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("x"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << "the command must not run: " << r.out;
}

TEST(CliIdsAsWritten, ANegativeNumberIsDecodedAndRefusedAsAnId) {
  const auto r = run_idforge({"inspect", "-5"});
  expect_one_line_error(r, 1, "'-5'");
  EXPECT_EQ(r.err.find("not expected"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  expect_one_line_error(run_idforge({"inspect", "-x"}), 2, "-x");
}

}  // namespace
}  // namespace idforge
