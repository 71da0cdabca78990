// Messages that reach a user: a password never shows (not even one holding '@'), and the
// database's words come on one line (libpq writes "...\n\tIs the server running..." and
// "ERROR: ...\nLINE 1: ...").
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "db_probe.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/store_url.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "idforge/ticket/ticket_server.hpp"
#include "pg_connection.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

std::size_t newlines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(TicketMessages, RedactionHidesTheWholePassword) {
  EXPECT_EQ(redact_url("mysql://at:tp@ss@127.0.0.1:1/x"), "mysql://at:***@127.0.0.1:1/x");
  EXPECT_EQ(redact_url("postgres://u:a:b@c@h:5432/d"), "postgres://u:***@h:5432/d");
  EXPECT_EQ(redact_url("postgres://u@h/d?password=s3cret&sslmode=disable"),
            "postgres://u@h/d?password=***&sslmode=disable");
  EXPECT_EQ(redact_url("postgres://u@h/d?application_name=a@b"),
            "postgres://u@h/d?application_name=a@b");
  EXPECT_EQ(redact_url("postgres://h/d"), "postgres://h/d");
}

TEST(TicketMessages, MariaDbPasswordWithAtIsNeverShown) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  const std::string base = test::split_urls(urls).at(0);  // mariadb://root@127.0.0.1:PORT/idforge
  const std::string hostport =
      base.substr(base.find('@') + 1, base.rfind('/') - base.find('@') - 1);
  test::run_sql(base, "CREATE USER IF NOT EXISTS 'idf_at'@'127.0.0.1' IDENTIFIED BY 'tp@ss'");
  test::run_sql(base, "GRANT ALL ON *.* TO 'idf_at'@'127.0.0.1'");
  const std::string name = test::unique_name("secret");
  // The right password, '@' and all, connects (and is parsed at the last '@').
  const std::string good = "mysql://idf_at:tp@ss@" + hostport + "/idforge";
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", good});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("tp@ss"), std::string::npos) << r.out;
  // A wrong one: refused, and no piece of it is shown.
  const std::string bad = "mysql://idf_at:wr@ng@pw@" + hostport + "/idforge";
  r = test::run_cli({"ticket", "next", "--name", name, "--servers", bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("mysql://idf_at:***@" + hostport), std::string::npos) << r.err;
  for (const char* piece : {"wr@", "ng@", "@pw", "wr@ng"})
    EXPECT_EQ(r.err.find(piece), std::string::npos) << piece << " shown in: " << r.err;
  EXPECT_EQ(newlines(r.err), 1u) << r.err;
}

TEST(TicketMessages, LibpqErrorsComeOnOneLine) {
  // libpq's "Connection refused\n\tIs the server running on that host...?"
  for (const auto& args : {std::vector<std::string>{"ticket", "next", "--servers",
                                                    "postgres://postgres@127.0.0.1:1/postgres"},
                           std::vector<std::string>{"seq", "stats", "--store",
                                                    "postgres://postgres@127.0.0.1:1/postgres"}}) {
    const auto r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_EQ(newlines(r.err), 1u) << "one line: " << r.err;
    EXPECT_NE(r.err.find("Is the server running"), std::string::npos) << r.err;
  }
}

TEST(TicketMessages, PostgresSqlErrorsComeOnOneLine) {
  IDFORGE_NEED_SERVICE(url, "IDFORGE_PG_URL");
  detail::PgConnection db(url);
  try {
    db.run("SELECT * FROM idforge_no_such_table WHERE x = 1");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.code(), ticket_errc::not_found);
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("relation \"idforge_no_such_table\" does not exist"), std::string::npos)
        << msg;
  }
}

TEST(TicketMessages, RedactionHidesPasswordsWithQueryAndFragmentMarks) {
  EXPECT_EQ(redact_url("postgres://u:pa?ss@h:5432/d"), "postgres://u:***@h:5432/d");
  EXPECT_EQ(redact_url("postgres://u:pa#ss@h:5432/d"), "postgres://u:***@h:5432/d");
  EXPECT_EQ(redact_url("postgres://u:p/a@s?s#w@h:5432/d?sslmode=disable"),
            "postgres://u:***@h:5432/d?sslmode=disable");
  EXPECT_EQ(redact_url("postgres://u@h:5432/d?application_name=a@b"),
            "postgres://u@h:5432/d?application_name=a@b");
}

TEST(TicketMessages, ScrubRemovesEveryPieceOfThePassword) {
  const std::string url = "postgres://u:x@Pass/Wrong@127.0.0.1:5432/d";
  EXPECT_EQ(scrub_password("could not translate host name \"Pass@127.0.0.1\"", url),
            "could not translate host name \"***@127.0.0.1\"");
  EXPECT_EQ(scrub_password("invalid integer value \"Wrong\" for connection option \"port\"", url),
            "invalid integer value \"***\" for connection option \"port\"");
  // A one-letter piece goes only where it stands alone.
  EXPECT_EQ(scrub_password("x exists, but not in xylophone", url),
            "*** exists, but not in xylophone");
  EXPECT_EQ(scrub_password("pw%41bc here", "postgres://u:pw%41bc@h/d"), "*** here");
  EXPECT_EQ(scrub_password("pwAbc here", "postgres://u:pw%41bc@h/d"), "*** here");
}

// libpq, given a password holding '@' or '/', reads a piece of it as the host or the port and
// says so: no piece may reach the message.
TEST(TicketMessages, PostgresPasswordPiecesNeverShown) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const std::string base =
      test::split_urls(urls).at(0);  // postgres://postgres@127.0.0.1:P/postgres
  const std::string hostport =
      base.substr(base.find('@') + 1, base.rfind('/') - base.find('@') - 1);
  for (const std::string& pw : {std::string("Secr1t@Pass7"), std::string("Wrong9/Secr1t")}) {
    const std::string url = "postgres://postgres:" + pw + "@" + hostport + "/postgres";
    for (const auto& args : {std::vector<std::string>{"ticket", "next", "--servers", url},
                             std::vector<std::string>{"seq", "stats", "--store", url}}) {
      const auto r = test::run_cli(args);
      EXPECT_EQ(r.exit_code, 1) << r.out;
      for (const char* piece : {"Secr1t", "Pass7", "Wrong9"})
        EXPECT_EQ(r.err.find(piece), std::string::npos) << piece << " shown in: " << r.err;
      EXPECT_NE(r.err.find("postgres://postgres:***@" + hostport), std::string::npos) << r.err;
    }
  }
}

// A password holding '?' or '#' connects, and is neither printed nor stored in the record.
TEST(TicketMessages, PostgresPasswordWithQueryMarkIsNeverShownOrStored) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const std::string base = test::split_urls(urls).at(0);
  const std::string hostport =
      base.substr(base.find('@') + 1, base.rfind('/') - base.find('@') - 1);
  test::run_sql(base,
                "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'idf_q') THEN "
                "CREATE ROLE idf_q SUPERUSER LOGIN PASSWORD 'pa?ss#Wd9'; END IF; END $$");
  const std::string url = "postgres://idf_q:pa?ss#Wd9@" + hostport + "/postgres";
  const std::string name = test::unique_name("qmark");
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", url});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"ticket", "status", "--name", name, "--servers", url});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("postgres://idf_q:***@" + hostport), std::string::npos) << r.out;
  test::Session s(base);
  const std::string stored =
      s.scalar("SELECT members FROM idforge_ticket_members WHERE name = '" + name + "'");
  EXPECT_NE(stored.find("idf_q:***@"), std::string::npos) << stored;
  for (const auto& text : {r.out, r.err, stored})
    for (const char* piece : {"pa?ss", "ss#Wd9", "Wd9"})
      EXPECT_EQ(text.find(piece), std::string::npos) << piece << " in: " << text;
}

}  // namespace
}  // namespace idforge::ticket
