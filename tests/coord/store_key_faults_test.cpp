// A holder's key edited by hand in Redis or etcd: deleted, or overwritten with something
// else. The holder's next renewal reports the lease lost and the generator stops for good;
// a newcomer that takes the node meanwhile starts above the holder's reserved mark, so the
// two never share an ID. And a node ID fixed by configuration cannot be taken twice.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <cstdio>
#include <memory>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/snowflake.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

const Layout kTwitter = presets::twitter();
constexpr std::int64_t kT = 1'800'000'000'000;
constexpr std::int64_t kMs = 1'000'000;

struct Edits {
  std::string url;  // with a prefix of the test's own, one node ID, ttl 60 s
  std::string node_key;
  std::function<void()> remove, overwrite;
  std::function<void()> wipe;  // every key of the prefix, the generation record included
};

void redis_command(const std::string& base, const std::vector<std::string>& args) {
  const auto colon = base.rfind(':');
  redisContext* c =
      redisConnect(base.substr(8, colon - 8).c_str(), std::stoi(base.substr(colon + 1)));
  ASSERT_TRUE(c && !c->err);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  freeReplyObject(redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), nullptr));
  redisFree(c);
}

void etcdctl(const std::string& base, const std::string& args) {
  const std::string endpoints =
      base.substr(7, base.find('?') == std::string::npos ? std::string::npos : base.find('?') - 7);
  ASSERT_EQ(
      std::system(
          ("ETCDCTL_API=3 etcdctl --endpoints=" + endpoints + " " + args + " >/dev/null").c_str()),
      0);
}

Edits redis_edits(const std::string& base) {
  const std::string prefix = test::unique_name() + ":";
  const std::string key = prefix + "node:0";
  return {test::with_params(base, "prefix=" + prefix + "&nodes=1&ttl=60000"), key,
          [=] {
            redis_command(base, {"DEL", key});
          },
          [=] {
            redis_command(base, {"SET", key, "edited"});
          },
          [=] {
            redis_command(base, {"DEL", key, prefix + "mark:0", prefix + "generation"});
          }};
}

Edits etcd_edits(const std::string& base) {
  const std::string prefix = "/" + test::unique_name() + "/";
  const std::string key = prefix + "node/0";
  return {test::with_params(base, "prefix=" + prefix + "&nodes=1&ttl=60000"), key,
          [=] { etcdctl(base, "del '" + key + "'"); },
          [=] { etcdctl(base, "put '" + key + "' edited"); },
          [=] { etcdctl(base, "del --prefix '" + prefix + "'"); }};
}

LeasedOptions by_hand() {
  LeasedOptions o;
  o.keeper.renew_in_background = false;  // the test decides when renewals happen
  return o;
}

void deleted_key_is_lost_and_a_newcomer_starts_above(const Edits& e) {
  ManualClock clock(kT * kMs);
  SharedLeasedSnowflakeGenerator a(open_lease_store(e.url, clock), kTwitter, clock, {}, by_hand());
  std::uint64_t last_a = 0;
  for (int i = 0; i < 100; ++i) last_a = a.next().value();
  e.remove();
  SharedLeasedSnowflakeGenerator b(open_lease_store(e.url, clock), kTwitter, clock, {}, by_hand());
  EXPECT_EQ(b.node(), a.node());
  EXPECT_GT(b.start_wait_ms(), 0) << "the newcomer did not wait out the holder's reserved mark";
  ASSERT_TRUE(b.keeper().renew()) << b.keeper().status().last_error;  // the wait took a TTL
  EXPECT_GT(b.next().value(), last_a);
  EXPECT_FALSE(a.keeper().renew());
  EXPECT_TRUE(a.keeper().status().lost) << a.keeper().status().last_error;
  EXPECT_THROW(a.next(), LeaseError);
  // Healing: while the newcomer holds the node, the old holder cannot take it again...
  EXPECT_FALSE(a.keeper().renew());
  EXPECT_TRUE(a.keeper().status().lost);
  EXPECT_NE(a.keeper().status().last_error.find("taking the lost node ID again"), std::string::npos)
      << a.keeper().status().last_error;
  EXPECT_THROW(a.next(), LeaseError);
  // ...and once it lets go, the old holder takes it again and issues above everything the
  // newcomer issued (its mark is above the old holder's reservation).
  std::uint64_t last_b = 0;
  for (int i = 0; i < 100; ++i) last_b = b.next().value();
  b.release();
  clock.advance_ms(2);  // past the newcomer's last tick, so the floor is not a step back
  ASSERT_TRUE(a.keeper().renew()) << a.keeper().status().last_error;
  EXPECT_FALSE(a.keeper().status().lost);
  EXPECT_EQ(a.keeper().status().reacquired, 1u);
  EXPECT_GT(a.next().value(), last_b);
}

void overwritten_key_is_lost(const Edits& e) {
  ManualClock clock(kT * kMs);
  SharedLeasedSnowflakeGenerator a(open_lease_store(e.url, clock), kTwitter, clock, {}, by_hand());
  a.next();
  e.overwrite();
  EXPECT_FALSE(a.keeper().renew())
      << "renewed although " << e.node_key << " no longer holds this holder's value";
  EXPECT_TRUE(a.keeper().status().lost);
  try {
    a.next();
    FAIL() << "issued after the lease was lost";
  } catch (const LeaseError& err) {
    EXPECT_EQ(err.reason(), LeaseFailure::lost) << err.what();
  }
}

// The whole store wiped (a FLUSHALL, a wiped etcd, as far as this prefix goes) under a
// running holder: the holder's next renewal says the store's state was lost, and a newcomer
// on the same node waits out one window (60 s here, on the manual clock) before it issues,
// since the holder of the lost state may issue up to its fence meanwhile.
void wiped_store_is_lost_and_a_newcomer_waits_a_window(const Edits& e) {
  ManualClock clock(kT * kMs);
  SharedLeasedSnowflakeGenerator a(open_lease_store(e.url, clock), kTwitter, clock, {}, by_hand());
  const std::int64_t a_fence = a.keeper().fence_unix_ms();
  std::uint64_t last_a = 0;
  for (int i = 0; i < 100; ++i) last_a = a.next().value();
  e.wipe();
  SharedLeasedSnowflakeGenerator b(open_lease_store(e.url, clock), kTwitter, clock, {}, by_hand());
  EXPECT_EQ(b.node(), a.node());
  EXPECT_NE(b.keeper().status().store_reset_unix_ms, kNoMark);
  EXPECT_GE(b.start_wait_ms(), 60'000) << "the newcomer did not wait out a window";
  ASSERT_TRUE(b.keeper().renew()) << b.keeper().status().last_error;
  const std::uint64_t first_b = b.next().value();
  EXPECT_GT(first_b, last_a);
  // Above every ID the old holder could still issue. The fence is one past the last ms the old
  // holder may issue in.
  EXPECT_GE(static_cast<std::int64_t>((first_b >> 22) + kTwitter.epoch_ms()), a_fence);
  EXPECT_FALSE(a.keeper().renew());
  EXPECT_TRUE(a.keeper().status().lost);
  EXPECT_NE(a.keeper().status().last_error.find("store state lost"), std::string::npos)
      << a.keeper().status().last_error;
  EXPECT_THROW(a.next(), LeaseError);
}

void fixed_node_twice_is_refused(const std::string& url) {
  auto a = open_lease_store(url);
  Lease la = a->acquire_node(kTwitter, 7);
  try {
    open_lease_store(url)->acquire_node(kTwitter, 7);
    FAIL() << "took node 7 twice";
  } catch (const LeaseError& err) {
    EXPECT_EQ(err.reason(), LeaseFailure::held) << err.what();
    EXPECT_NE(std::string(err.what()).find(la.holder), std::string::npos) << err.what();
  }
  a->release(la, 0);
  auto b = open_lease_store(url);
  Lease lb = b->acquire_node(kTwitter, 7);  // free again
  b->release(lb, 0);
}

TEST(StoreKeyFaults, RedisKeyDeletedByHandIsLostAndANewcomerStartsAbove) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_REDIS_URL");
  deleted_key_is_lost_and_a_newcomer_starts_above(redis_edits(base));
}

TEST(StoreKeyFaults, RedisKeyOverwrittenByHandIsLost) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_REDIS_URL");
  overwritten_key_is_lost(redis_edits(base));
}

TEST(StoreKeyFaults, EtcdKeyDeletedByHandIsLostAndANewcomerStartsAbove) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  deleted_key_is_lost_and_a_newcomer_starts_above(etcd_edits(base));
}

TEST(StoreKeyFaults, EtcdKeyOverwrittenByHandIsLost) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  overwritten_key_is_lost(etcd_edits(base));
}

TEST(StoreKeyFaults, RedisPrefixWipedIsStateLostAndANewcomerWaitsAWindow) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_REDIS_URL");
  wiped_store_is_lost_and_a_newcomer_waits_a_window(redis_edits(base));
}

TEST(StoreKeyFaults, EtcdPrefixWipedIsStateLostAndANewcomerWaitsAWindow) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  wiped_store_is_lost_and_a_newcomer_waits_a_window(etcd_edits(base));
}

TEST(StoreKeyFaults, RedisFixedNodeTwiceIsRefused) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_REDIS_URL");
  fixed_node_twice_is_refused(test::with_params(base, "prefix=" + test::unique_name() + ":"));
}

TEST(StoreKeyFaults, EtcdFixedNodeTwiceIsRefused) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  fixed_node_twice_is_refused(test::with_params(base, "prefix=/" + test::unique_name() + "/"));
}

}  // namespace
}  // namespace idforge::coord
