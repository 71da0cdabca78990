// Resizes that meet: two at once listing the servers in opposite orders, a server listed
// twice (the same URL, or two URLs of one database), and a resize that waits on a lock
// someone else holds. Each ends within a bound, says what happened, and no value repeats.
// Black-box through the command, whose older version hung in each case.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "db_probe.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/ticket_client.hpp"
#include "idforge/ticket/ticket_set.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

// Long enough for any healthy command on a busy machine; far shorter than "forever".
constexpr double kLimitS = 60;

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::vector<std::int64_t> numbers(const test::CliRun& r) {
  std::vector<std::int64_t> v;
  for (const auto& l : r.lines()) v.push_back(std::stoll(l));
  return v;
}

// Two resizes to 3 started together, listing the servers in opposite orders, five times.
void opposite_orders(const std::vector<std::string>& urls) {
  const std::vector<std::string> forward{urls[0], urls[1], urls[2]};
  const std::vector<std::string> backward{urls[2], urls[1], urls[0]};
  const std::string dir = test::temp_dir();
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE("round " + std::to_string(round + 1));
    const std::string name = test::unique_name("race");
    // Odd rounds: all three hold the set already (each resize locks members the other needs:
    // the old tool deadlocked here). Even rounds: a third server joins.
    const bool all_hold = round % 2 == 0;
    auto r = test::run_cli({"ticket", "init", "--name", name, "--servers",
                            all_hold ? join(forward) : urls[0] + "," + urls[1]});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Clients draw all along.
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::vector<std::int64_t> values;
    std::vector<std::thread> load;
    for (int t = 0; t < 2; ++t)
      load.emplace_back([&] {
        std::vector<std::unique_ptr<TicketServer>> s;
        for (const auto& u : urls) s.push_back(open_ticket_server(u));
        TicketClient c(std::move(s), name, {.retry_after_ns = 0});
        std::vector<std::int64_t> mine;
        for (int i = 0; i < 100'000 && !stop.load(); ++i) {
          try {
            mine.push_back(c.next());
          } catch (const Error&) {
          }
        }
        std::lock_guard lk(mu);
        values.insert(values.end(), mine.begin(), mine.end());
      });
    auto a = test::start_cli(
        {"ticket", "resize", "--to", "3", "--name", name, "--servers", join(forward)}, dir);
    auto b = test::start_cli(
        {"ticket", "resize", "--to", "3", "--name", name, "--servers", join(backward)}, dir);
    const auto ra = test::wait_cli(a, kLimitS);
    const auto rb = test::wait_cli(b, kLimitS);
    stop = true;
    for (auto& t : load) t.join();
    ASSERT_FALSE(ra.timed_out) << "resize A hung";
    ASSERT_FALSE(rb.timed_out) << "resize B hung";
    EXPECT_TRUE(ra.exit_code == 0 || rb.exit_code == 0) << ra.err << "\n" << rb.err;
    // The one that lost either found the other's fences or met them: it changed nothing.
    for (const auto* r2 : {&ra, &rb})
      if (r2->exit_code != 0)
        EXPECT_TRUE(r2->err.find("changed meanwhile") != std::string::npos ||
                    r2->err.find("another run has servers fenced") != std::string::npos)
            << r2->err;
    // The loser changed nothing: no server is left fenced.
    r = test::run_cli({"ticket", "status", "--name", name, "--servers", join(forward)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("fenced"), std::string::npos) << r.out;
    r = test::run_cli({"ticket", "next", "-n", "30", "--name", name, "--servers", join(forward)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (auto v : numbers(r)) values.push_back(v);
    std::sort(values.begin(), values.end());
    EXPECT_EQ(std::adjacent_find(values.begin(), values.end()), values.end())
        << "a value was handed out twice";
  }
}

void listed_twice(const std::string& url, const std::string& other_url_same_server,
                  const std::string& second) {
  const std::string name = test::unique_name("twice");
  for (const auto& cmd :
       {std::vector<std::string>{"init"}, std::vector<std::string>{"resize", "--to", "2"}}) {
    std::vector<std::string> args{"ticket"};
    args.insert(args.end(), cmd.begin(), cmd.end());
    for (const auto& list : {url + "," + url, url + "," + other_url_same_server}) {
      auto full = args;
      full.insert(full.end(), {"--name", name, "--servers", list});
      const auto r = test::run_cli(full, kLimitS);
      ASSERT_FALSE(r.timed_out) << cmd[0] << " with one server twice hung";
      EXPECT_EQ(r.exit_code, 1) << r.out;
      EXPECT_NE(r.err.find("are the same server"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("nothing changed"), std::string::npos) << r.err;
    }
    if (cmd[0] == "init") {
      // Nothing was created by the refused inits; a proper one works.
      EXPECT_FALSE(test::probe_record(url, name)) << "a refused init created a record";
      const auto r =
          test::run_cli({"ticket", "init", "--name", name, "--servers", url + "," + second});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }
}

// A resize whose first fence waits on a lock another session holds gives up within the
// lock timeout and changes nothing; clients fail over to the other server meanwhile.
void lock_held_elsewhere(const std::vector<std::string>& urls, const std::string& lock_sql_of) {
  const std::string name = test::unique_name("held");
  const std::string two = urls[0] + "," + urls[1];
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", two});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Hold the lock on the server a resize fences first (the smaller identity).
  const std::size_t held =
      open_ticket_server(urls[0])->identity() < open_ticket_server(urls[1])->identity() ? 0 : 1;
  auto holder = std::make_unique<test::Session>(urls[held]);
  if (urls[held].rfind("postgres", 0) == 0) holder->run("BEGIN");
  std::string sql = lock_sql_of;
  sql.replace(sql.find("NAME"), 4, name);
  holder->run(sql);
  r = test::run_cli({"ticket", "resize", "--to", "2", "--name", name, "--servers", two}, kLimitS);
  ASSERT_FALSE(r.timed_out) << "the resize waited without a bound";
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("Nothing changed"), std::string::npos) << r.err;
  r = test::run_cli({"ticket", "next", "-n", "4", "--name", name, "--servers", two}, kLimitS);
  ASSERT_FALSE(r.timed_out) << "a client waited without a bound";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto got = numbers(r);
  EXPECT_EQ(got.size(), 4u);
  for (auto v : got)
    EXPECT_EQ((v - 1) % 2, static_cast<std::int64_t>(1 - held))
        << "server " << held + 1 << " is locked: values come from the other one";
  holder.reset();  // the lock goes; the resize goes through
  r = test::run_cli({"ticket", "resize", "--to", "2", "--name", name, "--servers", two}, kLimitS);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(TicketConcurrent, PostgresTwoResizesInOppositeOrderEndAndNothingRepeats) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  opposite_orders(test::split_urls(urls));
}
TEST(TicketConcurrent, MariaDbTwoResizesInOppositeOrderEndAndNothingRepeats) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  opposite_orders(test::split_urls(urls));
}
TEST(TicketConcurrent, PostgresServerListedTwiceIsRefused) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const auto list = test::split_urls(urls);
  std::string other = list[0];
  other.replace(other.find("127.0.0.1"), 9, "localhost");
  listed_twice(list[0], other, list[1]);
}
TEST(TicketConcurrent, MariaDbServerListedTwiceIsRefused) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  const auto list = test::split_urls(urls);
  std::string other = list[0];
  other.replace(0, other.find("://"), "mysql");
  listed_twice(list[0], other, list[1]);
}
TEST(TicketConcurrent, PostgresResizeWaitingOnAHeldLockGivesUp) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  lock_held_elsewhere(test::split_urls(urls), "ALTER SEQUENCE idforge_ticket_NAME NO CYCLE");
}
TEST(TicketConcurrent, MariaDbResizeWaitingOnAHeldLockGivesUp) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  lock_held_elsewhere(test::split_urls(urls), "LOCK TABLES idforge_tickets_NAME WRITE");
}

// A resize that reads the servers while another one moves them: it reads the first three
// before the other resize, which retires them, and the last one after. It must refuse before
// its first fence (it changes nothing), not fence a server and fail on the next.
void read_across_a_shrink(const std::vector<std::string>& urls) {
  const std::string name = test::unique_name("across");
  const std::vector<std::string> four{urls[0], urls[1], urls[2], urls[3]};
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", join(four)}, kLimitS);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::unique_ptr<TicketServer>> loser;
  for (auto it = four.rbegin(); it != four.rend(); ++it) loser.push_back(open_ticket_server(*it));
  bool winner_ran = false;
  // The winner runs when the loser first talks to the last server of its list.
  loser.back()->set_statement_hook([&](std::string_view) {
    if (winner_ran) return;
    winner_ran = true;
    const auto w = test::run_cli(
        {"ticket", "resize", "--to", "1", "--name", name, "--servers", join(four)}, kLimitS);
    ASSERT_EQ(w.exit_code, 0) << w.err;
  });
  try {
    resize_ticket_set(loser, name, 2);
    ADD_FAILURE() << "the resize went ahead on a view read across another resize";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("changed meanwhile"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nothing changed"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(winner_ran);
  // Nothing left fenced: the winner's member hands out values.
  const auto rec = test::probe_record(urls[0], name);
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->state, "active");
  EXPECT_EQ(rec->epoch, 2);
  r = test::run_cli({"ticket", "next", "-n", "3", "--name", name, "--servers", join(four)},
                    kLimitS);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// The same across a grow: the loser reads the joining server before the winner writes its
// record there, and the old members after the winner activated them. It used to fence the
// old members and fail on the new one, leaving the set fenced until a --resume.
void read_across_a_grow(const std::vector<std::string>& urls) {
  const std::string name = test::unique_name("grow");
  const std::vector<std::string> three{urls[0], urls[1], urls[2]};
  auto r = test::run_cli({"ticket", "init", "--name", name, "--servers", urls[0] + "," + urls[1]},
                         kLimitS);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::unique_ptr<TicketServer>> loser;
  for (const auto& u : {urls[2], urls[0], urls[1]}) loser.push_back(open_ticket_server(u));
  bool winner_ran = false;
  // The winner runs when the loser first talks to an old member, after it read the new one.
  loser[1]->set_statement_hook([&](std::string_view) {
    if (winner_ran) return;
    winner_ran = true;
    const auto w = test::run_cli(
        {"ticket", "resize", "--to", "3", "--name", name, "--servers", join(three)}, kLimitS);
    ASSERT_EQ(w.exit_code, 0) << w.err;
  });
  try {
    resize_ticket_set(loser, name, 3);
    ADD_FAILURE() << "the resize went ahead on a view read across another resize";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("changed meanwhile"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nothing changed"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(winner_ran);
  r = test::run_cli({"ticket", "status", "--name", name, "--servers", join(three)}, kLimitS);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("fenced"), std::string::npos) << r.out;
  r = test::run_cli({"ticket", "next", "-n", "3", "--name", name, "--servers", join(three)},
                    kLimitS);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(TicketConcurrent, PostgresResizeReadAcrossAGrowChangesNothing) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  read_across_a_grow(test::split_urls(urls));
}
TEST(TicketConcurrent, MariaDbResizeReadAcrossAGrowChangesNothing) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  read_across_a_grow(test::split_urls(urls));
}

TEST(TicketConcurrent, PostgresResizeReadAcrossAnotherResizeChangesNothing) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  read_across_a_shrink(test::split_urls(urls));
}
TEST(TicketConcurrent, MariaDbResizeReadAcrossAnotherResizeChangesNothing) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_MARIADB_TICKET_URLS");
  auto list = test::split_urls(urls);
  if (list.size() < 4) {
    // Three instances: a fourth database on the first one is a server of its own.
    list.push_back(list[0].substr(0, list[0].rfind('/') + 1) + "idforge_fourth");
  }
  read_across_a_shrink(list);
}

}  // namespace
}  // namespace idforge::ticket
