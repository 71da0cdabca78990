// Ticket sets on PostgreSQL and MariaDB: the odd/even split, resize 2 -> 4 under load
// without a value given twice, retiring servers, and a resize that cannot see a server.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/ticket_client.hpp"
#include "idforge/ticket/ticket_set.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

std::vector<std::unique_ptr<TicketServer>> open_all(const std::vector<std::string>& urls) {
  std::vector<std::unique_ptr<TicketServer>> out;
  for (const auto& u : urls) out.push_back(open_ticket_server(u));
  return out;
}

std::vector<std::string> first(const std::vector<std::string>& v, std::size_t n) {
  return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size()))};
}

void two_servers_interleave(const std::vector<std::string>& urls) {
  const std::string name = test::unique_name("oddeven");
  auto servers = open_all(first(urls, 2));
  init_ticket_set(servers, name);
  EXPECT_EQ(servers[0]->next(name), 1);
  EXPECT_EQ(servers[0]->next(name), 3);
  EXPECT_EQ(servers[1]->next(name), 2);
  EXPECT_EQ(servers[1]->next(name), 4);
  try {
    init_ticket_set(servers, name);
    ADD_FAILURE() << "second init accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::already_exists) << e.what();
  }
}

// Four clients draw while the set grows from two servers to four.
void resize_under_load(const std::vector<std::string>& urls) {
  ASSERT_GE(urls.size(), 4u);
  const std::string name = test::unique_name("grow");
  {
    auto init = open_all(first(urls, 2));
    init_ticket_set(init, name);
  }
  std::mutex mu;
  std::vector<std::int64_t> all;
  std::atomic<int> drawn{0};
  std::atomic<bool> resized{false};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      // Each client knows all four servers; the two not yet in the set fail over.
      TicketClient c(open_all(urls), name, {.retry_after_ns = 0});
      std::vector<std::int64_t> mine;
      for (int i = 0; i < 600; ++i) {
        mine.push_back(c.next());
        drawn.fetch_add(1);
      }
      std::lock_guard lk(mu);
      all.insert(all.end(), mine.begin(), mine.end());
    });
  while (drawn.load() < 400) std::this_thread::yield();
  ResizeReport rep;
  {
    auto servers = open_all(urls);
    rep = resize_ticket_set(servers, name, 4);
    resized = true;
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(rep.old_k, 2);
  EXPECT_EQ(rep.new_k, 4);
  EXPECT_GT(rep.first, rep.highest);
  EXPECT_EQ((rep.first - 1) % 4, 0);
  ASSERT_EQ(all.size(), 2400u);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end())
      << "a value was handed out twice";
  // After the resize every server answers with its new residue.
  auto servers = open_all(urls);
  for (std::size_t i = 0; i < 4; ++i) {
    const std::int64_t v = servers[i]->next(name);
    EXPECT_GT(v, rep.highest);
    EXPECT_EQ((v - rep.first) % 4, static_cast<std::int64_t>(i));
  }
}

void shrink_retires(const std::vector<std::string>& urls) {
  const std::string name = test::unique_name("shrink");
  auto servers = open_all(first(urls, 3));
  init_ticket_set(servers, name, 100);
  for (auto& s : servers) s->next(name);  // 100, 101, 102
  const auto rep = resize_ticket_set(servers, name, 1);
  EXPECT_EQ(rep.highest, 102);
  EXPECT_EQ(rep.first, 103);
  EXPECT_EQ(servers[0]->next(name), 103);
  EXPECT_EQ(servers[0]->next(name), 104);
  try {
    servers[2]->next(name);
    ADD_FAILURE() << "a retired server still hands out values";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found) << e.what();
  }
}

TEST(TicketPostgres, TwoServersHandOutOddAndEven) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  two_servers_interleave(test::split_urls(urls));
}
TEST(TicketPostgres, ResizeFromTwoToFourUnderLoadHandsOutNoValueTwice) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  resize_under_load(test::split_urls(urls));
}
TEST(TicketPostgres, ShrinkRetiresTheServersLeft) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  shrink_retires(test::split_urls(urls));
}

std::vector<std::string> mariadb_servers(const std::string& base, const std::string& tag) {
  // Four "servers" as four databases of one MariaDB; each carries its own step and offset.
  const std::string root = base.substr(0, base.rfind('/') + 1);
  std::vector<std::string> out;
  for (int i = 1; i <= 4; ++i) out.push_back(root + tag + std::to_string(i));
  return out;
}

TEST(TicketMariaDb, TwoServersHandOutOddAndEven) {
  IDFORGE_NEED_SERVICE(url, "IDFORGE_MARIADB_URL");
  two_servers_interleave(mariadb_servers(url, "idf_tk_a"));
}
TEST(TicketMariaDb, ResizeFromTwoToFourUnderLoadHandsOutNoValueTwice) {
  IDFORGE_NEED_SERVICE(url, "IDFORGE_MARIADB_URL");
  resize_under_load(mariadb_servers(url, "idf_tk_b"));
}
TEST(TicketMariaDb, ShrinkRetiresTheServersLeft) {
  IDFORGE_NEED_SERVICE(url, "IDFORGE_MARIADB_URL");
  shrink_retires(mariadb_servers(url, "idf_tk_c"));
}

TEST(TicketResize, AnUnreachableServerStopsTheResizeAndChangesNothing) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const std::string name = test::unique_name("blind");
  auto list = first(test::split_urls(urls), 2);
  auto servers = open_all(list);
  init_ticket_set(servers, name);
  servers[0]->next(name);  // 1
  list.push_back("postgres://postgres@127.0.0.1:1/postgres");
  auto with_dead = open_all(list);
  try {
    resize_ticket_set(with_dead, name, 3);
    ADD_FAILURE() << "resize went ahead without server 3";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::store_unreachable);
    EXPECT_NE(std::string(e.what()).find("changed nothing: server 3"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(servers[0]->next(name), 3) << "the old step still applies";
}

}  // namespace
}  // namespace idforge::ticket
