// The CLI's TypeID, KSUID and convert commands, driven as a user would.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "idforge/ksuid.hpp"
#include "idforge/typeid.hpp"
#include "run_command.hpp"

namespace idforge {
namespace {

using test::run_idforge;

TEST(CliGenTypeId, PrintsIncreasingV7TypeIdsWithThePrefix) {
  const auto r = run_idforge({"gen", "typeid", "--prefix", "user", "-n", "5000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = r.lines();
  ASSERT_EQ(lines.size(), 5000u);
  std::string prev;
  for (const auto& l : lines) {
    const TypeId t = TypeId::parse(l);
    ASSERT_EQ(t.prefix(), "user");
    ASSERT_EQ(t.uuid().version(), 7);
    ASSERT_LT(prev, l);
    prev = l;
  }
}

TEST(CliGenTypeId, WithoutPrefixPrintsABareSuffix) {
  const auto r = run_idforge({"gen", "typeid"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.lines().at(0).size(), 26u);
}

TEST(CliGenTypeId, BadPrefixNamesTheRule) {
  const auto r = run_idforge({"gen", "typeid", "--prefix", "user_"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("must not end with '_'"), std::string::npos) << r.err;
}

TEST(CliGenKsuid, PrintsDistinctKsuidsOfNow) {
  const auto r = run_idforge({"gen", "ksuid", "-n", "2000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> seen;
  for (const auto& l : r.lines()) {
    ASSERT_EQ(l.size(), 27u);
    EXPECT_GT(Ksuid::parse(l).unix_seconds(), 1'700'000'000);
    EXPECT_TRUE(seen.insert(l).second);
  }
  EXPECT_EQ(seen.size(), 2000u);
}

TEST(CliGenKsuid, JsonCarriesTextHexAndTime) {
  const auto r = run_idforge({"gen", "ksuid", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string line = r.lines().at(0);
  const Ksuid k = Ksuid::parse(line.substr(7, 27));
  std::string hex;
  for (auto b : k.bytes()) {
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", b);
    hex += buf;
  }
  EXPECT_EQ(line, R"({"id":")" + k.to_string() + R"(","hex":")" + hex + R"(","unix_ms":)" +
                      std::to_string(k.unix_seconds() * 1000) + "}");
}

TEST(CliConvert, UlidToEveryForm) {
  const char* ulid = "01H455VB4PEX5VSKNK084SN02Q";
  const std::pair<const char*, const char*> cases[] = {
      {"uuid", "01890a5d-ac96-774b-bcce-b302099a8057"},
      {"typeid:prefix", "prefix_01h455vb4pex5vsknk084sn02q"},
      {"hex", "01890a5dac96774bbcceb302099a8057"},
      {"base62", "02tcRIyrxLXTR81B3dqdOx"},
      {"ulid", ulid},
  };
  for (const auto& [to, want] : cases) {
    const auto r = run_idforge({"convert", ulid, "--to", to});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, std::string(want) + "\n") << to;
  }
}

TEST(CliConvert, SeveralIdsOneALine) {
  const auto r = run_idforge({"convert", "prefix_01h455vb4pex5vsknk084sn02q",
                              "00000000-0000-0000-0000-000000000000", "--to", "ulid"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "01H455VB4PEX5VSKNK084SN02Q\n00000000000000000000000000\n");
}

TEST(CliConvert, KsuidIsNotConvertible) {
  const auto r = run_idforge({"convert", "0ujtsYcgvSTl8PAuAdqWYSMnLOv", "--to", "uuid"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("KSUID: 160 bits"), std::string::npos) << r.err;
}

TEST(CliConvert, SnowflakeIsNotConvertible) {
  const auto r = run_idforge({"convert", "1468006400000151552", "--to", "ulid"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Snowflake (64 bits)"), std::string::npos) << r.err;
}

TEST(CliConvert, UnknownTargetAndMissingTargetAreRefused) {
  const auto bad = run_idforge({"convert", "01H455VB4PEX5VSKNK084SN02Q", "--to", "ksuid"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("expected uuid, ulid, typeid"), std::string::npos) << bad.err;
  EXPECT_EQ(run_idforge({"convert", "01H455VB4PEX5VSKNK084SN02Q"}).exit_code, 2);  // usage
}

TEST(CliInspect, RecognisesTypeIdAndKsuid) {
  const auto r = run_idforge(
      {"inspect", "--json", "prefix_01h455vb4pex5vsknk084sn02q", "0ujtsYcgvSTl8PAuAdqWYSMnLOv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = r.lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find(R"("kind":"typeid")"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(R"("unix_ms":1688096058518)"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find(R"("kind":"ksuid")"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(R"("unix_ms":1507608047000)"), std::string::npos) << lines[1];
}

}  // namespace
}  // namespace idforge
