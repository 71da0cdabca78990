// Databases that go away: a segment client sees a clear error while its PostgreSQL is down
// and resumes without a duplicate; a ticket client fails over to the server still up.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/ticket_client.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "idforge/ticket/ticket_set.hpp"
#include "pg_instance.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

#define IDFORGE_NEED_PRIVATE_PG() \
  if (auto why = test::PgInstance::unavailable_reason()) IDFORGE_SKIP_OR_FAIL(*why)

void expect_unique(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  EXPECT_EQ(std::adjacent_find(v.begin(), v.end()), v.end()) << "a value was handed out twice";
}

TEST(PgRestart, SegmentClientErrorsWhileDownAndResumesWithoutDuplicates) {
  IDFORGE_NEED_PRIVATE_PG();
  test::PgInstance pg;
  auto store = open_segment_store(pg.url());
  store->create("orders", 1, 50);
  SegmentClient c(*store, "orders", {.prefetch_at = 0.5, .background = false});
  std::vector<std::int64_t> got;
  for (int i = 0; i < 120; ++i) got.push_back(c.next());
  pg.stop();
  // What is in memory still serves; the first value that needs the database fails clearly.
  std::string error;
  for (int i = 0; i < 200 && error.empty(); ++i) {
    try {
      got.push_back(c.next());
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ticket_errc::store_unreachable);
      error = e.what();
    }
  }
  ASSERT_FALSE(error.empty()) << "no error although the database was down";
  EXPECT_NE(error.find("PostgreSQL at " + pg.url() + " is unreachable"), std::string::npos)
      << error;
  EXPECT_THROW(c.next(), Error) << "still down: still an error";
  pg.start();
  for (int i = 0; i < 300; ++i) got.push_back(c.next());
  expect_unique(got);
  EXPECT_GE(c.stats().load_failures, 1);
}

TEST(PgRestart, TicketClientFailsOverToTheServerStillUp) {
  IDFORGE_NEED_PRIVATE_PG();
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  test::PgInstance down;
  const std::string name = test::unique_name("fo");
  std::vector<std::unique_ptr<TicketServer>> servers;
  servers.push_back(open_ticket_server(down.url()));
  servers.push_back(open_ticket_server(test::split_urls(urls).at(0)));
  init_ticket_set(servers, name);
  ManualClock clock(1'000'000'000);
  TicketClient client(std::move(servers), name, {.retry_after_ns = 5'000'000'000}, clock);
  std::vector<std::int64_t> got;
  for (int i = 0; i < 10; ++i) got.push_back(client.next());
  down.stop();
  for (int i = 0; i < 20; ++i) got.push_back(client.next());  // every one from server 2
  const auto mid = client.stats();
  EXPECT_GE(mid[0].failures, 1);
  EXPECT_NE(mid[0].last_error.find("unreachable"), std::string::npos) << mid[0].last_error;
  EXPECT_EQ(mid[1].served, 5 + 20);
  down.start();
  clock.advance_ms(6'000);  // past the retry time: server 1 is asked again
  for (int i = 0; i < 10; ++i) got.push_back(client.next());
  EXPECT_GT(client.stats()[0].served, mid[0].served);
  expect_unique(got);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_GE(got[i], 1);
}

}  // namespace
}  // namespace idforge::ticket
