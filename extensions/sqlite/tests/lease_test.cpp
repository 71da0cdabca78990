// idforge_node('lease URL'): a node ID from a real store (file:, and Redis when the servers run),
// shared by the connections of the process that name the same URL, released on the last close.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <set>
#include <string>

#include "services.hpp"
#include "sqlite_test_support.hpp"

namespace idforge::sqlite_test {
namespace {

std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("idforge-sqlite-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Two connections that name url get one node and never share an ID; returns the node.
std::int64_t shared_by_two_connections(const std::string& url) {
  Db a, b;
  const auto node = a.integer("SELECT idforge_node('" + url + "')");
  EXPECT_EQ(b.integer("SELECT idforge_node('" + url + "')"), node);
  std::set<std::string> ids;
  for (int round = 0; round < 10; ++round)
    for (Db* db : {&a, &b})
      for (const auto& id : db->column(rows(1000) + "SELECT snowflake() FROM c")) ids.insert(id);
  EXPECT_EQ(ids.size(), 20000u);
  EXPECT_EQ(a.integer("SELECT json_extract(idforge_inspect(snowflake()), '$.node')"), node);
  // A fixed node on a leaves the lease to b alone.
  a.exec("SELECT idforge_node(9)");
  EXPECT_EQ(b.integer("SELECT idforge_node()"), node);
  return node;
}

TEST(SqliteLease, AFileLeaseIsSharedByTheConnectionsThatNameIt) {
  const auto dir = scratch_dir("lease");
  const std::string url = "file:" + dir.string();
  const auto node = shared_by_two_connections(url);
  EXPECT_EQ(node, 0);
  // Released with its high-water mark when the last connection closed: taken again.
  EXPECT_TRUE(std::filesystem::exists(dir / "node-0.mark"));
  Db c;
  EXPECT_EQ(c.integer("SELECT idforge_node('" + url + "')"), 0);
  std::filesystem::remove_all(dir);
}

TEST(SqliteLease, ARedisLeaseIsSharedByTheConnectionsThatNameIt) {
  IDFORGE_NEED_SERVICE(base, "IDFORGE_REDIS_URL");
  const std::string url = base + (base.find('?') == std::string::npos ? "?" : "&") +
                          "prefix=sqlite-ext-" + std::to_string(getpid()) + "-" +
                          std::to_string(std::random_device()()) + ":";
  const auto node = shared_by_two_connections(url);
  // Released on close: the first free node is the same one again.
  Db c;
  EXPECT_EQ(c.integer("SELECT idforge_node('" + url + "')"), node);
  // While c holds it, a lease of the same store under another layout is a lease of its own,
  // so another node.
  Db d;
  EXPECT_NE(d.integer("SELECT idforge_node('" + url + "', 'time=41,dc=0,worker=10,seq=12')"), node);
}

}  // namespace
}  // namespace idforge::sqlite_test
