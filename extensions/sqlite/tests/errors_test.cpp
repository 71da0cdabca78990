// Bad input gets SQLite's error with the CLI's message (the value and the rule), never a crash,
// and a failed idforge_node() leaves the connection's node as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sqlite_test_support.hpp"

namespace idforge::sqlite_test {
namespace {

struct Case {
  const char* sql;
  std::vector<std::string> says;  // substrings of the message, in order of appearance
};

class SqliteErrors : public ::testing::TestWithParam<Case> {};

TEST_P(SqliteErrors, FailWithTheValueAndTheRule) {
  Db db;
  const std::string message = db.error(GetParam().sql);
  ASSERT_FALSE(message.empty()) << GetParam().sql << " succeeded";
  std::size_t at = 0;
  for (const auto& part : GetParam().says) {
    const std::size_t found = message.find(part, at);
    EXPECT_NE(found, std::string::npos) << "'" << part << "' missing from: " << message;
    if (found != std::string::npos) at = found + part.size();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Arguments, SqliteErrors,
    ::testing::Values(
        Case{"SELECT uuid_str(NULL)", {"uuid_str(): ", "16-byte blob", "got NULL"}},
        Case{"SELECT uuid_str(x'0011')", {"uuid_str(): ", "16-byte blob", "got blob of 2 bytes"}},
        Case{"SELECT uuid_str('0190163d-8694-739b-aea5-966c26f8ad91')",
             {"16-byte blob", "got text '0190163d-8694-739b-aea5-966c26f8ad91'"}},
        Case{"SELECT uuid_str(5)", {"16-byte blob", "got integer 5"}},
        Case{"SELECT uuid_blob(NULL)", {"uuid_blob(): ", "UUID text", "got NULL"}},
        Case{"SELECT uuid_blob(42)", {"uuid_blob(): ", "UUID text", "got integer 42"}},
        Case{"SELECT uuid_blob(1.5)", {"UUID text", "got real 1.5"}},
        Case{"SELECT uuid_blob(x'0190163d8694739baea5966c26f8ad91')",
             {"UUID text", "got blob of 16 bytes"}},
        Case{"SELECT uuid_blob('0190163d-8694-739b-aea5-966c26f8ad9')",
             {"uuid_blob(): ", "0190163d-8694-739b-aea5-966c26f8ad9"}},
        Case{"SELECT uuid_blob('0190163d-8694-739b-aea5-966c26f8adzz')",
             {"uuid_blob(): ", "position"}},
        Case{"SELECT uuid_blob('')", {"uuid_blob(): "}},
        Case{"SELECT idforge_inspect(NULL)",
             {"idforge_inspect(): ", "text, an integer", "got NULL"}},
        Case{"SELECT idforge_inspect(2.5)", {"idforge_inspect(): ", "got real 2.5"}},
        Case{"SELECT idforge_inspect(x'00')", {"idforge_inspect(): ", "got blob of 1 byte"}},
        Case{"SELECT idforge_inspect('no-such-id')", {"idforge_inspect(): ", "no-such-id"}},
        Case{"SELECT idforge_inspect('1', 'time=99')", {"idforge_inspect(): ", "99"}},
        Case{"SELECT idforge_inspect('1', 7)",
             {"idforge_inspect(): ", "layout must be text", "got integer 7"}},
        Case{"SELECT snowflake()", {"snowflake(): ", "no node ID", "idforge_node(N)"}},
        Case{"SELECT idforge_node(1024)",
             {"idforge_node(): ",
              "node ID 1024 out of range: layout 'twitter' has 10 node bits, so 0..1023"}},
        Case{"SELECT idforge_node(-1)", {"idforge_node(): ", "node ID -1 out of range", "0..1023"}},
        Case{"SELECT idforge_node(70000, 'sonyflake')",
             {"node ID 70000 out of range", "sonyflake", "0..65535"}},
        Case{"SELECT idforge_node(NULL)",
             {"idforge_node(): ", "integer node ID", "lease URL", "got NULL"}},
        Case{"SELECT idforge_node(2.0)", {"idforge_node(): ", "got real 2.0"}},
        Case{"SELECT idforge_node(x'07')", {"idforge_node(): ", "got blob of 1 byte"}},
        Case{"SELECT idforge_node(1, 'no-such-preset')", {"idforge_node(): ", "no-such-preset"}},
        Case{"SELECT idforge_node(1, 'time=50,dc=5,worker=5,seq=12')", {"idforge_node(): ", "50"}},
        Case{"SELECT idforge_node(1, NULL)",
             {"idforge_node(): ", "layout must be text", "got NULL"}},
#ifdef IDFORGE_SQLITE_WITH_COORD
        Case{"SELECT idforge_node('nosuchstore:x')", {"idforge_node(): ", "nosuchstore"}},
        Case {
          "SELECT idforge_node('redis://127.0.0.1:1')", {
            "idforge_node(): ", "127.0.0.1:1"
          }
        }
#else
        Case{"SELECT idforge_node('file:/tmp/x')",
             {"idforge_node(): ", "no lease stores", "idforge_node(7)"}}
#endif
        ));

TEST(SqliteErrorsText, BytesThatAreNotUtf8ComeBackEscaped) {
  Db db;
  const std::string message = db.error("SELECT uuid_blob(CAST(x'ff41fe0a00' AS TEXT))");
  ASSERT_FALSE(message.empty());
  EXPECT_NE(message.find("\\xff"), std::string::npos) << message;
  for (const char ch : message) EXPECT_NE(static_cast<unsigned char>(ch), 0xFF) << message;
  // The decoders take such bytes too, and a blob of them cast to text.
  EXPECT_FALSE(db.error("SELECT idforge_inspect(CAST(x'c0afed' AS TEXT))").empty());
  EXPECT_FALSE(db.error("SELECT idforge_node(CAST(x'fffe' AS TEXT))").empty());
}

TEST(SqliteErrorsText, LongInputIsCutInTheMessage) {
  Db db;
  const std::string message = db.error("SELECT uuid_str(printf('%.*c', 100000, 'a'))");
  EXPECT_NE(message.find("(100000 bytes)"), std::string::npos) << message.substr(0, 200);
  EXPECT_LT(message.size(), 400u);
}

TEST(SqliteErrorsText, AFailedNodeChangeKeepsTheNode) {
  Db db;
  db.exec("SELECT idforge_node(7)");
  EXPECT_FALSE(db.error("SELECT idforge_node(5000)").empty());
  EXPECT_FALSE(db.error("SELECT idforge_node(3, 'bogus')").empty());
  EXPECT_EQ(db.integer("SELECT idforge_node()"), 7);
  EXPECT_EQ(db.integer("SELECT json_extract(idforge_inspect(snowflake()), '$.node')"), 7);
}

TEST(SqliteErrorsText, AnErrorStopsTheStatementOnly) {
  Db db;
  EXPECT_FALSE(db.error("SELECT uuid_str(NULL)").empty());
  EXPECT_EQ(db.text("SELECT length(uuid7())"), "36");
}

// A NUL inside a lease URL or a layout is refused before any store sees the text (a C path
// would stop at the NUL and create a folder of its own), and the message shows it as \x00.
TEST(SqliteErrorsText, ANulInsideTheUrlOrLayoutIsRefused) {
  Db db;
  const auto dir =
      std::filesystem::temp_directory_path() / ("idforge-sqlite-nul-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const std::string url = "file:" + dir.string() + "/N";
  std::string message =
      db.error("SELECT idforge_node(CAST('" + url + "' || x'00' || 'zz' AS TEXT))");
  EXPECT_NE(message.find("the lease URL must not contain a NUL byte"), std::string::npos)
      << message;
  EXPECT_NE(message.find("'" + url + "\\x00zz'"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(dir));
  message = db.error("SELECT idforge_node(1, CAST('twitter' || x'00' || 'zz' AS TEXT))");
  EXPECT_NE(message.find("the layout must not contain a NUL byte"), std::string::npos) << message;
  EXPECT_NE(message.find("'twitter\\x00zz'"), std::string::npos) << message;
  EXPECT_EQ(db.text("SELECT idforge_node()"), "NULL");
}

// A long lease URL or layout is quoted by its first 48 bytes and its length.
TEST(SqliteErrorsText, ALongUrlOrLayoutIsCutInTheMessage) {
  Db db;
  for (const std::string sql :
       {"SELECT idforge_node('file:/tmp/' || printf('%.*c', 100000, 'a'))",
        "SELECT idforge_node('static:1?state=/tmp/' || printf('%.*c', 3000, 'a'))",
        "SELECT idforge_node(1, 'time=' || printf('%.*c', 100000, '1'))",
        "SELECT idforge_node(1, 'time=' || printf('%.*c', 1000, '1'))"}) {
    const std::string message = db.error(sql);
    EXPECT_NE(message.find(" bytes"), std::string::npos) << message.substr(0, 300);
    EXPECT_LT(message.size(), 500u) << message.substr(0, 300);
  }
}

TEST(SqliteErrorsText, MessagesReadAsEnglish) {
  Db db;
  std::string message = db.error("SELECT uuid_str(x'00')");
  EXPECT_EQ(message.substr(message.size() - 18), "got blob of 1 byte") << message;
  message = db.error("SELECT idforge_node(1, 'time=40,dc=5,worker=5,seq=12,unsigned')");
  EXPECT_NE(message.find("but an unsigned layout has 64 bits"), std::string::npos) << message;
  // Numeric text is not a node ID: the hint says what to pass.
  message = db.error("SELECT idforge_node('7')");
  EXPECT_NE(message.find("pass an INTEGER node ID"), std::string::npos) << message;
  EXPECT_NE(message.find("or a lease URL such as file:/path"), std::string::npos) << message;
}

}  // namespace
}  // namespace idforge::sqlite_test
