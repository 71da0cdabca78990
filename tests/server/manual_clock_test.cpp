// The server and its lease binding read the clock they are given: on a ManualClock, a
// Snowflake minted through the server carries the manual time, and readiness follows the
// lease's fence as that clock moves, not as the wall clock does.
#include <gtest/gtest.h>

#ifdef IDFORGE_SERVER_HAVE_LEASE
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/server/event_log.hpp"
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
    // A folder per test: ctest runs the tests of this fixture in parallel processes.
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (std::string("idforge_manual_clock_leases_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ManualClock clock_{kStartMs * 1'000'000};
  std::filesystem::path dir_;
};

TEST_F(ServerOnManualClock, ASnowflakeMintedThroughTheServerCarriesTheManualTime) {
  // A long TTL: the renewal thread stays asleep while the test moves the clock.
  coord::SharedLeasedSnowflakeGenerator gen(
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
  coord::SharedLeasedSnowflakeGenerator gen(
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

// The layout's time field running out while serving: /readyz says so with its own cause
// (and /metrics with it), and an ID request is a 503 of its own type, never a 500.
TEST_F(ServerOnManualClock, TheTimeFieldRunningOutIsNotReadyAndA503NeverA500) {
  // 20 bits of 1 ms ticks from the start: the field runs out 1,048,576 ms later.
  const Layout small = parse_layout(
      "time=20,dc=0,worker=31,seq=12,tick=1ms,epoch=" + std::to_string(kStartMs) + ",name=small",
      kStartMs);
  coord::SharedLeasedSnowflakeGenerator gen(
      coord::open_lease_store("file:" + dir_.string() + "?ttl=" + std::to_string(kTtlMs)), small,
      clock_);
  server::ServerConfig config;
  config.access_log = "off";
  server::Server srv(config, clock_);
  server::LeaseBinding binding(srv, gen, std::chrono::hours(1));
  clock_.advance_ms(5);
  ASSERT_EQ(get(srv, "/v1/ids/snowflake").first, 200);
  EXPECT_NE(get(srv, "/metrics").second.find("idforge_ready 1\n"), std::string::npos);

  clock_.set_ms(kStartMs + (std::int64_t{1} << 20));
  const auto [status, body] = get(srv, "/v1/ids/snowflake");
  EXPECT_EQ(status, 503) << body;
  EXPECT_NE(body.find("urn:idforge:problem:time-exhausted"), std::string::npos) << body;
  binding.refresh();
  const auto [ready, why] = get(srv, "/readyz");
  EXPECT_EQ(ready, 503);
  EXPECT_NE(why.find("\"cause\":\"time-exhausted\""), std::string::npos) << why;
  EXPECT_NE(why.find("20-bit time field has no tick left"), std::string::npos) << why;
  const std::string metrics = get(srv, "/metrics").second;
  EXPECT_NE(metrics.find("idforge_ready 0\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("idforge_not_ready{cause=\"time-exhausted\"} 1"), std::string::npos)
      << metrics;
}

// The last tick of the time field with its sequence numbers used up ends the field before
// that tick's end time: the first refused request takes readiness down with it.
TEST_F(ServerOnManualClock, TheLastTickUsedUpIsNotReadyBeforeItsEndTime) {
  const Layout coarse = parse_layout(
      "time=20,dc=0,worker=31,seq=12,tick=1s,epoch=" + std::to_string(kStartMs) + ",name=coarse",
      kStartMs);
  coord::SharedLeasedSnowflakeGenerator gen(
      coord::open_lease_store("file:" + dir_.string() + "?ttl=" + std::to_string(kTtlMs)), coarse,
      clock_);
  server::ServerConfig config;
  config.access_log = "off";
  server::Server srv(config, clock_);
  server::LeaseBinding binding(srv, gen, std::chrono::hours(1));
  const std::int64_t last_tick_ms = kStartMs + ((std::int64_t{1} << 20) - 1) * 1000;
  clock_.set_ms(last_tick_ms + 100);  // inside the last tick, 900 ms before its end
  ASSERT_TRUE(gen.keeper().renew()) << gen.keeper().status().last_error;  // a fence from now
  binding.refresh();
  ASSERT_EQ(get(srv, "/readyz").first, 200);
  ASSERT_EQ(get(srv, "/v1/ids/snowflake?count=4096").first, 200);  // the whole tick
  const auto [status, body] = get(srv, "/v1/ids/snowflake");
  EXPECT_EQ(status, 503) << body;
  EXPECT_NE(body.find("time-exhausted"), std::string::npos) << body;
  binding.refresh();
  const auto [ready, why] = get(srv, "/readyz");
  EXPECT_EQ(ready, 503) << why;
  EXPECT_NE(why.find("\"cause\":\"time-exhausted\""), std::string::npos) << why;
  EXPECT_NE(why.find("sequence numbers are used up"), std::string::npos) << why;
}

// A clock stepped back further than an ID waits for it: every ID request would fail, so the
// service says not ready (naming how far behind) until the clock passes the last ID again.
TEST_F(ServerOnManualClock, ReadinessDropsWhileTheClockIsFarBehindTheLastId) {
  coord::SharedLeasedSnowflakeGenerator gen(
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

// The binding writes each lease event once, as it sees it: acquired; fenced, then renewed;
// the clock behind the last ID, then caught up; a renewal failing (with the time left
// before issuing stops); the lease lost to a deleted lock file, then taken again.
TEST_F(ServerOnManualClock, EveryLeaseEventIsOneLineOfTheEventLog) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  coord::LeasedOptions options;
  options.keeper.renew_in_background = false;
  coord::SharedLeasedSnowflakeGenerator gen(
      coord::open_lease_store("file:" + dir_.string() + "?ttl=" + std::to_string(kTtlMs)),
      presets::twitter(), clock_, {}, options);
  server::ServerConfig config;
  config.access_log = "off";
  server::Server srv(config, clock_);
  // min_gap 0: every renewal failure is a line (the limit has its own test).
  server::EventLog log(server::LogFormat::json, fds[1], clock_, std::chrono::milliseconds(0));
  std::vector<std::string> events;
  {
    server::LeaseBinding binding(srv, gen, std::chrono::hours(1));
    binding.log_events_to(log);

    const std::int64_t fence = gen.keeper().status().fence_unix_ms;
    clock_.set_ms(fence);
    binding.refresh();
    binding.refresh();  // the same state again: no second line
    ASSERT_TRUE(gen.keeper().renew()) << gen.keeper().status().last_error;
    binding.refresh();
    EXPECT_EQ(get(srv, "/readyz").first, 200);

    clock_.advance_ms(1000);
    ASSERT_EQ(get(srv, "/v1/ids/snowflake").first, 200);
    const std::int64_t last = gen.generator().last_unix_ms();
    clock_.set_ms(last - 500);
    binding.refresh();
    clock_.set_ms(last + 1);
    binding.refresh();

    const auto aside = dir_.string() + ".aside";
    std::filesystem::remove_all(aside);
    std::filesystem::rename(dir_, aside);
    EXPECT_FALSE(gen.keeper().renew());
    binding.refresh();
    std::filesystem::rename(aside, dir_);

    ASSERT_EQ(unlink((dir_ / ("node-" + std::to_string(gen.node()) + ".lock")).c_str()), 0);
    EXPECT_FALSE(gen.keeper().renew());
    binding.refresh();
    EXPECT_EQ(get(srv, "/readyz").first, 503);
    ASSERT_TRUE(gen.keeper().renew()) << gen.keeper().status().last_error;
    binding.refresh();
    // The renewal that found the loss had stored its reservation first, and a keeper cannot
    // tell its own mark from another holder's: taken again, it issues above that mark, so
    // it waits for the clock (not ready, saying so) until the clock passes it.
    EXPECT_EQ(get(srv, "/readyz").first, 503);
    // (Its fence lies one ms past that mark: by then the background renewal, not run
    // here, has moved it on.)
    clock_.set_ms(gen.generator().last_unix_ms() + 1);
    ASSERT_TRUE(gen.keeper().renew()) << gen.keeper().status().last_error;
    binding.refresh();
    EXPECT_EQ(get(srv, "/readyz").first, 200);
  }
  close(fds[1]);
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) all.append(buf, n);
  close(fds[0]);
  std::istringstream in(all);
  std::vector<std::string> messages;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    events.push_back(j["event"]);
    messages.push_back(j["message"]);
  }
  const std::vector<std::string> want = {
      "lease_acquired",    "lease_fenced",         "lease_renewed", "clock_behind_mark",
      "clock_caught_up",   "lease_renewal_failed", "lease_lost",    "lease_reacquired",
      "clock_behind_mark", "clock_caught_up"};
  EXPECT_EQ(events, want) << all;
  ASSERT_EQ(messages.size(), want.size()) << all;
  EXPECT_NE(messages[5].find("issuing stops in "), std::string::npos) << messages[5];
  EXPECT_NE(messages[6].find("the keeper tries to take the node again"), std::string::npos)
      << messages[6];
  EXPECT_NE(messages[7].find("issuing resumes"), std::string::npos) << messages[7];
}

}  // namespace
}  // namespace idforge::test
#endif
