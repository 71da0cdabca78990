// Every SQL function of the extension gives what its doc line in docs/DATABASE.md promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <string>

#include "sqlite_test_support.hpp"

namespace idforge::sqlite_test {
namespace {

const std::regex kCanonical(
    "[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

TEST(SqliteFunctions, Uuid7IsCanonicalLowercaseVersion7Text) {
  Db db;
  EXPECT_EQ(db.type("SELECT uuid7()"), SQLITE_TEXT);
  const std::string u = db.text("SELECT uuid7()");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(u, m, kCanonical)) << u;
  EXPECT_EQ(m[1], "7");
}

TEST(SqliteFunctions, Uuid7BlobIsSixteenBytesOfVersion7) {
  Db db;
  EXPECT_EQ(db.type("SELECT uuid7_blob()"), SQLITE_BLOB);
  const auto b = db.blob("SELECT uuid7_blob()");
  ASSERT_EQ(b.size(), 16u);
  EXPECT_EQ(b[6] >> 4, 7);
  EXPECT_EQ(b[8] >> 6, 2);  // RFC 9562 variant
}

TEST(SqliteFunctions, Uuid4IsCanonicalVersion4Text) {
  Db db;
  const std::string u = db.text("SELECT uuid4()");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(u, m, kCanonical)) << u;
  EXPECT_EQ(m[1], "4");
}

TEST(SqliteFunctions, UlidIsTwentySixCrockfordCharacters) {
  Db db;
  const std::string u = db.text("SELECT ulid()");
  EXPECT_TRUE(std::regex_match(u, std::regex("[0-7][0-9A-HJKMNP-TV-Z]{25}"))) << u;
}

TEST(SqliteFunctions, Uuid7AndUlidIncreaseAcrossRowsAndConnections) {
  Db a, b;
  for (const char* f : {"uuid7()", "ulid()", "uuid_str(uuid7_blob())"}) {
    std::vector<std::string> ids = a.column(rows(500) + "SELECT " + f + " FROM c");
    const auto more = b.column(rows(500) + "SELECT " + f + " FROM c");
    ids.insert(ids.end(), more.begin(), more.end());  // b's come after a's: one process sequence
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << f;
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << f;
  }
}

TEST(SqliteFunctions, UuidStrOfUuidBlobGivesTheCanonicalTextBack) {
  Db db;
  const std::string u = "0190163d-8694-739b-aea5-966c26f8ad91";
  for (const std::string& form :
       {u, std::string("0190163D-8694-739B-AEA5-966C26F8AD91"),
        std::string("0190163d8694739baea5966c26f8ad91"), "{" + u + "}", "urn:uuid:" + u})
    EXPECT_EQ(db.text("SELECT uuid_str(uuid_blob('" + form + "'))"), u) << form;
  // And for fresh IDs of every version the generators make. Stored first: a subquery column
  // u = uuid7() would be flattened, and each mention of u would be a call of its own.
  db.exec("CREATE TABLE ids(u TEXT)");
  db.exec(rows(1000) + "INSERT INTO ids SELECT uuid7() FROM c UNION ALL SELECT uuid4() FROM c");
  EXPECT_EQ(db.integer("SELECT count(*) FROM ids WHERE uuid_str(uuid_blob(u)) = u"), 2000);
}

TEST(SqliteFunctions, UuidBlobIsTheSixteenBytesInNetworkOrder) {
  Db db;
  EXPECT_EQ(db.text("SELECT hex(uuid_blob('0190163d-8694-739b-aea5-966c26f8ad91'))"),
            "0190163D8694739BAEA5966C26F8AD91");
  EXPECT_EQ(db.text("SELECT uuid_str(x'0190163D8694739BAEA5966C26F8AD91')"),
            "0190163d-8694-739b-aea5-966c26f8ad91");
}

TEST(SqliteFunctions, SnowflakeCarriesTheConnectionsNode) {
  Db db;
  EXPECT_EQ(db.text("SELECT idforge_node()"), "NULL");
  EXPECT_EQ(db.integer("SELECT idforge_node(7)"), 7);
  EXPECT_EQ(db.integer("SELECT idforge_node()"), 7);
  EXPECT_EQ(db.type("SELECT snowflake()"), SQLITE_INTEGER);
  EXPECT_EQ(db.integer("SELECT json_extract(idforge_inspect(snowflake()), '$.node')"), 7);
  EXPECT_EQ(db.integer("SELECT idforge_node(300, 'sonyflake')"), 300);
  EXPECT_EQ(db.integer("SELECT json_extract(idforge_inspect(snowflake(), 'sonyflake'), '$.node')"),
            300);
  // A layout spec, as `--layout` takes it.
  EXPECT_EQ(db.integer("SELECT idforge_node(303, 'time=41,dc=0,worker=10,seq=12')"), 303);
  EXPECT_EQ(db.integer("SELECT json_extract(idforge_inspect(snowflake(), "
                       "'time=41,dc=0,worker=10,seq=12'), '$.node')"),
            303);
}

TEST(SqliteFunctions, SnowflakesIncreaseOnOneConnection) {
  Db db;
  db.exec("SELECT idforge_node(1)");
  const auto ids = db.column(rows(10000) + "SELECT snowflake() FROM c");
  std::vector<std::int64_t> v;
  for (const auto& s : ids) v.push_back(std::stoll(s));
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
  EXPECT_EQ(std::adjacent_find(v.begin(), v.end()), v.end());
}

TEST(SqliteFunctions, InspectDecodesTextIntegersAndBlobs) {
  Db db;
  const std::string u = "0190163d-8694-739b-aea5-966c26f8ad91";
  EXPECT_EQ(db.text("SELECT json_extract(idforge_inspect('" + u + "'), '$.version')"), "7");
  EXPECT_EQ(db.text("SELECT json_extract(idforge_inspect(uuid_blob('" + u + "')), '$.canonical')"),
            u);
  EXPECT_EQ(db.text("SELECT json_extract(idforge_inspect(ulid()), '$.kind')"), "ulid");
  EXPECT_EQ(db.text("SELECT json_extract(idforge_inspect(1541815603606036480), '$.kind')"),
            "snowflake");
}

#ifdef IDFORGE_CLI_PATH
// The JSON is the very text `idforge inspect --json` prints.
TEST(SqliteFunctions, InspectIsWhatTheCliPrints) {
  Db db;
  for (const std::string id : {"0190163d-8694-739b-aea5-966c26f8ad91", "01ARZ3NDEKTSV4RRFFQ69G5FAV",
                               "1541815603606036480", "user_01h455vb4pex5vsknk084sn02q"}) {
    const std::string command = std::string(IDFORGE_CLI_PATH) + " inspect --json " + id + " 2>&1";
    FILE* p = popen(command.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string cli;
    char buf[4096];
    while (const std::size_t n = fread(buf, 1, sizeof buf, p)) cli.append(buf, n);
    pclose(p);
    if (!cli.empty() && cli.back() == '\n') cli.pop_back();
    EXPECT_EQ(db.text("SELECT idforge_inspect('" + id + "')"), cli) << id;
  }
}
#endif

}  // namespace
}  // namespace idforge::sqlite_test
