// The C ABI's caller-renewed lease (idforge_node_lease_*) on a real file: store in a temporary
// folder: what PostgreSQL's background worker acquires, renews, publishes and releases.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "idforge/idforge.h"

namespace {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class CNodeLease : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("idforge_c_lease_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    url_ = "file:" + dir_.string() + "?ttl=3000";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string url_;
};

TEST_F(CNodeLease, TwoHoldersGetDifferentNodesAndAFenceAhead) {
  idforge_node_lease_info a{}, b{};
  idforge_node_lease* la = nullptr;
  ASSERT_EQ(idforge_node_lease_acquire(url_.c_str(), "twitter", -1, &la, &a), IDFORGE_OK)
      << idforge_last_error();
  idforge_node_lease* lb = nullptr;
  ASSERT_EQ(idforge_node_lease_acquire(url_.c_str(), "twitter", -1, &lb, &b), IDFORGE_OK)
      << idforge_last_error();
  EXPECT_NE(a.node, b.node);
  EXPECT_EQ(a.ttl_ms, 3000);
  EXPECT_GT(a.fence_ms, now_ms());
  EXPECT_EQ(a.lost, 0);
  const std::int64_t first_fence = a.fence_ms;
  ::usleep(20'000);
  ASSERT_EQ(idforge_node_lease_renew(la, &a), IDFORGE_OK) << idforge_last_error();
  EXPECT_GT(a.fence_ms, first_fence);
  EXPECT_EQ(idforge_node_lease_release(la, IDFORGE_NO_UNIX_MS), IDFORGE_OK) << idforge_last_error();
  EXPECT_EQ(idforge_node_lease_release(lb, IDFORGE_NO_UNIX_MS), IDFORGE_OK) << idforge_last_error();
}

TEST_F(CNodeLease, ReleaseStoresTheLastTickAndTheNextHolderResumesAfterIt) {
  idforge_node_lease_info a{}, b{};
  idforge_node_lease* la = nullptr;
  ASSERT_EQ(idforge_node_lease_acquire(url_.c_str(), "twitter", 7, &la, &a), IDFORGE_OK)
      << idforge_last_error();
  EXPECT_EQ(a.node, 7u);
  EXPECT_EQ(a.high_water_ms, IDFORGE_NO_UNIX_MS);
  const std::int64_t last = now_ms();
  ASSERT_EQ(idforge_node_lease_release(la, last), IDFORGE_OK) << idforge_last_error();
  idforge_node_lease* lb = nullptr;
  ASSERT_EQ(idforge_node_lease_acquire(url_.c_str(), "twitter", 7, &lb, &b), IDFORGE_OK)
      << idforge_last_error();
  // The exact last tick, not the reservation a whole TTL ahead.
  EXPECT_GE(b.high_water_ms, last);
  EXPECT_LT(b.high_water_ms, last + 1000);
  EXPECT_EQ(idforge_node_lease_release(lb, IDFORGE_NO_UNIX_MS), IDFORGE_OK) << idforge_last_error();
}

TEST_F(CNodeLease, AFixedNodeHeldElsewhereIsRefusedNamingIt) {
  idforge_node_lease_info a{}, b{};
  idforge_node_lease* la = nullptr;
  ASSERT_EQ(idforge_node_lease_acquire(url_.c_str(), "twitter", 3, &la, &a), IDFORGE_OK)
      << idforge_last_error();
  idforge_node_lease* lb = nullptr;
  EXPECT_EQ(idforge_node_lease_acquire(url_.c_str(), "twitter", 3, &lb, &b), IDFORGE_E_LEASE_ERROR);
  EXPECT_EQ(lb, nullptr);
  EXPECT_NE(std::string(idforge_last_error()).find("node 3"), std::string::npos)
      << idforge_last_error();
  EXPECT_EQ(idforge_node_lease_release(la, IDFORGE_NO_UNIX_MS), IDFORGE_OK) << idforge_last_error();
}

TEST_F(CNodeLease, ALockFileDeletedByHandIsLostAndFenced) {
  idforge_node_lease_info a{};
  idforge_node_lease* la = nullptr;
  ASSERT_EQ(idforge_node_lease_acquire(url_.c_str(), "twitter", -1, &la, &a), IDFORGE_OK)
      << idforge_last_error();
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    if (e.path().filename().string().find(".lock") != std::string::npos)
      std::filesystem::remove(e.path());
  EXPECT_EQ(idforge_node_lease_renew(la, &a), IDFORGE_E_LEASE_ERROR);
  EXPECT_EQ(a.lost, 1) << idforge_last_error();
  EXPECT_EQ(a.fence_ms, 0);
  EXPECT_NE(std::string(idforge_last_error()), "");
  EXPECT_EQ(idforge_node_lease_release(la, IDFORGE_NO_UNIX_MS), IDFORGE_OK) << idforge_last_error();
}

// A caller-renewed lease counts in the process's node registry, as a Snowflake handle does: a
// handle, or a second lease from another folder, on its node in the same process is refused
// (both were accepted, two issuers on node 3).
TEST_F(CNodeLease, ALeaseHoldsItsNodeInTheProcessRegistry) {
  idforge_node_lease_info a{}, b{};
  idforge_node_lease* la = nullptr;
  ASSERT_EQ(idforge_node_lease_acquire(url_.c_str(), "twitter", 93, &la, &a), IDFORGE_OK)
      << idforge_last_error();
  idforge_snowflake* h = nullptr;
  EXPECT_EQ(idforge_snowflake_new("twitter", 93, nullptr, &h), IDFORGE_E_LEASE_ERROR);
  EXPECT_NE(std::string(idforge_last_error()).find("held by a live generator of this process"),
            std::string::npos)
      << idforge_last_error();
  const std::string other = "file:" + (dir_ / "other").string();
  idforge_node_lease* lb = nullptr;
  EXPECT_EQ(idforge_node_lease_acquire(other.c_str(), "twitter", 93, &lb, &b),
            IDFORGE_E_LEASE_ERROR);
  EXPECT_EQ(lb, nullptr);
  const std::int64_t last = now_ms();
  ASSERT_EQ(idforge_node_lease_release(la, last), IDFORGE_OK) << idforge_last_error();
  // Released, the node is free in the process, and continues above the lease's last tick.
  ASSERT_EQ(idforge_node_lease_acquire(other.c_str(), "twitter", 93, &lb, &b), IDFORGE_OK)
      << idforge_last_error();
  EXPECT_EQ(idforge_node_lease_release(lb, IDFORGE_NO_UNIX_MS), IDFORGE_OK);
}

TEST(CNodeLeaseCheck, BadUrlsAreNamed) {
  EXPECT_NE(idforge_node_lease_check("nosuch://x", "twitter", -1), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("nosuch"), std::string::npos)
      << idforge_last_error();
  EXPECT_NE(idforge_node_lease_check("file:/tmp/x?ttl=abc", "twitter", -1), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("abc"), std::string::npos)
      << idforge_last_error();
  EXPECT_NE(idforge_node_lease_check("file:/tmp/x?ttl=1&ttl=99999", "twitter", -1), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("given twice"), std::string::npos)
      << idforge_last_error();
  EXPECT_EQ(idforge_node_lease_check("file:/tmp/x", "twitter", -1), IDFORGE_OK)
      << idforge_last_error();
  EXPECT_EQ(idforge_node_lease_check("redis://127.0.0.1:1", "twitter", 5), IDFORGE_OK)
      << idforge_last_error();
}

// Settings that can never lease are refused before the server starts, not retried forever.
TEST(CNodeLeaseCheck, SettingsThatCanNeverLeaseAreRefused) {
  EXPECT_NE(idforge_node_lease_check("static:1024?state=/tmp/x", "twitter", -1), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("1024"), std::string::npos)
      << idforge_last_error();
  EXPECT_NE(idforge_node_lease_check("file:/tmp/x?dc=32", "twitter", -1), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("32"), std::string::npos)
      << idforge_last_error();
  EXPECT_NE(idforge_node_lease_check("file:/tmp/x?dc=1", "twitter", 5),
            IDFORGE_OK);  // dc 1: nodes 32..63
  EXPECT_NE(std::string(idforge_last_error()).find("5"), std::string::npos) << idforge_last_error();
  EXPECT_EQ(idforge_node_lease_check("file:/tmp/x?dc=1", "twitter", 33), IDFORGE_OK)
      << idforge_last_error();
}

// A static: or ordinal: store locks nothing without state= or register=: two clusters given
// static:5 issued the same IDs. The extension refuses it naming both ways out.
TEST(CNodeLeaseCheck, AStaticStoreThatLocksNothingIsRefused) {
  EXPECT_NE(idforge_node_lease_check("static:5", "twitter", -1), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("locks nothing"), std::string::npos)
      << idforge_last_error();
  EXPECT_NE(std::string(idforge_last_error()).find("register=URL"), std::string::npos)
      << idforge_last_error();
  EXPECT_NE(idforge_node_lease_check("ordinal:db-3", "twitter", -1), IDFORGE_OK);
  EXPECT_NE(std::string(idforge_last_error()).find("locks nothing"), std::string::npos)
      << idforge_last_error();
  EXPECT_EQ(idforge_node_lease_check("static:5?state=/tmp/x", "twitter", -1), IDFORGE_OK)
      << idforge_last_error();
  EXPECT_EQ(idforge_node_lease_check("static:5?register=redis://127.0.0.1:1", "twitter", 5),
            IDFORGE_OK)
      << idforge_last_error();
}

}  // namespace
