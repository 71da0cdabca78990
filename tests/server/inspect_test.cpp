// GET /v1/inspect/{id} answers exactly what `idforge inspect --json` prints.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "live_server.hpp"
#include "process.hpp"

namespace idforge::test {
namespace {

std::string cli_inspect_json(const std::string& id) {
  std::string out = run({IDFORGE_BINARY, "inspect", "--json", id}).out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(Inspect, SameFieldsAsTheCli) {
  LiveServer s;
  auto c = s.client();
  // The largest KSUID (2150) too: both judge its time against their clock and add a note.
  for (const char* id :
       {"1468006400000151552", "0x145f680b00025000", "aWgEPTl1tmebfsQzFP4bxwgy80V"}) {
    auto r = c.Get(std::string("/v1/inspect/") + id);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, cli_inspect_json(id)) << id;
  }
}

TEST(Inspect, AnIssuedIdDecodesToTheServersNode) {
  server::ServerConfig cfg;
  cfg.node = 37;
  LiveServer s(cfg);
  auto c = s.client();
  auto id = c.Get("/v1/ids/snowflake");
  ASSERT_TRUE(id);
  const auto j = nlohmann::json::parse(id->body);
  auto r = c.Get("/v1/inspect/" + j["id_str"].get<std::string>());
  ASSERT_TRUE(r);
  EXPECT_EQ(nlohmann::json::parse(r->body)["node"], 37);
}

TEST(Inspect, GarbageIs400NamingTheInput) {
  LiveServer s;
  auto c = s.client();
  auto r = c.Get("/v1/inspect/not-an-id!");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/problem+json");
  EXPECT_NE(r->body.find("not-an-id!"), std::string::npos) << r->body;
}

}  // namespace
}  // namespace idforge::test
