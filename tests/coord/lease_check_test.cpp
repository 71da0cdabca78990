// LeaseStore::check: a configuration that can never lease a node ID is refused up front,
// naming the value and the rule, without contacting the store (a server checks it before it
// starts rather than retrying forever); one that merely cannot reach its store passes.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "idforge/coord/lease.hpp"
#include "idforge/snowflake.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

const Layout kTwitter = presets::twitter();  // 5 datacenter bits, 5 worker bits

// check() throws LeaseError(rejected) whose message holds every part.
::testing::AssertionResult refused(const std::string& url, std::optional<std::uint64_t> node,
                                   std::initializer_list<std::string> parts) {
  try {
    open_lease_store(url)->check(kTwitter, node);
  } catch (const LeaseError& e) {
    if (e.reason() != LeaseFailure::rejected)
      return ::testing::AssertionFailure()
             << "reason " << to_string(e.reason()) << ": " << e.what();
    for (const auto& p : parts)
      if (std::string(e.what()).find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "lacks '" << p << "': " << e.what();
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << url << " passed";
}

TEST(LeaseCheck, ADatacenterTheLayoutCannotHoldIsRefused) {
  test::ScratchDir dir;
  EXPECT_TRUE(refused("file:" + dir.path() + "?dc=32", std::nullopt, {"32"}));
  EXPECT_TRUE(refused("redis://127.0.0.1:1?dc=32", std::nullopt, {"32"}));
  EXPECT_TRUE(refused("etcd://127.0.0.1:1?dc=40", std::nullopt, {"40"}));
  EXPECT_NO_THROW(open_lease_store("file:" + dir.path() + "?dc=31")->check(kTwitter, {}));
}

TEST(LeaseCheck, AFixedNodeOutsideTheStoresRangeIsRefused) {
  test::ScratchDir dir;
  // dc=1 hands out nodes 32..63: node 5 is not among them.
  EXPECT_TRUE(refused("file:" + dir.path() + "?dc=1", 5, {"5"}));
  EXPECT_TRUE(refused("file:" + dir.path(), 1024, {"1024"}));
  EXPECT_NO_THROW(open_lease_store("file:" + dir.path() + "?dc=1")->check(kTwitter, 33));
}

TEST(LeaseCheck, AStaticNodeMustFitTheLayoutAndMatchAFixedOne) {
  test::ScratchDir dir;
  EXPECT_TRUE(refused("static:1024", std::nullopt, {"1024"}));
  EXPECT_TRUE(refused("static:32/0", std::nullopt, {"32"}));
  EXPECT_TRUE(refused("static:5", 6, {"node 6 asked for", "configured for node 5"}));
  EXPECT_NO_THROW(open_lease_store("static:5")->check(kTwitter, 5));
  // With state=, the node it names is checked against that file store too.
  EXPECT_NO_THROW(open_lease_store("static:5?state=" + dir.path())->check(kTwitter, {}));
}

// A request timeout that leaves no time within a renewal period to try another member is
// refused at once, naming both values and the bound (a 2 s timeout under a 3 s TTL lost leases
// to partitions of 2.1 s); without a timeout it follows the TTL.
TEST(LeaseCheck, ATimeoutAboveAThirdOfTheTtlIsRefused) {
  for (const std::string url :
       {"etcd://127.0.0.1:1?ttl=3000&timeout=2000", "redis://127.0.0.1:1?ttl=3000&timeout=1001"}) {
    try {
      open_lease_store(url);
      ADD_FAILURE() << url << " was taken";
    } catch (const LeaseError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("more than a third of ttl=3000 ms"), std::string::npos) << m;
      EXPECT_NE(m.find("at most 1000 ms"), std::string::npos) << m;
    }
  }
  EXPECT_NO_THROW(open_lease_store("etcd://127.0.0.1:1?ttl=3000&timeout=1000"));
  EXPECT_NO_THROW(open_lease_store("etcd://127.0.0.1:1?ttl=3000"));  // timeout 375 ms
  EXPECT_NO_THROW(open_lease_store("redis://127.0.0.1:1?ttl=300"));  // timeout 37 ms
}

// Without a timeout in the URL each request waits an eighth of the TTL, at most 1 s: the
// error of a store that cannot be reached says which (nothing listens on port 1).
TEST(LeaseCheck, TheDefaultTimeoutIsAnEighthOfTheTtlAtMostOneSecond) {
  const auto said = [](const std::string& url) {
    try {
      open_lease_store(url)->acquire(kTwitter);
    } catch (const LeaseError& e) {
      return std::string(e.what());
    }
    return std::string("(acquired)");
  };
  std::string m = said("etcd://127.0.0.1:1?ttl=3000");
  EXPECT_NE(m.find("within 375 ms each"), std::string::npos) << m;
  m = said("etcd://127.0.0.1:1?ttl=60000");
  EXPECT_NE(m.find("within 1000 ms each"), std::string::npos) << m;
  m = said("redis://127.0.0.1:1?ttl=3000");  // a connect waits 250 ms at most
  EXPECT_NE(m.find("(connect timeout 250 ms)"), std::string::npos) << m;
  m = said("redis://127.0.0.1:1?ttl=800");
  EXPECT_NE(m.find("(connect timeout 100 ms)"), std::string::npos) << m;
}

TEST(LeaseCheck, AnUnreachableStoreIsNotContacted) {
  // Nothing listens on port 1: a check that tried would fail (or wait out its timeout).
  EXPECT_NO_THROW(open_lease_store("redis://127.0.0.1:1?timeout=100")->check(kTwitter, {}));
  EXPECT_NO_THROW(open_lease_store("etcd://127.0.0.1:1?timeout=100")->check(kTwitter, 7));
}

}  // namespace
}  // namespace idforge::coord
