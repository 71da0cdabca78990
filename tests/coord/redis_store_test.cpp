// Against the shared Redis (IDFORGE_REDIS_URL) with a key prefix of the test's own, and
// against a private redis-server where the test stops or freezes the server.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

using namespace std::chrono_literals;
const Layout kTwitter = presets::twitter();

std::string prefixed(const std::string& url, const std::string& more = "") {
  return test::with_params(url, "prefix=" + test::unique_name() + ":" + (more.empty() ? "" : "&" + more));
}

TEST(RedisStore, AcquireRenewReleaseKeepsTheMark) {
  IDFORGE_SERVICE_URL(base, "IDFORGE_REDIS_URL");
  const std::string url = prefixed(base, "ttl=5000");
  auto a = open_lease_store(url), b = open_lease_store(url);
  Lease la = a->acquire(kTwitter);
  Lease lb = b->acquire(kTwitter);
  EXPECT_EQ(la.node, 0u);
  EXPECT_EQ(lb.node, 1u);
  EXPECT_EQ(la.high_water_unix_ms, kNoMark);
  EXPECT_LE(la.deadline_unix_ms, la.since_unix_ms + 5000);
  a->renew(la, 1'800'000'000'000);
  a->renew(la, 1'700'000'000'000);  // a renewal never lowers the mark
  const auto rows = b->list(kTwitter);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].high_water_unix_ms, 1'800'000'000'000);
  EXPECT_GT(rows[0].ttl_left_ms, 0);
  EXPECT_EQ(rows[0].holder, la.holder);
  a->release(la, 1'800'000'000'123);
  const Lease again = a->acquire(kTwitter);
  EXPECT_EQ(again.node, 0u);
  EXPECT_EQ(again.high_water_unix_ms, 1'800'000'000'123);
  b->release(lb, 0);
}

TEST(RedisStore, RenewalAfterTheKeyWasTakenIsLost) {
  IDFORGE_SERVICE_URL(base, "IDFORGE_REDIS_URL");
  const std::string url = prefixed(base, "ttl=200&nodes=1");
  auto a = open_lease_store(url), b = open_lease_store(url);
  Lease la = a->acquire(kTwitter);
  std::this_thread::sleep_for(400ms);  // a real TTL has to run out on the server
  Lease lb = b->acquire(kTwitter);     // the key expired: b gets the same node ID
  EXPECT_EQ(lb.node, la.node);
  try {
    a->renew(la, 1);
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::lost);
    EXPECT_NE(std::string(e.what()).find("another holder took node 0"), std::string::npos) << e.what();
  }
  a->release(la, 1);  // compare-and-delete: must not free b's key
  EXPECT_EQ(b->list(kTwitter).size(), 1u);
  b->renew(lb, 2);
}

TEST(RedisStore, FullRangeIsATypedError) {
  IDFORGE_SERVICE_URL(base, "IDFORGE_REDIS_URL");
  const std::string url = prefixed(base, "nodes=1");
  auto a = open_lease_store(url), b = open_lease_store(url);
  Lease la = a->acquire(kTwitter);
  try {
    b->acquire(kTwitter);
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::space_full);
  }
  a->release(la, 0);
}

// A stopped Redis at start-up: a clear error naming the store, within the timeout.
TEST(RedisStore, StoppedServerAtStartUpGivesAClearErrorInBoundedTime) {
  test::PrivateRedis redis;
  if (!redis.start()) {
    if (test::services_required()) FAIL() << "could not start a private redis-server";
    GTEST_SKIP() << "redis-server not available";
  }
  const std::string url = test::with_params(redis.url(), "timeout=300");
  // Frozen (SIGSTOP): the kernel still accepts the connection; the reply never comes.
  redis.signal(SIGSTOP);
  auto t0 = std::chrono::steady_clock::now();
  try {
    LeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter);
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.code(), errc::store_unreachable);
    EXPECT_EQ(e.store(), url);
    EXPECT_NE(std::string(e.what()).find("did not answer MGET"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // bounded by the 300 ms timeout
  // Stopped for good: connection refused.
  redis.signal(SIGKILL);
  redis.signal(SIGCONT);
  std::this_thread::sleep_for(100ms);
  t0 = std::chrono::steady_clock::now();
  try {
    LeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter);
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.code(), errc::store_unreachable);
    EXPECT_NE(std::string(e.what()).find("cannot connect to Redis at 127.0.0.1:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(url), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

// Redis frozen for a while during operation: the generator pauses at its fence and resumes
// after the next successful renewal, before the key could expire.
TEST(RedisStore, GeneratorPausesWhileRedisIsFrozenAndResumesAfterRenewal) {
  test::PrivateRedis redis;
  if (!redis.start()) {
    if (test::services_required()) FAIL() << "could not start a private redis-server";
    GTEST_SKIP() << "redis-server not available";
  }
  LeasedOptions options;
  options.keeper.safety_margin_ms = 900;  // fence 2.1 s after a renewal, expiry at 3 s
  options.keeper.retry_ms = 100;
  LeasedSnowflakeGenerator gen(open_lease_store(test::with_params(redis.url(), "ttl=3000&timeout=200")), kTwitter,
                               {}, options);
  // Freeze right after a renewal, so the fence comes before the key expires.
  const auto renewals = gen.keeper().status().renewals;
  for (auto end = std::chrono::steady_clock::now() + 3s;
       gen.keeper().status().renewals == renewals && std::chrono::steady_clock::now() < end;)
    std::this_thread::sleep_for(5ms);
  ASSERT_GT(gen.keeper().status().renewals, renewals);
  redis.signal(SIGSTOP);
  std::uint64_t before = gen.next().value();
  bool fenced = false;
  for (auto end = std::chrono::steady_clock::now() + 4s; !fenced && std::chrono::steady_clock::now() < end;) {
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
  for (auto end = std::chrono::steady_clock::now() + 3s; !resumed && std::chrono::steady_clock::now() < end;) {
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
