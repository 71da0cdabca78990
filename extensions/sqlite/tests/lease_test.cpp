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

// A hard link is a second name of the database, whose folder would not see the first name's
// lock: idforge_node(N) beside it is refused (two processes each held node 7 before and issued
// 254,376 equal IDs of 1.9 M). A lease folder given by hand still works.
TEST(SqliteLeaseBesideTheFile, ADatabaseWithAHardLinkIsRefusedNamingTheLinks) {
  const auto dir = scratch_dir("hardlink");
  const std::string a = (dir / "a.db").string(), b = (dir / "b.db").string();
  {
    Db make(a);
    make.exec("CREATE TABLE t(x)");
  }
  std::filesystem::create_hard_link(a, b);
  Db db(b);
  const std::string message = db.error("SELECT idforge_node(7)");
  EXPECT_NE(message.find("has 2 hard links"), std::string::npos) << message;
  EXPECT_NE(message.find("idforge_node(7, 'file:/path/to/folder')"), std::string::npos) << message;
  EXPECT_EQ(db.integer("SELECT idforge_node(7, 'file:" + (dir / "leases").string() + "')"), 7);
  std::filesystem::remove(b);
  Db single(a);
  EXPECT_EQ(single.integer("SELECT idforge_node(8)"), 8);
  std::filesystem::remove_all(dir);
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

// A static: or ordinal: URL that locks its node nowhere would let two processes issue the same
// IDs unseen (as two PostgreSQL clusters given static:5 did): refused, naming both ways out;
// with state=DIR it leases.
TEST(SqliteLease, AStaticUrlThatLocksNothingIsRefused) {
  Db a;
  for (const std::string url : {"static:5", "ordinal:db-3"}) {
    const std::string message = a.error("SELECT idforge_node('" + url + "')");
    EXPECT_NE(message.find("locks nothing"), std::string::npos) << message;
    EXPECT_NE(message.find("register=URL"), std::string::npos) << message;
    EXPECT_NE(message.find("state=DIR"), std::string::npos) << message;
  }
  EXPECT_EQ(a.text("SELECT idforge_node()"), "NULL");
  const auto dir = scratch_dir("static-lock");
  EXPECT_EQ(a.integer("SELECT idforge_node('static:5?state=" + dir.string() + "')"), 5);
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

// One node number, one generator in the process, whatever the source: a lease whose store hands
// out a node that a fixed idforge_node(N) or another lease URL already issues from is refused
// and released; a fixed node on a node leased here with the same layout and store shares the
// lease.
TEST(SqliteLease, ALeaseOnANodeInUseByAnotherSourceIsRefusedAndReleased) {
  const auto d1 = scratch_dir("static-1"), d2 = scratch_dir("static-2");
  const std::string s1 = "static:65?state=" + d1.string(), s2 = "static:65?state=" + d2.string();
  Db a, b, c;
  ASSERT_EQ(a.integer("SELECT idforge_node(65)"), 65);
  // The C ABI's process-wide registry refuses the second (one rule for every face): before
  // the store is asked, so nothing is held.
  std::string message = b.error("SELECT idforge_node('" + s1 + "')");
  EXPECT_NE(message.find("node 65 is held by a live generator of this process (layout "
                         "'twitter'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(".db-idforge'"), std::string::npos)
      << "names where it was opened: " << message;
  EXPECT_EQ(b.text("SELECT idforge_node()"), "NULL");
  // ordinal: worker 1 in dc 2 is node 65 under twitter.
  message = b.error("SELECT idforge_node('ordinal:a-1?dc=2&state=" + d1.string() + "')");
  EXPECT_NE(message.find("node 65 is held by a live generator of this process (layout "
                         "'twitter'"),
            std::string::npos)
      << message;

  // A lease first: a second spelling of the node is refused (d2 stays free), and a fixed
  // node that names the lease's store shares its generator.
  const std::string s3 = "static:66?state=" + d1.string(), s4 = "static:66?state=" + d2.string();
  ASSERT_EQ(b.integer("SELECT idforge_node('" + s3 + "')"), 66);
  message = c.error("SELECT idforge_node('" + s4 + "')");
  EXPECT_NE(message.find("node 66 is held by a live generator of this process (layout "
                         "'twitter', opened "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("on 'static:66?state=" + d1.string() + "'"), std::string::npos) << message;
  // A fixed node shares a lease only when it names the lease's store: held in the folder beside
  // the database instead, another process could take node 66 there.
  message = c.error("SELECT idforge_node(66)");
  EXPECT_NE(message.find("node 66 already issues in this process from lease URL 'static:66?state="),
            std::string::npos)
      << message;
  ASSERT_EQ(c.integer("SELECT idforge_node(66, '" + s3 + "')"), 66);
  EXPECT_NE(a.error("SELECT idforge_node(66, 'twitter,node=10')")
                .find("node 66 already issues in this process under layout 'twitter'"),
            std::string::npos);
  std::set<std::string> ids;
  for (int round = 0; round < 5; ++round)
    for (Db* db : {&b, &c})
      for (const auto& id : db->column(rows(1000) + "SELECT snowflake() FROM c")) ids.insert(id);
  EXPECT_EQ(ids.size(), 10000u);
  b.exec("SELECT idforge_node(67)");
  c.exec("SELECT idforge_node(68)");  // the last user of the lease lets go: released
  Db d;
  EXPECT_EQ(d.integer("SELECT idforge_node('" + s4 + "')"), 66);
  std::filesystem::remove_all(d1);
  std::filesystem::remove_all(d2);
}

}  // namespace
}  // namespace idforge::sqlite_test
