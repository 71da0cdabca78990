// The /v1/sim routes on a live server: shapes, errors as problem documents, and the page.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>

#include "idforge/clock.hpp"
#include "idforge/server/sim.hpp"
#include "live_server.hpp"

namespace idforge::test {
namespace {

using nlohmann::json;

TEST(SimRoutes, LayoutsRunAndDemosAnswerJson) {
  LiveServer s({}, [](server::Server& srv) { server::add_sim_routes(srv); });
  auto c = s.client();
  auto layouts = c.Get("/v1/sim/layouts");
  ASSERT_TRUE(layouts);
  EXPECT_EQ(layouts->status, 200);
  EXPECT_EQ(json::parse(layouts->body)["layouts"].size(), 3u);

  auto run = c.Get("/v1/sim/run?kind=uuid7&count=3");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, 200);
  EXPECT_EQ(run->get_header_value("Cache-Control"), "no-store");
  const json r = json::parse(run->body);
  EXPECT_EQ(r["kind"], "uuid7");
  EXPECT_EQ(r["steps"].size(), 3u);

  for (int n = 1; n <= 5; ++n) {
    auto d = c.Get(("/v1/sim/demo/" + std::to_string(n) + "?start_ms=1714521600000").c_str());
    ASSERT_TRUE(d);
    EXPECT_EQ(d->status, 200) << d->body;
    EXPECT_EQ(json::parse(d->body)["demo"], n);
  }
}

TEST(SimRoutes, WithoutStartMsARunStartsAtTheServersClock) {
  LiveServer s({}, [](server::Server& srv) { server::add_sim_routes(srv); });
  const auto before = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  auto run = s.client().Get("/v1/sim/run?kind=snowflake&count=1");
  ASSERT_TRUE(run);
  const json r = json::parse(run->body);
  EXPECT_EQ(r["start_ms"].get<std::int64_t>() % 1000, 0);
  EXPECT_LE(std::abs(r["start_ms"].get<std::int64_t>() - before), 2000);
}

TEST(SimRoutes, WithoutStartMsARunStartsAtAManualServerClock) {
  // 2024-05-01T00:00:01.234Z: the run starts at the second it falls in.
  ManualClock clock(1'714'521'601'234 * 1'000'000);
  server::ServerConfig config;
  config.access_log = "off";
  server::Server srv(config, clock);
  server::add_sim_routes(srv);
  const std::string raw =
      srv.exchange("GET /v1/sim/run?kind=snowflake&count=1 HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto body = raw.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos) << raw;
  const json r = json::parse(raw.substr(body + 4));
  EXPECT_EQ(r["start_ms"], 1'714'521'601'000);
  EXPECT_EQ(r["steps"][0]["entry"]["clock_ms"], 1'714'521'601'000);
}

TEST(SimRoutes, BadQueriesAreProblemsNamingTheValue) {
  LiveServer s({}, [](server::Server& srv) { server::add_sim_routes(srv); });
  auto c = s.client();
  struct Case {
    const char* path;
    int status;
    const char* type;
    const char* detail;
  };
  const Case cases[] = {
      {"/v1/sim/run?kind=uuid1", 400, "unknown-kind", "kind='uuid1'"},
      {"/v1/sim/run?kind=uuid4&count=0", 400, "bad-count",
       "count='0' must be a whole number from 1 to 64"},
      {"/v1/sim/run?kind=uuid4&count=x", 400, "bad-count", "count='x'"},
      {"/v1/sim/run?start_ms=abc", 400, "bad-start",
       "start_ms='abc' must be a whole number of Unix ms"},
      {"/v1/sim/demo/6", 404, "no-such-demo", "demo '6' does not exist; demos are 1 to 5"},
      {"/v1/sim/demo/1?start_ms=12", 400, "bad-start", "start_ms='12'"},
  };
  for (const Case& k : cases) {
    auto r = c.Get(k.path);
    ASSERT_TRUE(r) << k.path;
    EXPECT_EQ(r->status, k.status) << k.path;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/problem+json") << k.path;
    const json j = json::parse(r->body);
    EXPECT_EQ(j["type"], std::string("urn:idforge:problem:") + k.type) << k.path;
    EXPECT_NE(j["detail"].get<std::string>().find(k.detail), std::string::npos) << j["detail"];
  }
}

TEST(SimRoutes, OtherMethodsGet405) {
  LiveServer s({}, [](server::Server& srv) { server::add_sim_routes(srv); });
  auto r = s.client().Post("/v1/sim/demo/1", "", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "GET, HEAD, OPTIONS");
}

}  // namespace
}  // namespace idforge::test
