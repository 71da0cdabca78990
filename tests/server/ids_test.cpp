// GET /v1/ids/{kind}: shapes, id_str, counts, kinds, and uniqueness under concurrency.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "live_server.hpp"

namespace idforge::test {
namespace {

using nlohmann::json;

TEST(Ids, OneSnowflakeHasIdAndEqualIdStr) {
  LiveServer s;
  auto c = s.client();
  auto r = c.Get("/v1/ids/snowflake");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  const json j = json::parse(r->body);
  ASSERT_TRUE(j["id"].is_number_unsigned());
  EXPECT_EQ(j["id_str"].get<std::string>(), std::to_string(j["id"].get<std::uint64_t>()));
}

TEST(Ids, BatchHasIdsAndIdsStrInTheSameOrder) {
  LiveServer s;
  auto c = s.client();
  auto r = c.Get("/v1/ids/snowflake?count=10000");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  const json j = json::parse(r->body);
  ASSERT_EQ(j["ids"].size(), 10000u);
  ASSERT_EQ(j["ids_str"].size(), 10000u);
  for (std::size_t i = 0; i < 10000; ++i) {
    ASSERT_EQ(j["ids_str"][i].get<std::string>(), std::to_string(j["ids"][i].get<std::uint64_t>()));
    if (i) ASSERT_LT(j["ids"][i - 1].get<std::uint64_t>(), j["ids"][i].get<std::uint64_t>());
  }
}

TEST(Ids, AcceptTextPlainGivesOneIdALine) {
  LiveServer s;
  auto c = s.client();
  auto r = c.Get("/v1/ids/snowflake?count=5", {{"Accept", "text/plain"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; charset=utf-8");
  std::istringstream in(r->body);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    EXPECT_FALSE(line.empty());
    EXPECT_EQ(line.find_first_not_of("0123456789"), std::string::npos) << line;
    ++n;
  }
  EXPECT_EQ(n, 5);
}

TEST(Ids, BadCountsAre400ProblemsNamingTheValue) {
  LiveServer s;
  auto c = s.client();
  for (const char* bad : {"0", "10001", "-1", "abc", "1.5", "", "99999999999999999999999"}) {
    auto r = c.Get(std::string("/v1/ids/snowflake?count=") + bad);
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 400) << bad;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/problem+json") << bad;
    const json j = json::parse(r->body);
    EXPECT_EQ(j["status"], 400);
    EXPECT_EQ(j["type"], "urn:idforge:problem:bad-count");
    EXPECT_NE(j["detail"].get<std::string>().find(std::string("'") + bad + "'"), std::string::npos)
        << j.dump();
  }
}

TEST(Ids, UnknownKindIs400ListingTheKnownOnes) {
  LiveServer s;
  auto c = s.client();
  auto r = c.Get("/v1/ids/uuid9");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  const json j = json::parse(r->body);
  EXPECT_EQ(j["type"], "urn:idforge:problem:unknown-kind");
  EXPECT_NE(j["detail"].get<std::string>().find("snowflake"), std::string::npos);
}

TEST(Ids, KindsPlugInWithoutTouchingTheRouter) {
  LiveServer s({}, [](server::Server& srv) {
    srv.kinds().add({"counter", "test kind",
                     [](std::size_t n, server::IdBatch& out) {
                       for (std::size_t i = 0; i < n; ++i)
                         out.texts.push_back("c" + std::to_string(i));
                     },
                     nullptr});
  });
  auto c = s.client();
  auto r = c.Get("/v1/ids/counter?count=2");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, R"({"ids":["c0","c1"],"ids_str":["c0","c1"]})");
}

TEST(Ids, TenThousandIdsFromEightConcurrentClientsAreUnique) {
  LiveServer s;
  constexpr int kClients = 8, kPerClient = 1250;
  std::vector<std::vector<std::uint64_t>> got(kClients);
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t)
    threads.emplace_back([&, t] {
      auto c = s.client();
      c.set_keep_alive(true);
      for (int i = 0; i < kPerClient; ++i) {
        auto r = c.Get("/v1/ids/snowflake");
        if (!r || r->status != 200) return;
        const json j = json::parse(r->body);
        if (j["id_str"].get<std::string>() != std::to_string(j["id"].get<std::uint64_t>())) return;
        got[t].push_back(j["id"].get<std::uint64_t>());
      }
    });
  for (auto& t : threads) t.join();
  std::set<std::uint64_t> all;
  for (const auto& v : got) {
    EXPECT_EQ(v.size(), static_cast<std::size_t>(kPerClient));
    all.insert(v.begin(), v.end());
  }
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kClients * kPerClient));
}

}  // namespace
}  // namespace idforge::test
