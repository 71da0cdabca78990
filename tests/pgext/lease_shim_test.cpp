// The extension's lease shim (idforge_pg_lease.h) on a real file: store in a temporary
// folder: what the background worker acquires, renews, publishes and releases.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "idforge_pg_lease.h"

namespace {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class PgLease : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("idforge_pg_lease_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    url_ = "file:" + dir_.string() + "?ttl=3000";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string url_;
};

TEST_F(PgLease, TwoHoldersGetDifferentNodesAndAFenceAhead) {
  char err[IDF_ERR_SIZE] = "";
  idf_lease_info a{}, b{};
  idf_lease* la = idf_lease_acquire(url_.c_str(), "twitter", -1, &a, err);
  ASSERT_NE(la, nullptr) << err;
  idf_lease* lb = idf_lease_acquire(url_.c_str(), "twitter", -1, &b, err);
  ASSERT_NE(lb, nullptr) << err;
  EXPECT_NE(a.node, b.node);
  EXPECT_EQ(a.ttl_ms, 3000);
  EXPECT_GT(a.fence_ms, now_ms());
  EXPECT_EQ(a.lost, 0);
  const std::int64_t first_fence = a.fence_ms;
  ::usleep(20'000);
  ASSERT_EQ(idf_lease_renew(la, &a, err), 0) << err;
  EXPECT_GT(a.fence_ms, first_fence);
  EXPECT_EQ(idf_lease_release(la, IDF_NO_UNIX_MS, err), 0) << err;
  EXPECT_EQ(idf_lease_release(lb, IDF_NO_UNIX_MS, err), 0) << err;
}

TEST_F(PgLease, ReleaseStoresTheLastTickAndTheNextHolderResumesAfterIt) {
  char err[IDF_ERR_SIZE] = "";
  idf_lease_info a{}, b{};
  idf_lease* la = idf_lease_acquire(url_.c_str(), "twitter", 7, &a, err);
  ASSERT_NE(la, nullptr) << err;
  EXPECT_EQ(a.node, 7u);
  EXPECT_EQ(a.high_water_ms, IDF_NO_UNIX_MS);
  const std::int64_t last = now_ms();
  ASSERT_EQ(idf_lease_release(la, last, err), 0) << err;
  idf_lease* lb = idf_lease_acquire(url_.c_str(), "twitter", 7, &b, err);
  ASSERT_NE(lb, nullptr) << err;
  // The exact last tick, not the reservation a whole TTL ahead.
  EXPECT_GE(b.high_water_ms, last);
  EXPECT_LT(b.high_water_ms, last + 1000);
  EXPECT_EQ(idf_lease_release(lb, IDF_NO_UNIX_MS, err), 0) << err;
}

TEST_F(PgLease, AFixedNodeHeldElsewhereIsRefusedNamingIt) {
  char err[IDF_ERR_SIZE] = "";
  idf_lease_info a{}, b{};
  idf_lease* la = idf_lease_acquire(url_.c_str(), "twitter", 3, &a, err);
  ASSERT_NE(la, nullptr) << err;
  EXPECT_EQ(idf_lease_acquire(url_.c_str(), "twitter", 3, &b, err), nullptr);
  EXPECT_NE(std::string(err).find("node 3"), std::string::npos) << err;
  EXPECT_EQ(idf_lease_release(la, IDF_NO_UNIX_MS, err), 0) << err;
}

TEST_F(PgLease, ALockFileDeletedByHandIsLostAndFenced) {
  char err[IDF_ERR_SIZE] = "";
  idf_lease_info a{};
  idf_lease* la = idf_lease_acquire(url_.c_str(), "twitter", -1, &a, err);
  ASSERT_NE(la, nullptr) << err;
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    if (e.path().filename().string().find(".lock") != std::string::npos)
      std::filesystem::remove(e.path());
  EXPECT_EQ(idf_lease_renew(la, &a, err), -1);
  EXPECT_EQ(a.lost, 1) << err;
  EXPECT_EQ(a.fence_ms, 0);
  EXPECT_NE(std::string(err), "");
  EXPECT_EQ(idf_lease_release(la, IDF_NO_UNIX_MS, err), 0) << err;
}

TEST(PgLeaseUrl, BadUrlsAreNamed) {
  char err[IDF_ERR_SIZE] = "";
  EXPECT_EQ(idf_lease_check("nosuch://x", "twitter", -1, err), -1);
  EXPECT_NE(std::string(err).find("nosuch"), std::string::npos) << err;
  EXPECT_EQ(idf_lease_check("file:/tmp/x?ttl=abc", "twitter", -1, err), -1);
  EXPECT_NE(std::string(err).find("abc"), std::string::npos) << err;
  EXPECT_EQ(idf_lease_check("file:/tmp/x?ttl=1&ttl=99999", "twitter", -1, err), -1);
  EXPECT_NE(std::string(err).find("given twice"), std::string::npos) << err;
  EXPECT_EQ(idf_lease_check("file:/tmp/x", "twitter", -1, err), 0) << err;
  EXPECT_EQ(idf_lease_check("redis://127.0.0.1:1", "twitter", 5, err), 0) << err;
}

// Settings that can never lease are refused before the server starts, not retried forever.
TEST(PgLeaseUrl, SettingsThatCanNeverLeaseAreRefused) {
  char err[IDF_ERR_SIZE] = "";
  EXPECT_EQ(idf_lease_check("static:1024?state=/tmp/x", "twitter", -1, err), -1);
  EXPECT_NE(std::string(err).find("1024"), std::string::npos) << err;
  EXPECT_EQ(idf_lease_check("file:/tmp/x?dc=32", "twitter", -1, err), -1);
  EXPECT_NE(std::string(err).find("32"), std::string::npos) << err;
  EXPECT_EQ(idf_lease_check("file:/tmp/x?dc=1", "twitter", 5, err), -1);  // dc 1: nodes 32..63
  EXPECT_NE(std::string(err).find("5"), std::string::npos) << err;
  EXPECT_EQ(idf_lease_check("file:/tmp/x?dc=1", "twitter", 33, err), 0) << err;
}

// A static: or ordinal: store locks nothing without state= or register=: two clusters given
// static:5 issued the same IDs. The extension refuses it naming both ways out.
TEST(PgLeaseUrl, AStaticStoreThatLocksNothingIsRefused) {
  char err[IDF_ERR_SIZE] = "";
  EXPECT_EQ(idf_lease_check("static:5", "twitter", -1, err), -1);
  EXPECT_NE(std::string(err).find("locks nothing"), std::string::npos) << err;
  EXPECT_NE(std::string(err).find("register=URL"), std::string::npos) << err;
  EXPECT_EQ(idf_lease_check("ordinal:db-3", "twitter", -1, err), -1);
  EXPECT_NE(std::string(err).find("locks nothing"), std::string::npos) << err;
  EXPECT_EQ(idf_lease_check("static:5?state=/tmp/x", "twitter", -1, err), 0) << err;
  EXPECT_EQ(idf_lease_check("static:5?register=redis://127.0.0.1:1", "twitter", 5, err), 0) << err;
}

}  // namespace
