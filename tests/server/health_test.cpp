// /healthz, /readyz following the readiness source, /metrics, and the index page.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "live_server.hpp"

namespace idforge::test {
namespace {

using nlohmann::json;

TEST(Health, HealthzAnswersOk) {
  LiveServer s;
  auto c = s.client();
  auto r = c.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["status"], "ok");
}

TEST(Health, ReadyzFollowsTheReadinessSourceDownAndBack) {
  LiveServer s({}, {}, /*ready=*/false);
  auto c = s.client();
  auto r = c.Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  s.server().readiness()->set_ready();
  r = c.Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  // The source goes away (a lost lease): readyz and node-bound kinds answer 503.
  s.server().readiness()->set_not_ready("lease store unreachable");
  r = c.Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_NE(json::parse(r->body)["detail"].get<std::string>().find("lease store unreachable"),
            std::string::npos);
  auto ids = c.Get("/v1/ids/snowflake");
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->status, 503);
  EXPECT_EQ(ids->get_header_value("Retry-After"), "1");
  EXPECT_EQ(json::parse(ids->body)["type"], "urn:idforge:problem:not-ready");
  // ... and comes back.
  s.server().readiness()->set_ready();
  r = c.Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  ids = c.Get("/v1/ids/snowflake");
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->status, 200);
}

TEST(Health, MetricsCountIdsRequestsLatencyAndClockEvents) {
  LiveServer s;
  auto c = s.client();
  c.set_keep_alive(true);  // one connection: each request is counted before the next starts
  ASSERT_TRUE(c.Get("/v1/ids/snowflake?count=7"));
  ASSERT_TRUE(c.Get("/v1/ids/snowflake?count=0"));
  auto r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& m = r->body;
  for (const char* line :
       {"idforge_ids_issued_total{kind=\"snowflake\"} 7\n",
        "idforge_http_requests_total{route=\"/v1/ids/{kind}\",status=\"200\"} 1\n",
        "idforge_http_requests_total{route=\"/v1/ids/{kind}\",status=\"400\"} 1\n",
        "idforge_http_request_duration_seconds_count{route=\"/v1/ids/{kind}\"} 2\n",
        "idforge_http_request_duration_seconds_bucket{route=\"/v1/ids/{kind}\",le=\"+Inf\"} 2\n",
        "# TYPE idforge_http_request_duration_seconds histogram\n",
        "idforge_snowflake_clock_backward_waits_total 0\n",
        "idforge_snowflake_clock_backward_refusals_total 0\n", "idforge_http_connections_open 1\n"})
    EXPECT_NE(m.find(line), std::string::npos) << line << "\n" << m;
}

TEST(Health, IndexIsServedAtRootWithoutAWebRoot) {
  server::ServerConfig cfg;
  cfg.web_root = ::testing::TempDir();
  LiveServer with_dir(cfg);  // a folder without index.html: the built-in index answers /
  auto c = with_dir.client();
  auto r = c.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("/v1/ids/snowflake"), std::string::npos);
}

}  // namespace
}  // namespace idforge::test
