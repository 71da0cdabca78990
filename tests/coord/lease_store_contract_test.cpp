// What every lease store promises (include/idforge/coord/lease.hpp), one test body per
// promise, run against each store: file, Redis, etcd and static (with a state folder).
// Redis and etcd are the shared servers of scripts/services.sh, each test under a key
// prefix of its own. What only one store does (a corrupt mark file, a frozen Redis, a dead
// etcd member, static's URL forms) stays in that store's own test file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <thread>

#include "idforge/coord/coord_errc.hpp"
#include "idforge/coord/lease.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

const Layout kTwitter = presets::twitter();

/// One store under test and what it promises beyond the common contract.
struct StoreKind {
  std::string name;
  /// The variable naming the shared server, or nullptr for a store without one.
  const char* service_var;
  /// The store's URL for a test: dir is the test's scratch folder, server the service URL,
  /// params extra query parameters ("ttl=5000&nodes=2", or "").
  std::function<std::string(const std::string& dir, const std::string& server,
                            const std::string& params)>
      url;
  bool hands_out_a_range;  ///< acquire() picks a free node ID (every store but static)
  bool expires;            ///< leases end unless renewed (Redis, etcd)
  /// What the space_full message says where the node IDs are, given the test's dir.
  std::function<std::string(const std::string& dir)> range_words;
  /// What renew() of a lease taken over after it expired says.
  std::string lost_words;
};

std::ostream& operator<<(std::ostream& os, const StoreKind& k) {
  return os << k.name;
}

std::string joined(const std::string& url, const std::string& params) {
  return params.empty() ? url : test::with_params(url, params);
}

const StoreKind kFile{"file",
                      nullptr,
                      [](const std::string& dir, const std::string&, const std::string& params) {
                        return joined("file:" + dir, params);
                      },
                      true,
                      false,
                      [](const std::string& dir) { return " under " + dir + " are locked"; },
                      ""};

const StoreKind kRedis{
    "redis",
    "IDFORGE_REDIS_URL",
    [](const std::string&, const std::string& server, const std::string& params) {
      return joined(test::with_params(server, "prefix=" + test::unique_name() + ":"), params);
    },
    true,
    true,
    [](const std::string&) { return std::string(" under prefix '"); },
    "another holder took node 0"};

const StoreKind kEtcd{
    "etcd",
    "IDFORGE_ETCD_URL",
    [](const std::string&, const std::string& server, const std::string& params) {
      return joined(test::with_params(server, "prefix=/" + test::unique_name() + "/"), params);
    },
    true,
    true,
    [](const std::string&) { return std::string(" under prefix '"); },
    "has expired"};

// A fixed node ID whose mark lives in a state folder: ttl= and nodes= do not apply.
const StoreKind kStatic{"static",
                        nullptr,
                        [](const std::string& dir, const std::string&, const std::string&) {
                          return "static:5?state=" + dir;
                        },
                        false,
                        false,
                        nullptr,
                        ""};

class LeaseStoreTest : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    if (const char* var = GetParam().service_var) {
      IDFORGE_NEED_SERVICE(server, var);
      server_ = server;
    }
  }
  /// A URL for this test; every call with the same params names the same store.
  std::string url(const std::string& params = "") {
    if (!urls_.contains(params)) urls_[params] = GetParam().url(dir_.path(), server_, params);
    return urls_[params];
  }
  /// The list() row of node, if the store lists it.
  static std::optional<HolderInfo> row_of(LeaseStore& store, std::uint64_t node) {
    for (const HolderInfo& row : store.list(kTwitter))
      if (row.node == node) return row;
    return std::nullopt;
  }

  test::ScratchDir dir_;
  std::string server_;
  std::map<std::string, std::string> urls_;
};

// --- every store ---------------------------------------------------------------------------

class LeaseStoreContract : public LeaseStoreTest {};

TEST_P(LeaseStoreContract, RenewRaisesTheListedMarkAndNeverLowersIt) {
  auto store = open_lease_store(url("ttl=5000"));
  Lease l = store->acquire(kTwitter);
  EXPECT_EQ(l.high_water_unix_ms, kNoMark);  // a fresh store: no earlier holder
  store->renew(l, 1'800'000'000'000);
  store->renew(l, 1'700'000'000'000);  // a renewal never lowers the mark
  const auto row = row_of(*store, l.node);
  ASSERT_TRUE(row) << "node " << l.node << " not listed";
  EXPECT_EQ(row->high_water_unix_ms, 1'800'000'000'000);
  if (GetParam().hands_out_a_range) {
    EXPECT_EQ(row->holder, l.holder);
    EXPECT_EQ(row->pid, getpid());
    EXPECT_EQ(row->since_unix_ms, l.since_unix_ms);
  }
  if (GetParam().expires) EXPECT_GT(row->ttl_left_ms, 0);
  store->release(l, 0);
}

TEST_P(LeaseStoreContract, ReleaseStoresTheExactMarkForTheNextHolder) {
  Lease first;
  {
    auto store = open_lease_store(url());
    first = store->acquire(kTwitter);
    store->renew(first, 1'800'000'000'500);
    store->release(first, 1'800'000'000'450);  // the exact last issued time, even if lower
  }
  auto store = open_lease_store(url());  // as a restarted process would
  Lease again = store->acquire(kTwitter);
  EXPECT_EQ(again.node, first.node);
  EXPECT_EQ(again.high_water_unix_ms, 1'800'000'000'450);
  const auto row = row_of(*store, again.node);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->high_water_unix_ms, 1'800'000'000'450);
  store->release(again, 0);
}

INSTANTIATE_TEST_SUITE_P(Stores, LeaseStoreContract,
                         ::testing::Values(kFile, kRedis, kEtcd, kStatic),
                         [](const auto& info) { return info.param.name; });

// --- stores that hand out node IDs from a range --------------------------------------------

class RangeLeaseStoreContract : public LeaseStoreTest {};

TEST_P(RangeLeaseStoreContract, HoldersGetDistinctNodesAndReleaseFreesOne) {
  // Two stores in one process are two holders: the store, not the process, holds a node.
  auto a = open_lease_store(url("ttl=5000")), b = open_lease_store(url("ttl=5000"));
  Lease la = a->acquire(kTwitter);
  Lease lb = b->acquire(kTwitter);
  EXPECT_EQ(la.node, 0u);
  EXPECT_EQ(lb.node, 1u);
  if (GetParam().expires)
    EXPECT_LE(la.deadline_unix_ms, la.since_unix_ms + 5000);
  else
    EXPECT_EQ(la.deadline_unix_ms, kNoDeadline);  // held until the process ends
  EXPECT_EQ(b->list(kTwitter).size(), 2u);
  a->release(la, 0);
  EXPECT_EQ(b->list(kTwitter).size(), 1u);
  Lease again = b->acquire(kTwitter);
  EXPECT_EQ(again.node, 0u);  // freed by the release
  b->release(again, 0);
  b->release(lb, 0);
}

TEST_P(RangeLeaseStoreContract, AFullRangeRefusesNamingTheRange) {
  const std::string full = url("nodes=2");
  auto a = open_lease_store(full), b = open_lease_store(full), c = open_lease_store(full);
  Lease la = a->acquire(kTwitter), lb = b->acquire(kTwitter);
  try {
    c->acquire(kTwitter);
    ADD_FAILURE() << "a third holder got a node ID of two";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::space_full);
    EXPECT_EQ(e.code(), coord_errc::lease_error);
    EXPECT_EQ(e.store(), full);
    const std::string words = "all 2 node IDs 0..1" + GetParam().range_words(dir_.path());
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos)
        << e.what() << "\nlacks: " << words;
  }
  a->release(la, 0);
  b->release(lb, 0);
}

INSTANTIATE_TEST_SUITE_P(Stores, RangeLeaseStoreContract, ::testing::Values(kFile, kRedis, kEtcd),
                         [](const auto& info) { return info.param.name; });

// --- stores whose leases expire -----------------------------------------------------------

class ExpiringLeaseStoreContract : public LeaseStoreTest {};

// The lease runs out on the server (real time: the TTL is the server's), another holder
// takes the node ID above the mark the first one stored, and the first one learns it lost
// the node at its next renewal without disturbing the new holder.
TEST_P(ExpiringLeaseStoreContract, AnExpiredLeaseIsTakenOverAboveItsMarkAndTheOldHolderIsLost) {
  // etcd raises a TTL below its minimum (1 s); Redis takes 200 ms.
  const std::string one = url(GetParam().name == "etcd" ? "ttl=1000&nodes=1" : "ttl=200&nodes=1");
  auto a = open_lease_store(one), b = open_lease_store(one);
  Lease la = a->acquire(kTwitter);
  a->renew(la, 1'800'000'000'000);
  // Whatever TTL the server granted, wait it out (bounded by it).
  std::this_thread::sleep_for(
      std::chrono::milliseconds(la.deadline_unix_ms - la.since_unix_ms + 1500));
  Lease lb = b->acquire(kTwitter);  // expired: b gets the same node ID
  EXPECT_EQ(lb.node, la.node);
  EXPECT_GE(lb.high_water_unix_ms, 1'800'000'000'000);  // and starts above a's mark
  EXPECT_NE(lb.holder, la.holder);
  try {
    a->renew(la, 1);
    ADD_FAILURE() << "renewed a lease another holder has";
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::lost);
    EXPECT_NE(std::string(e.what()).find(GetParam().lost_words), std::string::npos) << e.what();
  }
  a->release(la, 1);  // a lost lease is left alone: b keeps its node ID
  EXPECT_EQ(b->list(kTwitter).size(), 1u);
  b->renew(lb, 2);
  b->release(lb, 0);
}

INSTANTIATE_TEST_SUITE_P(Stores, ExpiringLeaseStoreContract, ::testing::Values(kRedis, kEtcd),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace idforge::coord
