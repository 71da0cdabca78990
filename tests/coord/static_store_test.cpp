#include <gtest/gtest.h>

#include "idforge/coord/lease.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

const Layout kTwitter = presets::twitter();

TEST(StaticStore, NumberIsTheNode) {
  auto store = open_lease_store("static:42");
  const Lease l = store->acquire(kTwitter);
  EXPECT_EQ(l.node, 42u);
  EXPECT_EQ(l.datacenter, 1u);
  EXPECT_EQ(l.worker, 10u);
  EXPECT_EQ(l.deadline_unix_ms, kNoDeadline);
  EXPECT_EQ(l.high_water_unix_ms, kNoMark);
}

TEST(StaticStore, DatacenterSlashWorker) {
  EXPECT_EQ(open_lease_store("static:3/17")->acquire(kTwitter).node, (3u << 5) | 17u);
}

TEST(StaticStore, NodeOutsideTheLayoutIsRejectedNamingTheRange) {
  try {
    open_lease_store("static:1024")->acquire(kTwitter);
    FAIL();
  } catch (const LeaseError& e) {
    EXPECT_EQ(e.reason(), LeaseFailure::rejected);
    EXPECT_NE(std::string(e.what()).find("1024"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("static:1024"), std::string::npos) << e.what();
  }
  EXPECT_THROW(open_lease_store("static:x"), ParseError);
}

TEST(OrdinalStore, PodOrdinalPlusOffsetInDatacenter) {
  EXPECT_EQ(open_lease_store("ordinal:order-api-7")->acquire(kTwitter).node, 7u);
  const Lease l = open_lease_store("ordinal:order-api-7?dc=2&offset=10")->acquire(kTwitter);
  EXPECT_EQ(l.datacenter, 2u);
  EXPECT_EQ(l.worker, 17u);
  EXPECT_EQ(l.node, (2u << 5) | 17u);
}

TEST(OrdinalStore, OrdinalBeyondTheWorkerBitsIsRejected) {
  // Twitter has 5 worker bits: pod 32 has no worker number in a datacenter.
  EXPECT_THROW(open_lease_store("ordinal:order-api-32?dc=0")->acquire(kTwitter), LeaseError);
  // A layout without datacenter bits cannot take dc=.
  EXPECT_THROW(open_lease_store("ordinal:order-api-3?dc=1")->acquire(presets::sonyflake()),
               LeaseError);
  EXPECT_THROW(open_lease_store("ordinal:order-api"), ParseError);
}

}  // namespace
}  // namespace idforge::coord
