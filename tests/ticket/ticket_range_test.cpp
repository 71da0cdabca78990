// The signed 64-bit range and an init that is all or nothing: no server hands out a value
// past 2^63-1 (MariaDB's unsigned column used to wrap to -2^63), and an init that cannot
// finish leaves no server holding the set. Black-box through the command.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db_probe.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

void stops_at_the_last_value(const std::string& url) {
  const std::string name = test::unique_name("edge");
  auto r = test::run_cli(
      {"ticket", "init", "--name", name, "--start", "9223372036854775805", "--servers", url});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"ticket", "next", "-n", "5", "--name", name, "--servers", url});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.lines(), (std::vector<std::string>{"9223372036854775805", "9223372036854775806",
                                                 "9223372036854775807"}))
      << "what was taken is printed, nothing past 2^63-1";
  EXPECT_NE(r.err.find("has handed out its last value below 2^63-1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("after 3 of 5 values, printed above"), std::string::npos) << r.err;
  // A resize finds the highest value and says the set has run out.
  r = test::run_cli({"ticket", "resize", "--to", "1", "--name", name, "--servers", url});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("highest value handed out is 9223372036854775807"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("run out of values"), std::string::npos) << r.err;
}

void init_past_the_range_creates_nothing(const std::string& a, const std::string& b) {
  const std::string name = test::unique_name("wide");
  auto r = test::run_cli({"ticket", "init", "--name", name, "--start", "9223372036854775807",
                          "--servers", a + "," + b});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("start + 1 <= 2^63-1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing changed"), std::string::npos) << r.err;
  EXPECT_FALSE(test::probe_record(a, name)) << "the first server was half-created";
  // Nothing stands in the way of a proper init.
  r = test::run_cli({"ticket", "init", "--name", name, "--servers", a + "," + b});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

void init_is_all_or_nothing(const std::string& a, const std::string& b) {
  const std::string name = test::unique_name("half");
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", b});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // a first, then b, which holds the set already: refused before a gets anything.
  r = test::run_cli({"ticket", "init", "--name", name, "--servers", a + "," + b});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("already exists on server 2"), std::string::npos) << r.err;
  EXPECT_FALSE(test::probe_record(a, name)) << "server 1 was half-created";
  r = test::run_cli({"ticket", "next", "-n", "3", "--name", name, "--servers", a});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

TEST(TicketRange, MariaDbStopsAtTheLastSignedValue) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  stops_at_the_last_value(test::split_urls(urls).at(0));
}
TEST(TicketRange, PostgresStopsAtTheLastSignedValue) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  stops_at_the_last_value(test::split_urls(urls).at(0));
}
TEST(TicketRange, MariaDbInitPastTheRangeCreatesNothing) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  const auto l = test::split_urls(urls);
  init_past_the_range_creates_nothing(l.at(0), l.at(1));
}
TEST(TicketRange, PostgresInitPastTheRangeCreatesNothing) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const auto l = test::split_urls(urls);
  init_past_the_range_creates_nothing(l.at(0), l.at(1));
}
TEST(TicketRange, MariaDbInitIsAllOrNothing) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  const auto l = test::split_urls(urls);
  init_is_all_or_nothing(l.at(0), l.at(1));
}
TEST(TicketRange, PostgresInitIsAllOrNothing) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const auto l = test::split_urls(urls);
  init_is_all_or_nothing(l.at(0), l.at(1));
}

}  // namespace
}  // namespace idforge::ticket
