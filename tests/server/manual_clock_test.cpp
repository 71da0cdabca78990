// The server and its lease binding read the clock they are given: on a ManualClock, a
// Snowflake minted through the server carries the manual time, and readiness follows the
// lease's fence as that clock moves, not as the wall clock does.
#include <gtest/gtest.h>

#ifdef IDFORGE_SERVER_HAVE_LEASE
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "idforge/clock.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/server/lease_binding.hpp"
#include "idforge/server/server.hpp"
#include "idforge/snowflake.hpp"

namespace idforge::test {
namespace {

// 2024-05-01T00:00:00Z: years before the wall clock, so a clock read from the system
// instead of the manual one shows at once.
constexpr std::int64_t kStartMs = 1'714'521'600'000;
constexpr std::int64_t kTtlMs = 60'000;

// One request through the server in-process; the status and the body.
std::pair<int, std::string> get(server::Server& srv, const std::string& target) {
  const std::string raw = srv.exchange("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto sp = raw.find(' ');
  const int status = sp == std::string::npos ? 0 : std::stoi(raw.substr(sp + 1, 3));
  const auto body = raw.find("\r\n\r\n");
  return {status, body == std::string::npos ? std::string() : raw.substr(body + 4)};
}

class ServerOnManualClock : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / "idforge_manual_clock_leases";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ManualClock clock_{kStartMs * 1'000'000};
  std::filesystem::path dir_;
};

TEST_F(ServerOnManualClock, ASnowflakeMintedThroughTheServerCarriesTheManualTime) {
  // A long TTL: the renewal thread stays asleep while the test moves the clock.
  coord::LeasedSnowflakeGenerator gen(
      coord::open_lease_store("file:" + dir_.string() + "?ttl=" + std::to_string(kTtlMs)),
      presets::twitter(), clock_);
  server::ServerConfig config;
  config.access_log = "off";
  server::Server srv(config, clock_);
  // The binding reads the server's clock; its poll is long so only refresh() reads it here.
  server::LeaseBinding binding(srv, gen, std::chrono::hours(1));
  clock_.advance_ms(7);

  const auto [status, body] = get(srv, "/v1/ids/snowflake");
  ASSERT_EQ(status, 200) << body;
  const auto id = std::stoull(nlohmann::json::parse(body)["id_str"].get<std::string>());
  const SnowflakeParts p = decompose(presets::twitter(), Snowflake(id));
  EXPECT_EQ(p.unix_ms, kStartMs + 7);
  EXPECT_EQ(p.node, gen.node());
}

TEST_F(ServerOnManualClock, ReadinessFollowsTheFenceOnTheGivenClock) {
  coord::LeasedSnowflakeGenerator gen(
      coord::open_lease_store("file:" + dir_.string() + "?ttl=" + std::to_string(kTtlMs)),
      presets::twitter(), clock_);
  server::ServerConfig config;
  config.access_log = "off";
  server::Server srv(config);  // the server on the system clock; the binding on the manual one
  server::LeaseBinding binding(srv, gen, clock_, std::chrono::hours(1));
  EXPECT_EQ(get(srv, "/readyz").first, 200);

  // Past the fence on the manual clock (no renewal ran meanwhile): not ready.
  const std::int64_t fence = gen.keeper().status().fence_unix_ms;
  ASSERT_GT(fence, kStartMs);
  clock_.set_ms(fence);
  binding.refresh();
  const auto [status, body] = get(srv, "/readyz");
  EXPECT_EQ(status, 503);
  EXPECT_NE(body.find("not renewed"), std::string::npos) << body;

  // Back before it: ready again.
  clock_.set_ms(fence - 1);
  binding.refresh();
  EXPECT_EQ(get(srv, "/readyz").first, 200);
}

// A clock stepped back further than an ID waits for it: every ID request would fail, so the
// service says not ready (naming how far behind) until the clock passes the last ID again.
TEST_F(ServerOnManualClock, ReadinessDropsWhileTheClockIsFarBehindTheLastId) {
  coord::LeasedSnowflakeGenerator gen(
      coord::open_lease_store("file:" + dir_.string() + "?ttl=" + std::to_string(kTtlMs)),
      presets::twitter(), clock_);
  server::ServerConfig config;
  config.access_log = "off";
  server::Server srv(config, clock_);
  server::LeaseBinding binding(srv, gen, std::chrono::hours(1));
  clock_.advance_ms(1000);
  ASSERT_EQ(get(srv, "/v1/ids/snowflake").first, 200);
  const std::int64_t last = gen.generator().last_unix_ms();
  ASSERT_EQ(last, kStartMs + 1000);

  // A few ms behind: an ID waits for the clock, and readiness stays.
  clock_.set_ms(last - 3);
  binding.refresh();
  EXPECT_EQ(get(srv, "/readyz").first, 200);

  // 500 ms behind (the default wait is 5 ms): IDs are refused, and so is readiness.
  clock_.set_ms(last - 500);
  binding.refresh();
  EXPECT_EQ(get(srv, "/v1/ids/snowflake").first, 503);
  const auto [status, body] = get(srv, "/readyz");
  EXPECT_EQ(status, 503);
  EXPECT_NE(body.find("the clock is 500 ms behind the last ID"), std::string::npos) << body;

  // Past the last ID again: ready, and IDs flow.
  clock_.set_ms(last + 1);
  binding.refresh();
  EXPECT_EQ(get(srv, "/readyz").first, 200);
  EXPECT_EQ(get(srv, "/v1/ids/snowflake").first, 200);
}

}  // namespace
}  // namespace idforge::test
#endif
