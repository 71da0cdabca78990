#include "idforge/coord/lease_url.hpp"

#include <gtest/gtest.h>

#include "expect_errc.hpp"
#include "idforge/coord/coord_errc.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/error.hpp"

namespace idforge::coord {
namespace {

TEST(LeaseUrl, SplitsSchemeBodyAndQuery) {
  const LeaseUrl u = parse_lease_url("file:/var/lib/idforge/leases?ttl=2000&nodes=16");
  EXPECT_EQ(u.scheme, "file");
  EXPECT_EQ(u.body, "/var/lib/idforge/leases");
  EXPECT_EQ(u.param("ttl"), "2000");
  EXPECT_EQ(u.int_param("nodes", 0, 1, 100), 16);
  EXPECT_EQ(u.int_param("dc", 7, 0, 31), 7);
  EXPECT_FALSE(u.param("dc"));
}

TEST(LeaseUrl, NetworkedSchemesListEndpoints) {
  const LeaseUrl e =
      parse_lease_url("etcd://127.0.0.1:22379,127.0.0.1:22479,localhost:22579?prefix=/x/");
  ASSERT_EQ(e.endpoints.size(), 3u);
  EXPECT_EQ(e.endpoints[1], (Endpoint{"127.0.0.1", 22479}));
  EXPECT_EQ(e.endpoints[2], (Endpoint{"localhost", 22579}));
  EXPECT_EQ(e.param("prefix"), "/x/");
  const LeaseUrl r = parse_lease_url("redis://127.0.0.1:16379");
  ASSERT_EQ(r.endpoints.size(), 1u);
  EXPECT_EQ(r.endpoints[0].port, 16379);
}

TEST(LeaseUrl, StaticAndOrdinalBodies) {
  EXPECT_EQ(parse_lease_url("static:5").body, "5");
  EXPECT_EQ(parse_lease_url("static:3/17").body, "3/17");
  EXPECT_EQ(parse_lease_url("ordinal:order-api-7?dc=2&offset=10").body, "order-api-7");
  EXPECT_EQ(parse_lease_url("ordinal:").body, "");  // this host's name
}

struct BadUrl {
  const char* url;
  std::size_t position;
  const char* reason;
};

TEST(LeaseUrl, RejectsMalformedUrlsWithPosition) {
  const BadUrl cases[] = {
      {"", 0, "expected SCHEME"},
      {"zookeeper://h:1", 0, "unknown scheme 'zookeeper'"},
      {"redis:127.0.0.1:16379", 6, "expected '//'"},
      {"redis://127.0.0.1", 8, "a port is required"},
      {"redis://127.0.0.1:0", 18, "1..65535"},
      {"redis://127.0.0.1:99999", 18, "1..65535"},
      {"redis://a:1,b:2", 8, "redis takes one"},
      {"etcd://a:1,,b:2", 11, "empty host:port"},
      {"file:", 5, "nothing after the scheme"},
      {"file:/x?ttl", 8, "key=value"},
      // The same key twice, in either order: neither value may win unseen.
      {"redis://h:1?ttl=1&ttl=99999", 18, "key 'ttl' is given twice"},
      {"redis://h:1?ttl=99999&ttl=1", 22, "key 'ttl' is given twice"},
      {"etcd://h:1?prefix=a&timeout=5&prefix=b", 30, "key 'prefix' is given twice"},
  };
  for (const auto& c : cases) {
    try {
      parse_lease_url(c.url);
      ADD_FAILURE() << c.url << " parsed";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.position(), c.position) << c.url << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos) << e.what();
    }
  }
}

TEST(LeaseUrl, IntParamNamesKeyValueAndRange) {
  const LeaseUrl u = parse_lease_url("file:/x?ttl=fast");
  EXPECT_ERRC(u.int_param("ttl", 0, 100, 1000), errc::invalid_argument,
              "ttl=fast must be an integer in 100..1000");
}

TEST(LeaseUrl, UnknownParameterIsRejectedByTheStore) {
  EXPECT_ERRC(open_lease_store("file:/tmp/x?tll=5"), errc::invalid_argument,
              "unknown parameter 'tll'");
}

TEST(OrdinalHostname, TakesTheNumberAfterTheLastDash) {
  EXPECT_EQ(parse_ordinal_hostname("order-api-7"), 7u);
  EXPECT_EQ(parse_ordinal_hostname("web-0"), 0u);
  EXPECT_EQ(parse_ordinal_hostname("order-api-12.order-api.shop.svc.cluster.local"), 12u);
}

TEST(OrdinalHostname, RejectsNamesWithoutAnOrdinal) {
  for (const char* bad : {"order-api", "orderapi7", "order-api-", "order-api-7x", "-7"}) {
    EXPECT_THROW(parse_ordinal_hostname(bad), ParseError) << bad;
  }
  try {
    parse_ordinal_hostname("order-api-x1");
  } catch (const ParseError& e) {
    EXPECT_EQ(e.position(), 10u);
  }
}

// Two different host names must never name the same worker.
TEST(OrdinalHostname, RejectsFormsThatWouldAliasAnotherPod) {
  for (const char* bad : {"app--1", "app-07", "app-00", "app-18446744073709551616"})
    EXPECT_THROW(parse_ordinal_hostname(bad), ParseError) << bad;
  EXPECT_EQ(parse_ordinal_hostname("app-18446744073709551615"), 18446744073709551615u);
  EXPECT_EQ(parse_ordinal_hostname("app-10"), 10u);
}

TEST(OrdinalStore, OrdinalPlusOffsetThatWouldWrapIsRefused) {
  EXPECT_ERRC(
      open_lease_store("ordinal:app-18446744073709551615?offset=1")->acquire(presets::twitter()),
      errc::invalid_argument, "does not fit in 64 bits");
  // The same worker as app-0 only for app-0.
  EXPECT_EQ(open_lease_store("ordinal:app-0")->acquire(presets::twitter()).node, 0u);
  EXPECT_THROW(open_lease_store("ordinal:app--1"), ParseError);
}

TEST(LeaseError, NamesStoreAndReasonAndMapsCodes) {
  const LeaseError e(LeaseFailure::unreachable, "redis://127.0.0.1:1", "connection refused");
  EXPECT_EQ(e.code(), coord_errc::store_unreachable);
  EXPECT_EQ(e.store(), "redis://127.0.0.1:1");
  EXPECT_STREQ(e.what(), "store unreachable (redis://127.0.0.1:1): connection refused");
  EXPECT_EQ(LeaseError(LeaseFailure::space_full, "s", "x").code(), coord_errc::lease_error);
  EXPECT_EQ(LeaseError(LeaseFailure::lost, "s", "x").code(), coord_errc::lease_error);
  EXPECT_EQ(LeaseError(LeaseFailure::fenced, "s", "x").code(), errc::fenced);
}

}  // namespace
}  // namespace idforge::coord
