// With a leased node ID, /readyz follows the lease: 503 while the lease store is gone (the
// renewals fail and the generator's fence passes), 200 again once it is back.
#include <gtest/gtest.h>

#ifdef IDFORGE_SERVER_HAVE_LEASE
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "idforge/coord/lease.hpp"
#include "idforge/server/lease_binding.hpp"
#include "live_server.hpp"

namespace idforge::test {
namespace {

// Polls path until it answers want, for at most limit; returns the last status.
int wait_for_status(HttpClient& c, const char* path, int want, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < end) {
    auto r = c.Get(path);
    status = r ? r->status : 0;
    if (status == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the keeper renews on real time
  }
  return status;
}

TEST(Lease, ReadyzFollowsTheFileLeaseStoreAwayAndBack) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "idforge_serve_leases";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // A 300 ms TTL: renewals every 100 ms, the fence 50 ms before the deadline.
  auto gen = std::make_unique<coord::SharedLeasedSnowflakeGenerator>(
      coord::open_lease_store("file:" + dir.string() + "?ttl=300"), presets::twitter());
  std::unique_ptr<server::LeaseBinding> binding;
  {
    LiveServer s(
        {},
        [&](server::Server& srv) { binding = std::make_unique<server::LeaseBinding>(srv, *gen); },
        /*ready=*/false, /*fixed=*/false);
    auto c = s.client();
    EXPECT_EQ(wait_for_status(c, "/readyz", 200, std::chrono::seconds(3)), 200);
    auto id = c.Get("/v1/ids/snowflake");
    ASSERT_TRUE(id);
    EXPECT_EQ(id->status, 200);
    EXPECT_EQ(
        nlohmann::json::parse(
            c.Get("/v1/inspect/" + nlohmann::json::parse(id->body)["id_str"].get<std::string>())
                ->body)["node"],
        gen->node());

    // The store goes away: marks cannot be written, renewals fail, the fence passes.
    const auto aside = dir.string() + ".aside";
    std::filesystem::remove_all(aside);
    std::filesystem::rename(dir, aside);
    EXPECT_EQ(wait_for_status(c, "/readyz", 503, std::chrono::seconds(5)), 503);
    auto refused = c.Get("/v1/ids/snowflake");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 503);
    auto metrics = c.Get("/metrics");
    ASSERT_TRUE(metrics);
    EXPECT_EQ(metrics->body.find("idforge_lease_failures_total 0\n"), std::string::npos);
    EXPECT_NE(metrics->body.find("idforge_lease_renewals_total"), std::string::npos);

    // ... and comes back.
    std::filesystem::rename(aside, dir);
    EXPECT_EQ(wait_for_status(c, "/readyz", 200, std::chrono::seconds(5)), 200);
    auto again = c.Get("/v1/ids/snowflake");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 200);
  }
  binding.reset();
  gen.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace idforge::test
#endif
