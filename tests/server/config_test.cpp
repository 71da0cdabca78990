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
  for (const Case& t :
       {Case{"port", "70000", "from 0 to 65535"}, Case{"port", "eighty", "must be a number"},
        Case{"max-connections", "0", "from 1 to 4096"},
        Case{"rate-limit", "-3", "requests per second"},
        Case{"read-timeout-ms", "", "must be a number"}}) {
    const std::string msg = error_of(t.key, t.value);
    EXPECT_NE(msg.find(std::string(t.key) + "='" + t.value + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(t.says), std::string::npos) << msg;
  }
}

// An unknown setting is named without its value: it may be a secret put where it does not
// belong (mask-keys=ID:SECRET for mask-key-file=PATH) and the message would print it.
TEST(Config, AnUnknownSettingIsNamedWithoutItsValue) {
  const std::string secret = "1:" + std::string(64, 'a');
  const std::string msg = error_of("mask-keys", secret);
  EXPECT_NE(msg.find("setting mask-keys (value not shown): unknown setting"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find(std::string(32, 'a')), std::string::npos) << msg;
  EXPECT_NE(error_of("colour", "blue").find("unknown setting; known: bind"), std::string::npos);
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

std::string file_error(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  ServerConfig c;
  try {
    apply_config_file(c, path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Config, HashStartsACommentOnlyAtLineStartOrAfterWhitespace) {
  const std::string path = ::testing::TempDir() + "/idforge_hash.conf";
  std::ofstream(path)
      << "token=abc#def\n# a comment\nlayout=discord # preset\ndata=/tmp/a#b\t# tab comment\n";
  ServerConfig c;
  apply_config_file(c, path);
  EXPECT_EQ(c.token, "abc#def");
  EXPECT_EQ(c.layout, "discord");
  EXPECT_EQ(c.data, "/tmp/a#b");
}

TEST(Config, JsonValueOfAnotherTypeIsAnErrorNamingTheKey) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& t : {Case{R"({"token": null})", "'token' is null"},
                        Case{R"({"port": true})", "'port' is boolean"},
                        Case{R"({"token": ["a"]})", "'token' is array"},
                        Case{R"({"token": {"a": 1}})", "'token' is object"}}) {
    const std::string msg = file_error("idforge_types.json", t.text);
    EXPECT_NE(msg.find(t.says), std::string::npos) << t.text << " -> " << msg;
    EXPECT_NE(msg.find("give a string or a number"), std::string::npos) << t.text << " -> " << msg;
  }
  const std::string path = ::testing::TempDir() + "/idforge_numbers.json";
  std::ofstream(path) << R"({"port": 9002, "rate-limit": 2.5, "token": "t"})";
  ServerConfig c;
  apply_config_file(c, path);
  EXPECT_EQ(c.port, 9002);
  EXPECT_EQ(c.rate_limit, 2.5);
  EXPECT_EQ(c.token, "t");
}

TEST(Config, AKeyGivenTwiceIsAnError) {
  std::string msg = file_error("idforge_twice.conf", "port=1\nlayout=discord\nport = 2\n");
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'port' was already given on line 1"), std::string::npos) << msg;
  msg = file_error("idforge_twice2.conf", "rate_limit=1\nrate-limit=2\n");
  EXPECT_NE(msg.find("'rate-limit' was already given"), std::string::npos) << msg;
  msg = file_error("idforge_twice.json", R"({"port": 1, "port": 2})");
  EXPECT_NE(msg.find("'port' is given twice"), std::string::npos) << msg;
}

TEST(Config, AFolderIsNotAConfigFile) {
  ServerConfig c;
  try {
    apply_config_file(c, ::testing::TempDir());
    FAIL() << "a folder was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
  EXPECT_THROW(apply_config_file(c, ::testing::TempDir() + "/idforge_no_such.conf"), Error);
}

TEST(Config, RateLimitsKeepTheLimiterArithmeticInRange) {
  for (const char* v : {"1e-10", "0.0001", "2e9", "inf", "nan", "0x10", "1e400"})
    EXPECT_NE(error_of("rate-limit", v).find("from 0.001 to 1e9"), std::string::npos) << v;
  for (const char* v : {"1e9", "1e10", "0.5", "-1"})
    EXPECT_NE(error_of("rate-burst", v).find("from 1 to 1e6"), std::string::npos) << v;
  EXPECT_EQ(error_of("rate-limit", "0.01"), "");
  EXPECT_EQ(error_of("rate-burst", "1e6"), "");
  EXPECT_EQ(error_of("rate-limit", "0"), "");
}

TEST(Config, IoThreadsRange) {
  EXPECT_EQ(error_of("io-threads", "4"), "");
  EXPECT_NE(error_of("io-threads", "65").find("from 0 to 64"), std::string::npos);
}

// A fixed node beside a lease store registers in that store (so the same node configured
// twice is refused there); the settings themselves do not conflict.
TEST(Config, FixedNodeWithALeaseStoreIsAccepted) {
  ServerConfig c;
  c.node = 5;
  c.lease_store = "redis://127.0.0.1:6379";
  EXPECT_NO_THROW(validate(c));
}

TEST(Config, ALayoutWhoseTimeRanOutIsRefused) {
  ServerConfig c;
  c.layout = "time=22,dc=5,worker=5,seq=31";
  try {
    validate(c);
    FAIL() << "a layout that cannot issue was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_layout);
    EXPECT_NE(std::string(e.what()).find("22-bit time field ran out"), std::string::npos)
        << e.what();
  }
}

TEST(Config, EnvironmentUsesIdforgePrefixedNames) {
  std::map<std::string, std::string> env = {{"IDFORGE_PORT", "0"},
                                            {"IDFORGE_MAX_CONNECTIONS", "9"},
                                            {"IDFORGE_DATA", "/tmp/d"},
                                            {"IDFORGE_ACCESS_LOG", "off"}};
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
