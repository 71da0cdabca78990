// Records that cannot be one set are refused, never merged: a copy or restore of a member's
// database (it carries that member's record, and would hand out its values again), and two
// separate inits of one name on different servers. Black-box through the command, as an
// outside user met them: `next` printed 5 6 5 7 8 7 ... and `status` said "all listed".
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "db_probe.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

// The URL with its database (the path after the last '/') replaced.
std::string with_db(const std::string& url, const std::string& db) {
  return url.substr(0, url.rfind('/') + 1) + db;
}

void expect_refused(const test::CliRun& r, const std::vector<std::string>& words) {
  EXPECT_EQ(r.exit_code, 1) << "not refused: " << r.out;
  EXPECT_TRUE(r.out.empty()) << "values or a status were printed: " << r.out;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << w << " in " << r.err;
}

void expect_all_refused(const std::string& servers, const std::string& name,
                        const std::vector<std::string>& words) {
  for (const char* cmd : {"next", "status"}) {
    SCOPED_TRACE(cmd);
    std::vector<std::string> args{"ticket", cmd, "--name", name, "--servers", servers};
    if (std::string(cmd) == "next") args.insert(args.end(), {"-n", "9"});
    expect_refused(test::run_cli(args), words);
  }
  SCOPED_TRACE("resize");
  const auto r =
      test::run_cli({"ticket", "resize", "--to", "2", "--name", name, "--servers", servers});
  expect_refused(r, words);
  EXPECT_NE(r.err.find("nothing changed"), std::string::npos) << r.err;
}

TEST(TicketOneSet, PostgresCopyOfAMemberIsRefused) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const auto list = test::split_urls(urls);
  const std::string name = test::unique_name("copied");
  // A database of its own on the first server, so nobody else is connected when it is copied.
  const std::string db = name + "_src", clone = name + "_clone";
  test::run_sql(list.at(0), "CREATE DATABASE " + db);
  const std::string p1 = with_db(list.at(0), db), copy = with_db(list.at(0), clone);
  const std::string two = p1 + "," + list.at(1);
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", two});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"ticket", "next", "-n", "4", "--name", name, "--servers", two});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  test::run_sql(list.at(0), "CREATE DATABASE " + clone + " TEMPLATE " + db);

  expect_all_refused(
      two + "," + copy, name,
      {"server 3 (" + copy + ")", "/" + clone, "names member 1", "/" + db, "copy or restore"});
  // Listed alone in place of the original, the copy is refused too.
  expect_refused(
      test::run_cli({"ticket", "next", "--name", name, "--servers", copy + "," + list.at(1)}),
      {"server 1 (" + copy + ")", "names member 1"});
  // The real set is untouched.
  r = test::run_cli({"ticket", "next", "-n", "2", "--name", name, "--servers", two});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  test::run_sql(list.at(0), "DROP DATABASE " + clone);
  test::run_sql(list.at(0), "DROP DATABASE " + db + " WITH (FORCE)");
}

TEST(TicketOneSet, MariaDbRestoredCopyOfAMemberIsRefused) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  const auto list = test::split_urls(urls);
  const std::string name = test::unique_name("restored");
  const std::string db = name + "_db";
  const std::string m1 = with_db(list.at(0), db), m2 = with_db(list.at(1), db),
                    copy = with_db(list.at(2), db);
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", m1 + "," + m2});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"ticket", "next", "-n", "4", "--name", name, "--servers", m1 + "," + m2});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // mariadb-dump of M1 restored into another instance: it carries M1's UUID.
  const auto port = [](const std::string& url) {
    const auto colon = url.rfind(':');
    return url.substr(colon + 1, url.rfind('/') - colon - 1);
  };
  test::run_sql(list.at(2), "CREATE DATABASE " + db);
  const std::string cmd = "mariadb-dump -h127.0.0.1 -uroot -P" + port(m1) + " " + db +
                          " | mariadb -h127.0.0.1 -uroot -P" + port(copy) + " " + db;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  expect_all_refused(m1 + "," + m2 + "," + copy, name,
                     {"server 3 (" + copy + ")", "names member 1", "copy or restore"});
  test::run_sql(list.at(2), "DROP DATABASE " + db);
}

TEST(TicketOneSet, SeparateInitsOfOneNameAreRefused) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const auto list = test::split_urls(urls);
  const std::string name = test::unique_name("twice");
  const std::string two = list.at(0) + "," + list.at(1), three = two + "," + list.at(2);
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", two});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"ticket", "init", "--name", name, "--servers", list.at(2)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_all_refused(three, name,
                     {"server 1 (" + list.at(0) + ")", "server 3 (" + list.at(2) + ")",
                      "different members for epoch 1", "2 member(s)", "1 member(s)"});

  // A record deleted by hand and made again by a second init: the same.
  const std::string other = test::unique_name("remade");
  r = test::run_cli({"ticket", "init", "--name", other, "--servers", two});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  test::run_sql(list.at(1), "DELETE FROM idforge_ticket_members WHERE name = '" + other + "'");
  test::run_sql(list.at(1), "DROP SEQUENCE idforge_ticket_" + other);
  r = test::run_cli({"ticket", "init", "--name", other, "--servers", list.at(1)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_all_refused(two, other, {"different members for epoch 1"});
}

}  // namespace
}  // namespace idforge::ticket
