// GET /v1/sequences/{name} on a live server backed by a real SQLite segment store.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "idforge/server/sequence_routes.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "live_server.hpp"

namespace idforge {
namespace {

class SequencesRoute : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/idforge-seq-route-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    url_ = "sqlite:" + dir_ + "/seq.db";
    ticket::open_segment_store(url_)->create("orders", 1000, 100);
    server_ = std::make_unique<test::LiveServer>(server::ServerConfig{}, [this](server::Server& s) {
      pool_ = server::add_sequence_routes(s, url_);
    });
  }
  void TearDown() override {
    server_.reset();
    pool_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::string dir_, url_;
  std::shared_ptr<void> pool_;
  std::unique_ptr<test::LiveServer> server_;
};

TEST_F(SequencesRoute, OneValueComesWithItsString) {
  auto res = server_->client().Get("/v1/sequences/orders");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const auto j = nlohmann::json::parse(res->body);
  EXPECT_EQ(j["id"].get<std::int64_t>(), 1000);
  EXPECT_EQ(j["id_str"], "1000");
}

TEST_F(SequencesRoute, ManyValuesFromEightClientsAreUnique) {
  std::vector<std::vector<std::int64_t>> got(8);
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c)
    clients.emplace_back([&, c] {
      auto cl = server_->client();
      for (int i = 0; i < 10; ++i) {
        auto res = cl.Get("/v1/sequences/orders?count=125");
        ASSERT_TRUE(res && res->status == 200);
        const auto j = nlohmann::json::parse(res->body);
        ASSERT_EQ(j["ids"].size(), 125u);
        for (std::size_t k = 0; k < 125; ++k) {
          EXPECT_EQ(std::to_string(j["ids"][k].get<std::int64_t>()),
                    j["ids_str"][k].get<std::string>());
          got[c].push_back(j["ids"][k].get<std::int64_t>());
        }
      }
    });
  for (auto& t : clients) t.join();
  std::set<std::int64_t> all;
  std::size_t n = 0;
  for (const auto& v : got) all.insert(v.begin(), v.end()), n += v.size();
  EXPECT_EQ(n, 10'000u);
  EXPECT_EQ(all.size(), n) << "a value was handed out twice";
  EXPECT_GE(*all.begin(), 1000);
}

TEST_F(SequencesRoute, UnknownNameIs404AndBadCountIs400) {
  auto cl = server_->client();
  auto missing = cl.Get("/v1/sequences/nope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404) << missing->body;
  EXPECT_EQ(missing->get_header_value("Content-Type"), "application/problem+json");
  EXPECT_NE(missing->body.find("nope"), std::string::npos);
  for (const char* bad : {"0", "10001", "-1", "x"}) {
    auto res = cl.Get(std::string("/v1/sequences/orders?count=") + bad);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << bad;
  }
  EXPECT_EQ(cl.Get("/v1/sequences/orders")->status, 200);  // still serving
}

TEST_F(SequencesRoute, TextPlainGivesOneValueALine) {
  auto res = server_->client().Get("/v1/sequences/orders?count=3", {{"Accept", "text/plain"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->body, "1000\n1001\n1002\n");
}

}  // namespace
}  // namespace idforge
