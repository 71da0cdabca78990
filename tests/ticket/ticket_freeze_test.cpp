// A server that is frozen (SIGSTOP: its connections stay open, nothing answers, its own
// timeouts cannot fire). Ticket clients fail over to the servers that answer within the
// statement timeout and say why; a segment client on a frozen PostgreSQL store reports an
// error instead of hanging. Each server here is a private one, so freezing it disturbs no
// other test; the commands run with a limit and count as hung past it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "db_probe.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/ticket_client.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "idforge/ticket/ticket_set.hpp"
#include "mariadb_instance.hpp"
#include "pg_instance.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

// Far above the default timeouts (2 s connect, 3 s statement), far below "forever".
constexpr double kLimitS = 60;

std::vector<std::int64_t> numbers(const test::CliRun& r) {
  std::vector<std::int64_t> v;
  for (const auto& l : r.lines()) v.push_back(std::stoll(l));
  return v;
}

// Counts the sessions of the idforge command on a private server (not the test's own).
std::string sessions_sql(const std::string& url) {
  if (url.rfind("postgres", 0) == 0)
    return "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'idforge'";
  return "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND "
         "USER = 'root' AND COMMAND <> 'Daemon'";
}

template <class Instance>
void frozen_ticket_server(Instance& frozen, const std::string& healthy) {
  const std::string name = test::unique_name("frozen");
  const std::string both = frozen.url() + "," + healthy;
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", both});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"ticket", "next", "-n", "4", "--name", name, "--servers", both});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::int64_t> seen = numbers(r);

  // Frozen in the middle of a run: the command holds an open connection to it.
  {
    constexpr int kCount = 5000;
    const std::string dir = test::temp_dir();
    auto child = test::start_cli(
        {"ticket", "next", "-n", std::to_string(kCount), "--name", name, "--servers", both}, dir);
    {
      test::Session watch(frozen.url());
      for (int i = 0; i < 20'000 && watch.scalar(sessions_sql(frozen.url())) == "0"; ++i) {
      }
    }
    frozen.freeze();
    r = test::wait_cli(child, kLimitS);
    ASSERT_FALSE(r.timed_out) << "ticket next hung on a server frozen under it";
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto got = numbers(r);
    EXPECT_EQ(got.size(), static_cast<std::size_t>(kCount));
    seen.insert(seen.end(), got.begin(), got.end());
  }

  // A command started while it is frozen: every value from the server that answers.
  r = test::run_cli({"ticket", "next", "-n", "20", "--name", name, "--servers", both}, kLimitS);
  ASSERT_FALSE(r.timed_out) << "ticket next hung on the frozen server";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto got = numbers(r);
  ASSERT_EQ(got.size(), 20u);
  for (auto v : got) EXPECT_EQ(v % 2, 0) << "server 2 hands out the even values";
  EXPECT_LT(r.seconds, 15.0) << "failing over took too long";
  seen.insert(seen.end(), got.begin(), got.end());

  // The library: four threads keep drawing; the frozen server's failure is reported.
  {
    std::vector<std::unique_ptr<TicketServer>> s;
    s.push_back(open_ticket_server(frozen.url(), {.connect_ms = 500, .statement_ms = 500}));
    s.push_back(open_ticket_server(healthy));
    TicketClient client(std::move(s), name);
    std::mutex mu;
    std::vector<std::thread> ts;
    std::atomic<int> failed{0};
    for (int t = 0; t < 4; ++t)
      ts.emplace_back([&] {
        std::vector<std::int64_t> mine;
        try {
          for (int i = 0; i < 50; ++i) mine.push_back(client.next());
        } catch (const Error&) {
          failed.fetch_add(1);
        }
        std::lock_guard lk(mu);
        seen.insert(seen.end(), mine.begin(), mine.end());
      });
    for (auto& t : ts) t.join();
    EXPECT_EQ(failed.load(), 0) << "a client stopped although one server answers";
    const auto st = client.stats();
    EXPECT_GE(st[0].failures, 1);
    // (MariaDB counts in whole seconds: 500 ms become 1000.)
    EXPECT_NE(st[0].last_error.find("did not answer within"), std::string::npos)
        << st[0].last_error;
    EXPECT_EQ(st[1].served, 200);
  }

  frozen.thaw();
  r = test::run_cli({"ticket", "next", "-n", "10", "--name", name, "--servers", both}, kLimitS);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  got = numbers(r);
  EXPECT_TRUE(std::any_of(got.begin(), got.end(), [](auto v) { return v % 2 == 1; }))
      << "the thawed server is used again";
  seen.insert(seen.end(), got.begin(), got.end());
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end())
      << "a value was handed out twice";
}

TEST(TicketFreeze, PostgresClientsFailOverFromAFrozenServer) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  if (auto why = test::PgInstance::unavailable_reason()) IDFORGE_SKIP_OR_FAIL(*why);
  test::PgInstance frozen;
  frozen_ticket_server(frozen, test::split_urls(urls).at(0));
}

TEST(TicketFreeze, MariaDbClientsFailOverFromAFrozenServer) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  if (auto why = test::MariaDbInstance::unavailable_reason()) IDFORGE_SKIP_OR_FAIL(*why);
  test::MariaDbInstance frozen;
  frozen_ticket_server(frozen, test::split_urls(urls).at(0));
}

TEST(TicketFreeze, SegmentsOnAFrozenPostgresReportAnErrorInsteadOfHanging) {
  if (auto why = test::PgInstance::unavailable_reason()) IDFORGE_SKIP_OR_FAIL(*why);
  test::PgInstance pg;
  open_segment_store(pg.url())->create("orders", 1, 10);
  auto r = test::run_cli({"seq", "next", "orders", "-n", "3", "--store", pg.url()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  pg.freeze();
  r = test::run_cli({"seq", "next", "orders", "-n", "3", "--store", pg.url()}, kLimitS);
  ASSERT_FALSE(r.timed_out) << "seq next hung on the frozen store";
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("did not answer within"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;

  // A client in a long-running process (seq_worker: a SegmentClient printing each value):
  // the blocks it holds still serve, then it reports the error instead of hanging.
  pg.thaw();
  auto child = test::spawn(test::seq_worker(), {"stream", pg.url(), "orders", "10", "1000"});
  char first[64];
  ASSERT_GT(read(child.out_fd, first, sizeof first), 0);
  pg.freeze();
  const auto f = test::finish_within(child, kLimitS);
  ASSERT_FALSE(f.timed_out) << "a segment client hung on the frozen store";
  EXPECT_EQ(f.code, 1);

  // The same in process: the error names the timeout, and the client resumes after.
  pg.thaw();
  auto store = open_segment_store(pg.url(), {.timeouts = {.connect_ms = 500, .statement_ms = 500}});
  SegmentClient c(*store, "orders", {.initial_step = 10, .prefetch_at = 1.0, .background = false});
  std::vector<std::int64_t> got{c.next()};
  pg.freeze();
  std::string error;
  for (int i = 0; i < 20 && error.empty(); ++i) {
    try {
      got.push_back(c.next());
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ticket_errc::store_unreachable);
      error = e.what();
    }
  }
  EXPECT_EQ(got.size(), 10u) << "the block taken before the freeze serves to its end";
  EXPECT_NE(error.find("did not answer within 500 ms"), std::string::npos) << error;
  pg.thaw();
  for (int i = 0; i < 15; ++i) got.push_back(c.next());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end());
}

}  // namespace
}  // namespace idforge::ticket
