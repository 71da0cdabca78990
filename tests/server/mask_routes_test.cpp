// GET /v1/mask/{id} and /v1/unmask/{id} on a live server: round trips in every mode, the
// token, rotation, and each error with its status and problem type.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "idforge/mask_keyring.hpp"
#include "idforge/public_id.hpp"
#include "idforge/server/mask_routes.hpp"
#include "live_server.hpp"

namespace idforge {
namespace {

const std::string kKey1 = "1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const std::string kKey2 = "2:fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0";
const std::string kOtherKey1 = "1:5555555555555555555555555555555555555555555555555555555555555555";

std::unique_ptr<test::LiveServer> serve(const std::string& keys, server::ServerConfig config = {}) {
  std::shared_ptr<const MaskKeyring> ring;
  if (!keys.empty()) ring = std::make_shared<const MaskKeyring>(MaskKeyring::parse(keys, "test"));
  return std::make_unique<test::LiveServer>(
      config, [ring](server::Server& s) { server::add_mask_routes(s, ring); });
}

nlohmann::json get_json(test::LiveServer& srv, const std::string& path, int want_status) {
  auto res = srv.client().Get(path);
  EXPECT_TRUE(res) << path;
  if (!res) return {};
  EXPECT_EQ(res->status, want_status) << path << ": " << res->body;
  return nlohmann::json::parse(res->body, nullptr, false);
}

TEST(MaskRoutes, MasksAndUnmasksANumber) {
  auto srv = serve(kKey1);
  const auto m = get_json(*srv, "/v1/mask/4001", 200);
  EXPECT_EQ(m["input"], "4001");
  EXPECT_EQ(m["mode"], "u63");
  EXPECT_EQ(m["key_id"], 1);
  const std::string pub = m["public_id"];
  EXPECT_EQ(pub.size(), 16u);
  EXPECT_EQ(std::to_string(m["masked"].get<std::uint64_t>()), m["masked_str"].get<std::string>());
  // The same as the library gives.
  const MaskKeyring ring = MaskKeyring::parse(kKey1, "test");
  EXPECT_EQ(pub, to_public_id(ring.primary(), MaskMode::u63, {0, 4001}));
  const auto u = get_json(*srv, "/v1/unmask/" + pub, 200);
  EXPECT_EQ(u["id"], 4001);
  EXPECT_EQ(u["id_str"], "4001");
  EXPECT_EQ(u["key_id"], 1);
  const auto raw =
      get_json(*srv, "/v1/unmask/" + m["masked_str"].get<std::string>() + "?form=raw", 200);
  EXPECT_EQ(raw["id"], 4001);
}

TEST(MaskRoutes, AV7BecomesAV4AndComesBack) {
  auto srv = serve(kKey1);
  const std::string v7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
  const auto m = get_json(*srv, "/v1/mask/" + v7, 200);
  EXPECT_EQ(m["mode"], "v7");
  const Uuid v4 = Uuid::parse(m["masked"].get<std::string>());
  EXPECT_EQ(v4.version(), 4);
  EXPECT_EQ(v4.variant(), UuidVariant::rfc9562);
  EXPECT_EQ(get_json(*srv, "/v1/unmask/" + v4.to_string(), 200)["id"], v7);
  EXPECT_EQ(get_json(*srv, "/v1/unmask/" + m["public_id"].get<std::string>(), 200)["id"], v7);
  // u128 on request, and back with mode=u128 when read raw.
  const auto w = get_json(*srv, "/v1/mask/" + v7 + "?mode=u128&alphabet=base62", 200);
  EXPECT_EQ(w["mode"], "u128");
  EXPECT_EQ(
      get_json(*srv, "/v1/unmask/" + w["masked"].get<std::string>() + "?mode=u128", 200)["id"], v7);
  EXPECT_EQ(get_json(*srv, "/v1/unmask/" + w["public_id"].get<std::string>() + "?alphabet=base62",
                     200)["id"],
            v7);
}

TEST(MaskRoutes, PlainTextWhenAsked) {
  auto srv = serve(kKey1);
  auto res = srv->client().Get("/v1/mask/77?form=raw", {{"Accept", "text/plain"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  const std::string masked = res->body.substr(0, res->body.size() - 1);
  auto back = srv->client().Get("/v1/unmask/" + masked + "?form=raw", {{"Accept", "text/plain"}});
  ASSERT_TRUE(back);
  EXPECT_EQ(back->body, "77\n");
}

TEST(MaskRoutes, RotationResolvesOldIdsAndKeyIdPicksAKey) {
  auto old_srv = serve(kKey1);
  const std::string old_id = get_json(*old_srv, "/v1/mask/99", 200)["public_id"];
  old_srv.reset();
  auto srv = serve(kKey2 + "\n" + kKey1);
  const auto now = get_json(*srv, "/v1/mask/99", 200);
  EXPECT_EQ(now["key_id"], 2);
  EXPECT_NE(now["public_id"], old_id);
  EXPECT_EQ(get_json(*srv, "/v1/unmask/" + old_id, 200)["id"], 99);
  EXPECT_EQ(get_json(*srv, "/v1/mask/99?key_id=1", 200)["public_id"], old_id);
  const auto absent = get_json(*srv, "/v1/mask/99?key_id=5", 400);
  EXPECT_EQ(absent["type"], "urn:idforge:problem:unknown-mask-key");
}

TEST(MaskRoutes, ErrorsCarryStatusTypeAndTheValue) {
  auto srv = serve(kKey1);
  const std::string good = get_json(*srv, "/v1/mask/4001", 200)["public_id"];
  std::string typo = good;
  typo[3] = typo[3] == 'z' ? 'y' : 'z';
  struct Case {
    std::string path;
    int status;
    std::string type;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"/v1/mask/0", 400, "bad-id", "'0'"},
      {"/v1/mask/abc", 400, "bad-id", "'abc'"},
      {"/v1/mask/919108f7-52d1-4320-9bac-f847db4148a8?mode=v7", 400, "bad-id", "version 7"},
      {"/v1/mask/5?mode=u64", 400, "bad-mask-option", "mode='u64'"},
      {"/v1/mask/5?alphabet=base64", 400, "bad-mask-option", "alphabet='base64'"},
      {"/v1/mask/5?form=hex", 400, "bad-mask-option", "form='hex'"},
      {"/v1/mask/5?key_id=58", 400, "bad-mask-option", "key_id='58'"},
      {"/v1/unmask/" + typo, 400, "mistyped-id", "mistyped"},
      {"/v1/unmask/short", 400, "bad-id", "5 characters"},
      {"/v1/unmask/" + good + "?mode=u128", 400, "bad-id", "of mode u63"},
      {"/v1/unmask/0?form=raw", 400, "bad-id", "'0'"},
      // A misspelt parameter used to be ignored: a raw unmask then read the value with the
      // primary key and answered 200 with a wrong ID.
      {"/v1/unmask/5?form=raw&keyid=1", 400, "bad-mask-option", "unknown query parameter 'keyid'"},
      {"/v1/unmask/5?form=raw&key-id=1", 400, "bad-mask-option", "'key-id'"},
      {"/v1/mask/5?Key_id=1", 400, "bad-mask-option", "'Key_id'"},
      {"/v1/mask/5?bogus", 400, "bad-mask-option", "'bogus'"},
      {"/v1/mask/5?" + std::string(100, 'k') + "=1", 400, "bad-mask-option",
       std::string(64, 'k') + "...'"},
  };
  for (const Case& c : cases) {
    const auto j = get_json(*srv, c.path, c.status);
    EXPECT_EQ(j["type"], "urn:idforge:problem:" + c.type) << c.path;
    EXPECT_NE(j["detail"].get<std::string>().find(c.says), std::string::npos)
        << c.path << ": " << j.dump();
  }
}

TEST(MaskRoutes, ForeignIdsAreNotFound) {
  auto other = serve(kOtherKey1);
  const std::string foreign = get_json(*other, "/v1/mask/4001", 200)["public_id"];
  auto other2 = serve(kKey2);
  const std::string retired = get_json(*other2, "/v1/mask/4001", 200)["public_id"];
  other.reset();
  other2.reset();
  auto srv = serve(kKey1);
  EXPECT_EQ(get_json(*srv, "/v1/unmask/" + foreign, 404)["type"], "urn:idforge:problem:not-ours");
  const auto unknown = get_json(*srv, "/v1/unmask/" + retired, 404);
  EXPECT_EQ(unknown["type"], "urn:idforge:problem:unknown-mask-key");
  EXPECT_NE(unknown["detail"].get<std::string>().find("mask key 2"), std::string::npos);
}

TEST(MaskRoutes, WithoutAKeyTheRoutesSayHowToGiveOne) {
  auto srv = serve("");
  for (const char* path : {"/v1/mask/5", "/v1/unmask/5"}) {
    const auto j = get_json(*srv, path, 503);
    EXPECT_EQ(j["type"], "urn:idforge:problem:no-mask-key");
    EXPECT_NE(j["detail"].get<std::string>().find("mask-key-file"), std::string::npos);
  }
}

TEST(MaskRoutes, TheTokenGuardsBothRoutes) {
  server::ServerConfig config;
  config.token = "s3cret";
  auto srv = serve(kKey1, config);
  for (const char* path : {"/v1/mask/5", "/v1/unmask/5"}) {
    auto res = srv->client().Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 401) << path;
  }
  auto ok = srv->client().Get("/v1/mask/5", {{"Authorization", "Bearer s3cret"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

}  // namespace
}  // namespace idforge
