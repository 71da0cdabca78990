// Against the shared Redis (IDFORGE_REDIS_URL) with a key prefix of the test's own, and
// against a private redis-server where the test stops or freezes the server.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "expect_errc.hpp"
#include "idforge/coord/coord_errc.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

using namespace std::chrono_literals;
const Layout kTwitter = presets::twitter();

// A stopped Redis at start-up: a clear error naming the store, within the timeout.
TEST(RedisStore, StoppedServerAtStartUpGivesAClearErrorInBoundedTime) {
  test::PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  const std::string url = test::with_params(redis.url(), "timeout=300");
  // Frozen (SIGSTOP): the kernel still accepts the connection; the reply never comes.
  redis.signal(SIGSTOP);
  auto t0 = std::chrono::steady_clock::now();
  try {
    LeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter);
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.code(), coord_errc::store_unreachable);
    EXPECT_EQ(e.store(), url);
    // The first command on a connection names it (CLIENT SETNAME, store_generation.hpp).
    EXPECT_NE(std::string(e.what()).find("did not answer CLIENT SETNAME"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("(timeout 300 ms)"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // bounded by the 300 ms timeout
  // Stopped for good: connection refused.
  redis.signal(SIGKILL);
  redis.signal(SIGCONT);
  std::this_thread::sleep_for(100ms);
  t0 = std::chrono::steady_clock::now();
  EXPECT_ERRC_AS(LeaseError, LeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter),
                 coord_errc::store_unreachable, "cannot connect to Redis at 127.0.0.1:", url);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

// Redis frozen for a while during operation: the generator pauses at its fence and resumes
// after the next successful renewal, before the key could expire.
TEST(RedisStore, GeneratorPausesWhileRedisIsFrozenAndResumesAfterRenewal) {
  test::PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  LeasedOptions options;
  options.keeper.safety_margin_ms = 900;  // fence 2.1 s after a renewal, expiry at 3 s
  options.keeper.retry_ms = 100;
  LeasedSnowflakeGenerator gen(
      open_lease_store(test::with_params(redis.url(), "ttl=3000&timeout=200")), kTwitter, {},
      options);
  // Freeze right after a renewal, so the fence comes before the key expires.
  const auto renewals = gen.keeper().status().renewals;
  for (auto end = std::chrono::steady_clock::now() + 3s;
       gen.keeper().status().renewals == renewals && std::chrono::steady_clock::now() < end;)
    std::this_thread::sleep_for(5ms);
  ASSERT_GT(gen.keeper().status().renewals, renewals);
  redis.signal(SIGSTOP);
  std::uint64_t before = gen.next().value();
  bool fenced = false;
  for (auto end = std::chrono::steady_clock::now() + 4s;
       !fenced && std::chrono::steady_clock::now() < end;) {
    try {
      before = gen.next().value();
      std::this_thread::sleep_for(1ms);
    } catch (const LeaseError& e) {
      EXPECT_EQ(e.reason(), LeaseFailure::fenced) << e.what();
      fenced = true;
    }
  }
  redis.signal(SIGCONT);
  ASSERT_TRUE(fenced) << "the generator kept issuing while no renewal succeeded";
  EXPECT_GT(gen.keeper().status().failures, 0u);
  bool resumed = false;
  std::uint64_t after = 0;
  for (auto end = std::chrono::steady_clock::now() + 3s;
       !resumed && std::chrono::steady_clock::now() < end;) {
    try {
      after = gen.next().value();
      resumed = true;
    } catch (const LeaseError& e) {
      ASSERT_EQ(e.reason(), LeaseFailure::fenced) << e.what();
      std::this_thread::sleep_for(20ms);
    }
  }
  ASSERT_TRUE(resumed);
  EXPECT_GT(after, before);
  EXPECT_FALSE(gen.keeper().status().lost);
}

}  // namespace
}  // namespace idforge::coord
