// A next() whose nextval() waited for a fence and ran into the pinned sequence, while the
// resize finished before next() looked at the record: the server is active again, so the
// value is asked for again; the set is not exhausted. Deterministic: the fence and the rest
// of the resize run from the statement hook, between the client's statements.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/ticket_server.hpp"
#include "idforge/ticket/ticket_set.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

TEST(TicketFenceRace, PostgresNextThatMetAFenceThatEndedAsksAgain) {
  IDFORGE_NEED_SERVICE(urls, "IDFORGE_PG_TICKET_URLS");
  const std::string url = test::split_urls(urls).at(0);
  const std::string name = test::unique_name("race");
  std::vector<std::unique_ptr<TicketServer>> admin;
  admin.push_back(open_ticket_server(url));
  init_ticket_set(admin, name);
  auto client = open_ticket_server(url);
  ASSERT_EQ(client->next(name).value, 1);

  int fences = 0, finishes = 0;
  client->set_statement_hook([&](std::string_view sql) {
    if (sql.find("nextval") != std::string_view::npos && fences == 0) {
      ++fences;  // the fence pins the sequence before this nextval() runs
      const auto rec = admin[0]->read(name);
      admin[0]->fence(name, rec->version, "e2-00000000000000aa");
    } else if (sql.find("FROM idforge_ticket_members") != std::string_view::npos && finishes == 0 &&
               fences == 1) {
      ++finishes;  // ... and the resize is over before the client reads the record
      ResizeOptions o;
      o.resume = true;
      resize_ticket_set(admin, name, 1, o);
    }
  });
  TicketValue v;
  try {
    v = client->next(name);
  } catch (const Error& e) {
    FAIL() << "a next() that met a finished fence failed: " << e.what();
  }
  EXPECT_EQ(fences, 1);
  EXPECT_EQ(finishes, 1);
  EXPECT_GT(v.value, 1);
  EXPECT_GE(v.epoch, 2);
}

}  // namespace
}  // namespace idforge::ticket
