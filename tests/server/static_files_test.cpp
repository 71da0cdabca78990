// Files under the web root are served at /, beside the API.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "live_server.hpp"

namespace idforge::test {
namespace {

TEST(StaticFiles, WebRootIsServedAtSlashAndApiStillWins) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "idforge_web_root";
  std::filesystem::create_directories(dir / "assets");
  std::ofstream(dir / "index.html") << "<html>page</html>";
  std::ofstream(dir / "assets" / "app.js") << "console.log(1)";
  server::ServerConfig cfg;
  cfg.web_root = dir.string();
  LiveServer s(cfg);
  auto c = s.client();
  auto r = c.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "<html>page</html>");
  auto js = c.Get("/assets/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_EQ(js->body, "console.log(1)");
  auto missing = c.Get("/assets/none.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->get_header_value("Content-Type"), "application/problem+json");
  auto api = c.Get("/v1/ids/snowflake");
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 200);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace idforge::test
