// A member that does not answer during a resize. The set's membership and epoch are
// recorded on every member, so a resize that leaves one out is refused (it may hold the
// highest value); dropping it takes an explicit --drop with a --gap; when it comes back, its
// old values stay apart from the new ones, clients that know the new epoch refuse them, and
// listing it in a resize retires it. Black-box through the command where the old tool
// answered wrongly ("resized from 2 to 2 servers", then duplicates).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "db_probe.hpp"
#include "idforge/ticket/ticket_client.hpp"
#include "idforge/ticket/ticket_set.hpp"
#include "mariadb_instance.hpp"
#include "pg_instance.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

std::vector<std::int64_t> numbers(const test::CliRun& r) {
  std::vector<std::int64_t> v;
  for (const auto& l : r.lines()) v.push_back(std::stoll(l));
  return v;
}

template <class Instance>
void left_out_member(const std::string& live1, const std::string& live2, Instance& p3) {
  const std::string name = test::unique_name("left");
  const std::string p3url = p3.url();
  const std::string three = live1 + "," + live2 + "," + p3url, two = live1 + "," + live2;
  std::vector<std::int64_t> seen;
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", three});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"ticket", "next", "-n", "9", "--name", name, "--servers", three});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(numbers(r), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  seen = numbers(r);
  p3.stop();

  // Leaving the member out: refused, nothing changed.
  r = test::run_cli({"ticket", "resize", "--to", "2", "--name", name, "--servers", two});
  EXPECT_EQ(r.exit_code, 1) << "a resize without member 3 went ahead: " << r.out;
  EXPECT_NE(r.err.find("nothing changed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is not listed in --servers"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--drop " + p3url + " --gap N"), std::string::npos) << r.err;
  r = test::run_cli({"ticket", "next", "-n", "4", "--name", name, "--servers", two});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto got = numbers(r);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::int64_t>{10, 11, 13, 14})) << "the old step 3 still applies";
  seen.insert(seen.end(), got.begin(), got.end());

  // Dropping it needs a gap.
  r = test::run_cli(
      {"ticket", "resize", "--to", "2", "--name", name, "--servers", two, "--drop", p3url});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("needs --gap N >= 1"), std::string::npos) << r.err;
  r = test::run_cli({"ticket", "resize", "--to", "2", "--name", name, "--servers", two, "--drop",
                     p3url, "--gap", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("highest value handed out 14, plus a gap of 1000, new values start at 1015"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("dropped without a fence: " + p3url), std::string::npos) << r.out;

  // The survivors record the new membership and the dropped member.
  {
    std::vector<std::unique_ptr<TicketServer>> s;
    s.push_back(open_ticket_server(live1));
    const auto rec = s[0]->read(name);
    ASSERT_TRUE(rec);
    EXPECT_EQ(rec->config.epoch, 2);
    EXPECT_EQ(rec->config.k(), 2);
    ASSERT_EQ(rec->config.dropped.size(), 1u);
    EXPECT_EQ(rec->config.dropped[0].url, p3url);
    EXPECT_EQ(rec->config.gap, 1000);
  }

  // It comes back: its own old values (12, 15, ...) stay below the new ones; a client that
  // has seen epoch 2 refuses them.
  p3.start();
  {
    auto lone = open_ticket_server(p3url);
    const TicketValue old = lone->next(name);
    // Its own residue class above 9 (MariaDB may skip one step after a restart), below the
    // new epoch's start.
    EXPECT_EQ(old.value % 3, 0);
    EXPECT_GT(old.value, 9);
    EXPECT_LT(old.value, 1015);
    EXPECT_EQ(old.epoch, 1);
    seen.push_back(old.value);
  }
  {
    std::vector<std::unique_ptr<TicketServer>> s;
    for (const auto& u : {live1, live2, p3url}) s.push_back(open_ticket_server(u));
    TicketClient client(std::move(s), name, {.retry_after_ns = 0});
    for (int i = 0; i < 30; ++i) {
      const std::int64_t v = client.next();
      EXPECT_GE(v, 1015) << "a value below the new epoch's start was handed out";
      seen.push_back(v);
    }
    const auto st = client.stats();
    EXPECT_EQ(st[2].served, 0) << "values of the dropped member were accepted";
    EXPECT_GE(st[2].failures, 1);
    EXPECT_NE(st[2].last_error.find("older than epoch 2"), std::string::npos) << st[2].last_error;
  }
  r = test::run_cli({"ticket", "status", "--name", name, "--servers", three});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("STALE"), std::string::npos) << r.out;

  // Listing it in a resize fences and retires it.
  r = test::run_cli({"ticket", "resize", "--to", "2", "--name", name, "--servers", three});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("retired: " + p3url), std::string::npos) << r.out;
  const auto probed = test::probe_record(p3url, name);
  ASSERT_TRUE(probed);
  EXPECT_EQ(probed->state, "retired");
  r = test::run_cli({"ticket", "next", "-n", "20", "--name", name, "--servers", three});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (auto v : numbers(r)) seen.push_back(v);

  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end())
      << "a value was handed out twice";
}

TEST(TicketMembership, PostgresMemberLeftOutIsRefusedDroppedOnPurposeAndRetiredWhenBack) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  if (auto why = test::PgInstance::unavailable_reason()) IDFORGE_SKIP_OR_FAIL(*why);
  const auto list = test::split_urls(urls);
  test::PgInstance p3;
  left_out_member(list.at(0), list.at(1), p3);
}

TEST(TicketMembership, MariaDbMemberLeftOutIsRefusedDroppedOnPurposeAndRetiredWhenBack) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  if (auto why = test::MariaDbInstance::unavailable_reason()) IDFORGE_SKIP_OR_FAIL(*why);
  const auto list = test::split_urls(urls);
  test::MariaDbInstance p3;
  left_out_member(list.at(0), list.at(1), p3);
}

// A member whose URL carries a wrong password answers (it refuses the login): it runs and
// hands out its values, so --drop must refuse it rather than count it as gone.
TEST(TicketMembership, MariaDbMemberThatRefusesTheLoginIsNotDropped) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  const auto list = test::split_urls(urls);
  const std::string root2 = list.at(1);  // mariadb://root@127.0.0.1:PORT/idforge
  const std::string hostport =
      root2.substr(root2.find('@') + 1, root2.rfind('/') - root2.find('@') - 1);
  test::run_sql(root2, "CREATE USER IF NOT EXISTS 'idf_drop'@'127.0.0.1' IDENTIFIED BY 'Right7'");
  test::run_sql(root2, "GRANT ALL ON *.* TO 'idf_drop'@'127.0.0.1'");
  const std::string name = test::unique_name("refuses");
  const std::string good = "mysql://idf_drop:Right7@" + hostport + "/idforge";
  const std::string bad = "mysql://idf_drop:Wrong7@" + hostport + "/idforge";
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", list.at(0) + "," + good});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"ticket", "resize", "--to", "1", "--name", name, "--servers",
                     list.at(0) + "," + bad, "--drop", bad, "--gap", "100"});
  EXPECT_EQ(r.exit_code, 1) << "a running member was dropped: " << r.out;
  EXPECT_NE(r.err.find("answers but refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing changed"), std::string::npos) << r.err;
  const auto rec = test::probe_record(root2, name);
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->state, "active");
  EXPECT_EQ(rec->epoch, 1);
}

}  // namespace
}  // namespace idforge::ticket
