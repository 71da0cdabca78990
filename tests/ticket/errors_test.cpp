// Bad names, bad steps, unknown stores and unreachable databases: one clear error each,
// naming the offending value and the rule.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "idforge/error.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/store_url.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "idforge/ticket/ticket_server.hpp"
#include "run_command.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

void expect_error(const std::function<void()>& f, std::error_code code, const std::string& says) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one saying: " << says;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(TicketErrors, BadNamesAreRefusedWithTheRule) {
  const struct {
    std::string name, says;
  } cases[] = {{"", "it is empty"},
               {"Orders", "starts with 'O'"},
               {"9lives", "starts with '9'"},
               {"or-ders", "character '-' at position 2"},
               {"x; DROP TABLE t", "character ';' at position 1"},
               {std::string(41, 'a'), "it has 41 characters"}};
  for (const auto& c : cases)
    expect_error([&] { check_sequence_name(c.name); }, errc::invalid_argument, c.says);
  EXPECT_EQ(check_sequence_name("orders_2024"), "orders_2024");
}

TEST(TicketErrors, NegativeAndZeroStepsAreRefused) {
  auto store = open_segment_store("sqlite:" + test::temp_dir() + "/e.db");
  expect_error([&] { store->create("a", 1, -5); }, errc::invalid_argument,
               "step -5 for sequence 'a' is out of range");
  expect_error([&] { store->create("a", 1, 0); }, errc::invalid_argument, "step 0");
  expect_error([&] { store->create("a", -1, 10); }, errc::invalid_argument, "start -1");
  store->create("a", 1, 10);
  expect_error([&] { store->create("a", 1, 10); }, ticket_errc::already_exists, "already exists");
  expect_error([&] { store->take("a", -3); }, errc::invalid_argument, "block size -3");
  expect_error([&] { store->take("nope", 0); }, ticket_errc::not_found,
               "sequence 'nope' does not exist");
}

TEST(TicketErrors, UnknownStoreUrlsNameTheForms) {
  expect_error([] { parse_store_url("redis://x"); }, errc::invalid_argument,
               "use sqlite:PATH, postgres://");
  expect_error([] { parse_store_url("sqlite:"); }, errc::invalid_argument, "names no file");
  expect_error([] { open_segment_store("mysql://root@127.0.0.1:1/x"); }, errc::invalid_argument,
               "segments live in SQLite");
  expect_error([] { open_ticket_server("sqlite:/tmp/x.db"); }, errc::invalid_argument,
               "SQLite serves segments");
  EXPECT_EQ(redact_url("postgres://u:secret@h:1/d"), "postgres://u:***@h:1/d");
}

TEST(TicketErrors, UnreachableDatabasesSaySo) {
  expect_error([] { open_segment_store("postgres://postgres@127.0.0.1:1/postgres"); },
               ticket_errc::store_unreachable,
               "PostgreSQL at postgres://postgres@127.0.0.1:1/postgres is unreachable");
  expect_error([] { open_segment_store("sqlite:/proc/idforge/no/such.db"); },
               ticket_errc::store_unreachable,
               "SQLite store sqlite:/proc/idforge/no/such.db is unreachable");
  expect_error([] { open_ticket_server("mysql://root@127.0.0.1:1/x")->next("t"); },
               ticket_errc::store_unreachable,
               "MariaDB at mysql://root@127.0.0.1:1/x is unreachable");
  expect_error([] { open_ticket_server("postgres://postgres@127.0.0.1:1/postgres")->next("t"); },
               ticket_errc::store_unreachable, "is unreachable");
}

TEST(SeqCli, CreateNextAndStatsOnSqlite) {
  const std::string store = "--store=sqlite:" + test::temp_dir() + "/cli.db";
  auto r =
      test::run_idforge({"seq", "create", "invoices", "--start", "1000", "--step", "50", store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_idforge({"seq", "next", "invoices", "-n", "3", store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.lines(), (std::vector<std::string>{"1000", "1001", "1002"}));
  r = test::run_idforge({"seq", "next", "invoices", store});
  EXPECT_EQ(r.lines(), (std::vector<std::string>{"1003"})) << "a one-shot command loses nothing";
  r = test::run_idforge({"seq", "stats", "--json", store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("name":"invoices","next_value":1004)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("abandoned":0)"), std::string::npos) << r.out;
}

TEST(SeqCli, ErrorsExitOneWithAMessage) {
  const std::string store = "--store=sqlite:" + test::temp_dir() + "/cli.db";
  auto r = test::run_idforge({"seq", "create", "Bad-Name", store});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("sequence name 'Bad-Name' is invalid"), std::string::npos) << r.err;
  r = test::run_idforge({"seq", "create", "ok", "--step", "-5", store});
  EXPECT_EQ(r.exit_code, 2) << "a value outside the option's range is a usage error";
  EXPECT_NE(r.err.find("--step: '-5' is out of range (expected 1 to 68719476736)"),
            std::string::npos)
      << r.err;
  // A bad name is refused before the store is opened, so none was made above.
  ASSERT_EQ(test::run_idforge({"seq", "create", "other", store}).exit_code, 0);
  r = test::run_idforge({"seq", "next", "missing", store});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("idforge seq create missing"), std::string::npos) << r.err;
  r = test::run_idforge(
      {"seq", "next", "x", "--store", "postgres://postgres@127.0.0.1:1/postgres"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is unreachable"), std::string::npos) << r.err;
  r = test::run_idforge(
      {"ticket", "next", "--servers", "postgres://postgres@127.0.0.1:1/postgres"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no ticket server answered"), std::string::npos) << r.err;
}

TEST(TicketCli, InitNextAndResizeOnPostgres) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const auto list = test::split_urls(urls);
  const std::string two = list.at(0) + "," + list.at(1);
  const std::string name = test::unique_name("cli");
  auto r = test::run_idforge({"ticket", "init", "--name", name, "--servers", two});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_idforge({"ticket", "next", "-n", "4", "--name", name, "--servers", two});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.lines(), (std::vector<std::string>{"1", "2", "3", "4"}));
  r = test::run_idforge(
      {"ticket", "resize", "--to", "3", "--name", name, "--servers", two + "," + list.at(2)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("from 2 to 3 servers (epoch 2): highest value handed out 4, new values "
                       "start at 7"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace idforge::ticket
