// The CLI's UUID and ULID commands, driven as a user would.
#include <gtest/gtest.h>

#include <set>

#include "idforge/ulid.hpp"
#include "idforge/uuid.hpp"
#include "run_command.hpp"

namespace idforge {
namespace {

using test::run_idforge;

TEST(CliGenUuid7, PrintsNStrictlyIncreasingCanonicalV7s) {
  const auto r = run_idforge({"gen", "uuid7", "-n", "10000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = r.lines();
  ASSERT_EQ(lines.size(), 10000u);
  Uuid prev;
  for (const auto& l : lines) {
    ASSERT_EQ(l.size(), 36u);
    const Uuid u = Uuid::parse(l);
    ASSERT_EQ(u.to_string(), l);  // canonical lowercase
    ASSERT_EQ(u.version(), 7);
    ASSERT_LT(prev, u);
    prev = u;
  }
}

TEST(CliGenUuid4, PrintsDistinctV4sInHex) {
  const auto r = run_idforge({"gen", "uuid4", "-n", "5000", "--format", "hex"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> seen;
  for (const auto& l : r.lines()) {
    ASSERT_EQ(l.size(), 32u);
    EXPECT_EQ(Uuid::parse(l).version(), 4);
    EXPECT_TRUE(seen.insert(l).second);
  }
  EXPECT_EQ(seen.size(), 5000u);
}

TEST(CliGenUlid, PrintsIncreasingUlids) {
  const auto r = run_idforge({"gen", "ulid", "-n", "5000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string prev;
  for (const auto& l : r.lines()) {
    ASSERT_EQ(l.size(), 26u);
    ASSERT_NO_THROW(Ulid::parse(l));
    ASSERT_LT(prev, l);  // text order is time order
    prev = l;
  }
}

TEST(CliGenUlid, HexLinesAreTheBytesOfIncreasingUlidsAcrossChunks) {
  const auto r = run_idforge({"gen", "ulid", "-n", "5000", "--format", "hex"});  // 2 chunks
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = r.lines();
  ASSERT_EQ(lines.size(), 5000u);
  Ulid prev;
  for (const auto& l : lines) {
    ASSERT_EQ(l.size(), 32u);
    const Ulid u = Ulid::from_uuid(Uuid::parse(l));
    ASSERT_EQ(u.to_uuid().to_hex(), l);
    ASSERT_LT(prev, u);
    prev = u;
  }
}

TEST(CliGenUlid, JsonCarriesTextHexAndTime) {
  const auto r = run_idforge({"gen", "ulid", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string line = r.lines().at(0);
  const Ulid u = Ulid::parse(line.substr(7, 26));
  EXPECT_EQ(line, R"({"id":")" + u.to_string() + R"(","hex":")" + u.to_uuid().to_hex() +
                      R"(","unix_ms":)" + std::to_string(u.unix_ms()) + "}");
}

TEST(CliGenUuid, V4JsonHasNoTime) {
  const auto r = run_idforge({"gen", "uuid4", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("unix_ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("hex":")"), std::string::npos) << r.out;
}

TEST(CliGenUuid, GeneratedIdsInspectBackWithTheirVersionAndTime) {
  const auto v7 = run_idforge({"gen", "uuid7"});
  const auto in7 = run_idforge({"inspect", "--json", v7.lines().at(0)});
  ASSERT_EQ(in7.exit_code, 0) << in7.err;
  EXPECT_NE(in7.out.find(R"("kind":"uuid")"), std::string::npos) << in7.out;
  EXPECT_NE(in7.out.find(R"("version":7)"), std::string::npos) << in7.out;
  EXPECT_NE(in7.out.find(R"("unix_ms":)"), std::string::npos) << in7.out;
  const auto ul = run_idforge({"gen", "ulid"});
  const auto inu = run_idforge({"inspect", ul.lines().at(0)});
  ASSERT_EQ(inu.exit_code, 0) << inu.err;
  EXPECT_NE(inu.out.find("kind       ulid"), std::string::npos) << inu.out;
}

TEST(CliInspectUuid, RfcExamplesPrintVersionVariantAndTime) {
  const auto r = run_idforge({"inspect", "017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
                              "urn:uuid:c232ab00-9414-11ec-b3c8-9f6bdeced846"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("version    7 (Unix time, ordered)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("version    1 (Gregorian time, node)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("variant    RFC 9562"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time       2022-02-22T19:22:22.000Z"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rand_a     0xcc3"), std::string::npos) << r.out;
}

TEST(CliInspectUuid, MalformedIdsNameThePosition) {
  const auto r = run_idforge({"inspect", "017f22e2-79b0-7cc3-98c4-dc0c0c07398g"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("invalid UUID '017f22e2-79b0-7cc3-98c4-dc0c0c07398g' at position 35"),
            std::string::npos)
      << r.err;
  const auto u = run_idforge({"inspect", "01ARZ3NDEKTSV4RRFFQ69G5FAU"});
  EXPECT_EQ(u.exit_code, 1);
  EXPECT_NE(u.err.find("at position 25: 'U'"), std::string::npos) << u.err;
}

TEST(CliGenUuid, BadOptionsAreUsageErrors) {
  EXPECT_EQ(run_idforge({"gen", "uuid7", "--format", "base62"}).exit_code, 2);
  EXPECT_EQ(run_idforge({"gen", "ulid", "-n", "0"}).exit_code, 2);
  EXPECT_EQ(run_idforge({"gen", "uuid9"}).exit_code, 2);
}

}  // namespace
}  // namespace idforge
