// Against the shared etcd (IDFORGE_ETCD_URL) with a key prefix of the test's own.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "expect_errc.hpp"
#include "idforge/coord/coord_errc.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/snowflake.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

using namespace std::chrono_literals;
const Layout kTwitter = presets::twitter();

std::string prefixed(const std::string& url, const std::string& more = "") {
  return test::with_params(
      url, "prefix=/" + test::unique_name() + "/" + (more.empty() ? "" : "&" + more));
}

TEST(EtcdStore, FailsOverPastADeadMember) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  const int dead = test::free_port();  // nothing listens there
  const std::string prefix = "prefix=/" + test::unique_name() + "/";
  auto store = open_lease_store(test::with_params(
      "etcd://127.0.0.1:" + std::to_string(dead) + "," + base.substr(7), prefix + "&timeout=500"));
  Lease l = store->acquire(kTwitter);
  EXPECT_EQ(l.node, 0u);
  store->renew(l, 1'800'000'000'000);
  // What went through the dead member's neighbour is in etcd: a store that talks only to
  // the live member sees the holder and the mark, then the release.
  auto live = open_lease_store(test::with_params(base, prefix));
  const auto rows = live->list(kTwitter);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].holder, l.holder);
  EXPECT_EQ(rows[0].high_water_unix_ms, 1'800'000'000'000);
  store->release(l, 1'800'000'000'005);
  EXPECT_TRUE(live->list(kTwitter).empty());
  Lease again = live->acquire(kTwitter);
  EXPECT_EQ(again.node, 0u);
  EXPECT_EQ(again.high_water_unix_ms, 1'800'000'000'005);
  live->release(again, 0);
}

TEST(EtcdStore, NoMemberAnsweringIsUnreachableNamingEachMember) {
  const int p1 = test::free_port(), p2 = test::free_port();
  const std::string url = "etcd://127.0.0.1:" + std::to_string(p1) +
                          ",127.0.0.1:" + std::to_string(p2) + "?timeout=300";
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_ERRC_AS(LeaseError, LeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter),
                 coord_errc::store_unreachable,
                 "127.0.0.1:" + std::to_string(p1) + ": Couldn't connect",
                 "127.0.0.1:" + std::to_string(p2));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST(EtcdStore, LeasedGeneratorIssuesAboveThePreviousHoldersMark) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_ETCD_URL");
  const std::string url = prefixed(base, "nodes=1");
  std::uint64_t last = 0;
  {
    LeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter);
    for (int i = 0; i < 100; ++i) last = gen.next().value();
  }
  LeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter);
  EXPECT_GE(gen.keeper().acquired().high_water_unix_ms,
            decompose(kTwitter, Snowflake(last)).unix_ms);
  EXPECT_GT(gen.next().value(), last);
}

}  // namespace
}  // namespace idforge::coord
