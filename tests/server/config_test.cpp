// ServerConfig: every source goes through one parser; bad values name key, value and rule.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "idforge/error.hpp"
#include "idforge/server/config.hpp"

namespace idforge::server {
namespace {

std::string error_of(std::string_view key, std::string_view value) {
  ServerConfig c;
  try {
    apply_setting(c, key, value);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    return e.what();
  }
  return "";
}

TEST(Config, DefaultsAreLoopbackAndValid) {
  ServerConfig c;
  EXPECT_EQ(c.bind, "127.0.0.1");
  EXPECT_EQ(c.data, ".data");
  EXPECT_NO_THROW(validate(c));
}

TEST(Config, BadValuesNameKeyValueAndRule) {
  struct Case {
    const char* key;
    const char* value;
    const char* says;
  };
  for (const Case& t : {Case{"port", "70000", "from 0 to 65535"}, Case{"port", "eighty", "must be a number"},
                        Case{"max-connections", "0", "from 1 to 4096"}, Case{"rate-limit", "-3", "requests per second"},
                        Case{"read-timeout-ms", "", "must be a number"}, Case{"colour", "blue", "unknown setting"}}) {
    const std::string msg = error_of(t.key, t.value);
    EXPECT_NE(msg.find(std::string(t.key) + "='" + t.value + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(t.says), std::string::npos) << msg;
  }
}

TEST(Config, BeyondLoopbackRequiresAToken) {
  ServerConfig c;
  c.bind = "0.0.0.0";
  EXPECT_THROW(validate(c), Error);
  c.token = "t";
  EXPECT_NO_THROW(validate(c));
  EXPECT_TRUE(is_loopback("127.0.0.2"));
  EXPECT_TRUE(is_loopback("::1"));
  EXPECT_FALSE(is_loopback("10.0.0.1"));
}

TEST(Config, KeyValueFileWithComments) {
  const std::string path = ::testing::TempDir() + "/idforge_serve.conf";
  std::ofstream(path) << "# service\nport = 9000\nlayout=discord  # preset\n\nrate_limit=100\n";
  ServerConfig c;
  apply_config_file(c, path);
  EXPECT_EQ(c.port, 9000);
  EXPECT_EQ(c.layout, "discord");
  EXPECT_EQ(c.rate_limit, 100);
}

TEST(Config, JsonFile) {
  const std::string path = ::testing::TempDir() + "/idforge_serve.json";
  std::ofstream(path) << R"({"port": 9001, "node": 7, "access-log": "off"})";
  ServerConfig c;
  apply_config_file(c, path);
  EXPECT_EQ(c.port, 9001);
  EXPECT_EQ(c.node, 7u);
  EXPECT_EQ(c.access_log, "off");
}

TEST(Config, FileErrorsNameFileAndLine) {
  const std::string path = ::testing::TempDir() + "/idforge_bad.conf";
  std::ofstream(path) << "port=1\nnonsense\n";
  ServerConfig c;
  try {
    apply_config_file(c, path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(Config, EnvironmentUsesIdforgePrefixedNames) {
  std::map<std::string, std::string> env = {{"IDFORGE_PORT", "0"}, {"IDFORGE_MAX_CONNECTIONS", "9"},
                                            {"IDFORGE_DATA", "/tmp/d"}, {"IDFORGE_ACCESS_LOG", "off"}};
  ServerConfig c;
  apply_environment(c, [&](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  EXPECT_EQ(c.port, 0);
  EXPECT_EQ(c.max_connections, 9);
  EXPECT_EQ(c.data, "/tmp/d");
  EXPECT_EQ(c.access_log, "off");
}

}  // namespace
}  // namespace idforge::server
