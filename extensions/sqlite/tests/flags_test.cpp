// The function flags as SQLite acts on them: generators are evaluated once per call and row
// (never folded), conversions are deterministic, idforge_node() runs only from top-level SQL.
#include <gtest/gtest.h>

#include <string>

#include "sqlite_test_support.hpp"

namespace idforge::sqlite_test {
namespace {

TEST(SqliteFlags, TwoCallsInOneRowGiveTwoValues) {
  Db db;
  db.exec("SELECT idforge_node(1)");
  for (const char* f : {"uuid7()", "uuid7_blob()", "uuid4()", "ulid()", "snowflake()"}) {
    const auto r = db.row(std::string("SELECT ") + f + ", " + f);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_NE(r[0], r[1]) << f;
  }
}

TEST(SqliteFlags, AGeneratorInAMultiRowInsertGivesEveryRowItsOwnValue) {
  Db db;
  db.exec("SELECT idforge_node(2)");
  for (const char* f : {"uuid7()", "uuid7_blob()", "uuid4()", "ulid()", "snowflake()"}) {
    db.exec("DROP TABLE IF EXISTS t; CREATE TABLE t(id)");
    db.exec(rows(5000) + "INSERT INTO t SELECT " + f + " FROM c");
    EXPECT_EQ(db.integer("SELECT count(DISTINCT id) FROM t"), 5000) << f;
  }
}

TEST(SqliteFlags, AGeneratorAsColumnDefaultRunsPerRowEvenWithAnUntrustedSchema) {
  Db db;
  // INNOCUOUS is what lets a DEFAULT use them when the schema is not trusted.
  db.exec("PRAGMA trusted_schema = OFF");
  db.exec(
      "CREATE TABLE t(id TEXT PRIMARY KEY DEFAULT (uuid7()), u BLOB DEFAULT (uuid7_blob()), n)");
  db.exec(rows(2000) + "INSERT INTO t(n) SELECT x FROM c");
  EXPECT_EQ(db.integer("SELECT count(DISTINCT id) + count(DISTINCT u) FROM t"), 4000);
  EXPECT_EQ(db.integer("SELECT count(*) FROM t WHERE uuid_str(u) = id"), 0);  // separate calls
}

TEST(SqliteFlags, ConversionsAreDeterministicAndGeneratorsAreNot) {
  Db db;
  db.exec(
      "CREATE TABLE t(u BLOB, s TEXT AS (uuid_str(u)))");  // generated columns want deterministic
  db.exec("CREATE INDEX t_text ON t(uuid_str(u))");
  db.exec("CREATE INDEX t_kind ON t(json_extract(idforge_inspect(u), '$.version'))");
  db.exec(rows(100) + "INSERT INTO t(u) SELECT uuid7_blob() FROM c");
  EXPECT_EQ(db.integer("SELECT count(*) FROM t WHERE s = uuid_str(u)"), 100);
  EXPECT_NE(db.error("CREATE TABLE g(a, b AS (uuid7()))").find("non-deterministic"),
            std::string::npos);
  EXPECT_NE(db.error("CREATE INDEX bad ON t(snowflake())").find("non-deterministic"),
            std::string::npos);
}

TEST(SqliteFlags, IdforgeNodeRunsOnlyFromTopLevelSql) {
  Db db;
  db.exec("CREATE VIEW v AS SELECT idforge_node(3) AS n");
  EXPECT_NE(db.error("SELECT * FROM v").find("unsafe use of idforge_node()"), std::string::npos);
  db.exec(
      "CREATE TABLE t(a); CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT idforge_node(4); END");
  EXPECT_NE(db.error("INSERT INTO t VALUES (1)").find("unsafe use of idforge_node()"),
            std::string::npos);
  EXPECT_EQ(db.text("SELECT idforge_node()"), "NULL");  // neither took effect
  // Reading the node is harmless, and so allowed in a view.
  db.exec("CREATE VIEW which AS SELECT idforge_node() AS n");
  db.exec("SELECT idforge_node(5)");
  EXPECT_EQ(db.integer("SELECT n FROM which"), 5);
}

TEST(SqliteFlags, EachConnectionHasItsOwnNode) {
  Db a, b;
  a.exec("SELECT idforge_node(10)");
  EXPECT_EQ(b.text("SELECT idforge_node()"), "NULL");
  EXPECT_FALSE(b.error("SELECT snowflake()").empty());
  b.exec("SELECT idforge_node(11)");
  EXPECT_EQ(a.integer("SELECT json_extract(idforge_inspect(snowflake()), '$.node')"), 10);
  EXPECT_EQ(b.integer("SELECT json_extract(idforge_inspect(snowflake()), '$.node')"), 11);
}

}  // namespace
}  // namespace idforge::sqlite_test
