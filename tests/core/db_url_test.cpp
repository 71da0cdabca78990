// MariaDB URLs taken apart as text: each part, the defaults, the last '@' rule, %XX
// escapes, and every malformed URL refused naming the URL (password hidden) and the rule.
#include <gtest/gtest.h>

#include <string>

#include "idforge/db_url.hpp"
#include "idforge/error.hpp"

namespace idforge {
namespace {

TEST(MariaDbUrl, EveryPartIsTakenApart) {
  const MariaDbUrl u = parse_mariadb_url("mysql://app:s3cret@db.local:3307/orders");
  EXPECT_EQ(u.user, "app");
  EXPECT_EQ(u.password, "s3cret");
  EXPECT_EQ(u.host, "db.local");
  EXPECT_EQ(u.port, 3307u);
  EXPECT_EQ(u.database, "orders");
}

TEST(MariaDbUrl, MariadbSchemeMeansTheSame) {
  const MariaDbUrl u = parse_mariadb_url("mariadb://root@127.0.0.1:13306/mysql");
  EXPECT_EQ(u.user, "root");
  EXPECT_EQ(u.password, "");
  EXPECT_EQ(u.port, 13306u);
  EXPECT_EQ(u.database, "mysql");
}

TEST(MariaDbUrl, LeftOutPartsKeepTheirDefaults) {
  const MariaDbUrl u = parse_mariadb_url("mysql://");
  EXPECT_EQ(u.user, "root");
  EXPECT_EQ(u.password, "");
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 3306u);
  EXPECT_EQ(u.database, "");
  EXPECT_EQ(parse_mariadb_url("mysql://h/").database, "");
  EXPECT_EQ(parse_mariadb_url("mysql://h:1").host, "h");
}

TEST(MariaDbUrl, APasswordEndsAtTheLastAtAndEscapesAreDecoded) {
  const MariaDbUrl u = parse_mariadb_url("mysql://at:tp@ss@127.0.0.1:1/x");
  EXPECT_EQ(u.password, "tp@ss");
  EXPECT_EQ(u.host, "127.0.0.1");
  const MariaDbUrl e = parse_mariadb_url("mysql://us%65r:p%3Aw%2Fd%zz@h/d");
  EXPECT_EQ(e.user, "user");
  EXPECT_EQ(e.password, "p:w/d%zz");  // %zz is no escape: kept as written
}

TEST(MariaDbUrl, TheQueryIsIgnored) {
  const MariaDbUrl u = parse_mariadb_url("mysql://u@h:5/d?ssl=1");
  EXPECT_EQ(u.database, "d");
  EXPECT_EQ(u.port, 5u);
}

TEST(MariaDbUrl, BadUrlsNameTheValueAndTheRule) {
  struct Case {
    const char* url;
    const char* says;
  };
  const Case cases[] = {
      {"", "has no scheme: it must start with mysql:// or mariadb://"},
      {"127.0.0.1:3306/db", "has no scheme"},
      {"postgres://u@h/d", "has scheme 'postgres', not mysql:// or mariadb://"},
      {"MYSQL://u@h/d", "has scheme 'MYSQL'"},
      {"mysql://u@h:x/d", "has port 'x', not 1..65535"},
      {"mysql://u@h:/d", "has port '', not 1..65535"},
      {"mysql://u@h:0/d", "has port '0', not 1..65535"},
      {"mysql://u@h:65536/d", "has port '65536', not 1..65535"},
      {"mysql://u@h:-1/d", "has port '-1'"},
      {"mysql://u@h:12ab/d", "has port '12ab'"},
      {"mysql://@h/d", "names no user before '@'"},
      {"mysql://:pw@h/d", "names no user before '@'"},
      {"mysql://u@h/my-db", "names database 'my-db': use letters, digits and _"},
      {"mysql://u@h/a/b", "names database 'a/b'"},
      {"mysql://u@h/d`x", "names database 'd`x'"},
  };
  for (const Case& c : cases) {
    try {
      parse_mariadb_url(c.url);
      ADD_FAILURE() << c.url << " was accepted";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.code(), errc::invalid_argument) << c.url;
      // The URL as written, but for a password (one case has one).
      EXPECT_NE(what.find("MariaDB URL '" + redact_mariadb_url(c.url) + "'"), std::string::npos)
          << what;
      EXPECT_NE(what.find(c.says), std::string::npos) << c.url << " -> " << what;
      EXPECT_NE(what.find("(form: mysql://USER[:PASSWORD]@HOST[:PORT][/DB])"), std::string::npos)
          << what;
    }
  }
}

TEST(MariaDbUrl, AnErrorNeverShowsThePassword) {
  try {
    parse_mariadb_url("mysql://app:hunter2@h:99999/d");
    FAIL();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("hunter2"), std::string::npos) << what;
    EXPECT_NE(what.find("'mysql://app:***@h:99999/d'"), std::string::npos) << what;
  }
}

TEST(MariaDbUrl, RedactHidesThePasswordAndOnlyIt) {
  EXPECT_EQ(redact_mariadb_url("mysql://at:tp@ss@127.0.0.1:1/x"), "mysql://at:***@127.0.0.1:1/x");
  EXPECT_EQ(redact_mariadb_url("mysql://u@h:1/x"), "mysql://u@h:1/x");
  EXPECT_EQ(redact_mariadb_url("mysql://h:1/x"), "mysql://h:1/x");
  EXPECT_EQ(redact_mariadb_url("mysql://u:p@h/x?password=s&a=1"),
            "mysql://u:***@h/x?password=***&a=1");
  EXPECT_EQ(redact_mariadb_url("mysql://u@h/x?a=b@c"), "mysql://u@h/x?a=b@c");
}

}  // namespace
}  // namespace idforge
