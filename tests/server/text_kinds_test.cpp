// uuid7, uuid4 and ulid over HTTP: canonical text, version bits, order, uniqueness.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "live_server.hpp"

namespace idforge::test {
namespace {

using nlohmann::json;

std::vector<std::string> fetch(LiveServer& s, const std::string& kind, int count) {
  auto c = s.client();
  auto r = c.Get("/v1/ids/" + kind + "?count=" + std::to_string(count));
  EXPECT_TRUE(r);
  if (!r) return {};
  EXPECT_EQ(r->status, 200) << r->body;
  const json j = json::parse(r->body);
  std::vector<std::string> out;
  if (count == 1) {
    EXPECT_EQ(j["id"], j["id_str"]);
    out.push_back(j["id"].get<std::string>());
  } else {
    EXPECT_EQ(j["ids"], j["ids_str"]);
    for (const auto& v : j["ids"]) out.push_back(v.get<std::string>());
  }
  return out;
}

TEST(TextKinds, Uuid7IsCanonicalVersion7AndStrictlyIncreasing) {
  LiveServer s;
  const std::regex shape("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  const auto one = fetch(s, "uuid7", 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(std::regex_match(one[0], shape)) << one[0];
  const auto many = fetch(s, "uuid7", 1000);
  ASSERT_EQ(many.size(), 1000u);
  for (std::size_t i = 0; i < many.size(); ++i) {
    ASSERT_TRUE(std::regex_match(many[i], shape)) << many[i];
    if (i) ASSERT_LT(many[i - 1], many[i]);
  }
  EXPECT_LT(one[0], many[0]);
}

TEST(TextKinds, Uuid4IsCanonicalVersion4AndUnique) {
  LiveServer s;
  const std::regex shape("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  const auto many = fetch(s, "uuid4", 1000);
  std::set<std::string> seen(many.begin(), many.end());
  EXPECT_EQ(seen.size(), 1000u);
  for (const auto& u : many) ASSERT_TRUE(std::regex_match(u, shape)) << u;
}

TEST(TextKinds, UlidIsCrockfordBase32AndStrictlyIncreasing) {
  LiveServer s;
  const std::regex shape("[0-7][0-9A-HJKMNP-TV-Z]{25}");
  const auto many = fetch(s, "ulid", 1000);
  ASSERT_EQ(many.size(), 1000u);
  for (std::size_t i = 0; i < many.size(); ++i) {
    ASSERT_TRUE(std::regex_match(many[i], shape)) << many[i];
    if (i) ASSERT_LT(many[i - 1], many[i]);
  }
}

TEST(TextKinds, TextPlainAndInspectWork) {
  LiveServer s;
  auto c = s.client();
  auto r = c.Get("/v1/ids/ulid?count=3", {{"Accept", "text/plain"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.size(), 3u * 27u);
  const auto id = fetch(s, "uuid7", 1);
  auto in = c.Get("/v1/inspect/" + id[0]);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->status, 200);
  EXPECT_EQ(json::parse(in->body)["canonical"], id[0]);
}

TEST(TextKinds, ConcurrentClientsGetUniqueUuid7AndUlid) {
  LiveServer s;
  for (const char* kind : {"uuid7", "ulid"}) {
    std::vector<std::vector<std::string>> got(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 5; ++i) {
          auto v = fetch(s, kind, 250);
          got[t].insert(got[t].end(), v.begin(), v.end());
        }
      });
    for (auto& t : threads) t.join();
    std::set<std::string> all;
    for (const auto& v : got) all.insert(v.begin(), v.end());
    EXPECT_EQ(all.size(), 10000u) << kind;
  }
}

}  // namespace
}  // namespace idforge::test
