// Messages that reach a user: a password never shows (not even one holding '@'), and the
// database's words come on one line (libpq writes "...\n\tIs the server running..." and
// "ERROR: ...\nLINE 1: ...").
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "db_probe.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/store_url.hpp"
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
    EXPECT_EQ(e.code(), errc::not_found);
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("relation \"idforge_no_such_table\" does not exist"), std::string::npos)
        << msg;
  }
}

}  // namespace
}  // namespace idforge::ticket
