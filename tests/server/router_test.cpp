// Router matching, the rate limiter on a manual clock, and problem details.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/server/rate_limiter.hpp"
#include "idforge/server/router.hpp"

namespace idforge::server {
namespace {

Router make_router() {
  Router r;
  r.add("GET", "/v1/ids/{kind}", [](const Request&) { return Response{}; });
  r.add("GET", "/v1/sequences/{name}", [](const Request&) { return Response{}; });
  r.add("GET", "/healthz", [](const Request&) { return Response{}; });
  return r;
}

TEST(Router, MatchesSegmentsAndCapturesParams) {
  const Router r = make_router();
  auto m = r.match("GET", "/v1/ids/snowflake");
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(m.route->pattern, "/v1/ids/{kind}");
  ASSERT_EQ(m.params.size(), 1u);
  EXPECT_EQ(m.params[0].second, "snowflake");
  EXPECT_NE(r.match("HEAD", "/healthz").route, nullptr);
}

TEST(Router, NoEmptyOrExtraSegments) {
  const Router r = make_router();
  EXPECT_EQ(r.match("GET", "/v1/ids/").route, nullptr);
  EXPECT_EQ(r.match("GET", "/v1/ids/a/b").route, nullptr);
  EXPECT_EQ(r.match("GET", "/v1/ids").route, nullptr);
  EXPECT_EQ(r.match("GET", "/healthz/").route, nullptr);
}

TEST(Router, OtherMethodOnAKnownPathGivesAllow) {
  const Router r = make_router();
  auto m = r.match("POST", "/v1/sequences/orders");
  EXPECT_EQ(m.route, nullptr);
  EXPECT_EQ(m.allow, "GET, HEAD");
  EXPECT_TRUE(r.match("POST", "/nowhere").allow.empty());
}

TEST(Router, DuplicateRouteIsRefused) {
  Router r = make_router();
  EXPECT_THROW(r.add("GET", "/healthz", [](const Request&) { return Response{}; }), Error);
  EXPECT_THROW(r.add("GET", "healthz", [](const Request&) { return Response{}; }), Error);
}

TEST(Problem, IsRfc9457Json) {
  const Response p = problem(429, "rate-limited", "Too Many Requests", "over 5/s");
  EXPECT_EQ(p.status, 429);
  EXPECT_EQ(p.content_type, "application/problem+json");
  const auto j = nlohmann::json::parse(p.body);
  EXPECT_EQ(j["type"], "urn:idforge:problem:rate-limited");
  EXPECT_EQ(j["title"], "Too Many Requests");
  EXPECT_EQ(j["status"], 429);
  EXPECT_EQ(j["detail"], "over 5/s");
}

TEST(RateLimiter, AdmitsTheBurstThenTheRate) {
  ManualClock clock(1'000'000'000'000);
  RateLimiter lim(10, 3, clock);  // 10/s, burst 3
  EXPECT_TRUE(lim.try_acquire());
  EXPECT_TRUE(lim.try_acquire());
  EXPECT_TRUE(lim.try_acquire());
  EXPECT_FALSE(lim.try_acquire());
  EXPECT_GE(lim.retry_after_s(), 1);
  clock.advance_ms(100);  // one token refills
  EXPECT_TRUE(lim.try_acquire());
  EXPECT_FALSE(lim.try_acquire());
  clock.advance_ms(10'000);  // never more than the burst saved up
  int admitted = 0;
  while (lim.try_acquire()) ++admitted;
  EXPECT_EQ(admitted, 3);
}

TEST(RateLimiter, RejectsANonPositiveRate) {
  ManualClock clock;
  EXPECT_THROW(RateLimiter(0, 1, clock), Error);
}

TEST(RateLimiter, RejectsRatesAndBurstsWhoseArithmeticWouldOverflow) {
  ManualClock clock(1'000'000'000'000);
  EXPECT_THROW(RateLimiter(1e-10, 0, clock), Error);
  EXPECT_THROW(RateLimiter(0.01, 1e9, clock), Error);
  // At the edges of the ranges it still limits: one request, then none for 1000 s.
  RateLimiter slow(0.001, 1, clock);
  EXPECT_TRUE(slow.try_acquire());
  EXPECT_FALSE(slow.try_acquire());
  EXPECT_EQ(slow.retry_after_s(), 1000);
  RateLimiter wide(0.001, 1e6, clock);
  EXPECT_TRUE(wide.try_acquire());
}

TEST(Problem, InvalidUtf8InTheDetailIsReplacedNotThrown) {
  const Response r = problem(404, "not-found", "Not Found", "no resource at /\xff\xc3\x28");
  const auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["detail"].get<std::string>(), "no resource at /\xef\xbf\xbd\xef\xbf\xbd(");
}

}  // namespace
}  // namespace idforge::server
