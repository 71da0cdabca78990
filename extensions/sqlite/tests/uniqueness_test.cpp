// Generators are process-wide: connections on different threads never share a value (the
// Snowflake ones even when they choose the same node), and a forked child never repeats its
// parent's IDs (a fixed node refuses there with a clear SQL error).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sqlite_test_support.hpp"

namespace idforge::sqlite_test {
namespace {

constexpr int kThreads = 4;
constexpr int kPerThread = 20000;

// kThreads connections, one per thread, each running setup then making kPerThread IDs with f.
std::vector<std::vector<std::string>> on_threads(const std::string& setup, const std::string& f) {
  std::vector<std::vector<std::string>> out(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        Db db;
        if (!setup.empty()) db.exec(setup);
        out[t] = db.column(rows(kPerThread) + "SELECT " + f + " FROM c");
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  return out;
}

TEST(SqliteUniqueness, ConnectionsOnFourThreadsNeverShareAValue) {
  for (const char* f : {"uuid7()", "uuid4()", "ulid()", "hex(uuid7_blob())"}) {
    std::set<std::string> all;
    for (const auto& ids : on_threads("", f)) {
      EXPECT_EQ(ids.size(), static_cast<std::size_t>(kPerThread)) << f;
      EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()) || std::string(f) == "uuid4()") << f;
      all.insert(ids.begin(), ids.end());
    }
    EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread)) << f;
  }
}

TEST(SqliteUniqueness, ConnectionsThatChooseTheSameNodeShareOneGenerator) {
  std::set<std::string> all;
  for (const auto& ids : on_threads("SELECT idforge_node(42)", "snowflake()"))
    all.insert(ids.begin(), ids.end());
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread));
  // The same layout written as a preset and as a spec is the same generator too.
  std::set<std::string> mixed;
  Db a, b;
  a.exec("SELECT idforge_node(43, 'twitter')");
  b.exec("SELECT idforge_node(43, 'time=41,dc=5,worker=5,seq=12,tick=1ms,epoch=1288834974657')");
  for (int round = 0; round < 20; ++round)
    for (Db* db : {&a, &b})
      for (const auto& id : db->column(rows(500) + "SELECT snowflake() FROM c")) mixed.insert(id);
  EXPECT_EQ(mixed.size(), 20u * 2 * 500);
}

// Runs child in a forked process; what it writes to its FILE* comes back, one item a line.
std::vector<std::string> in_child(void (*child)(FILE*), int& status) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    FILE* out = fdopen(fds[1], "w");
    int code = 0;
    try {
      child(out);
    } catch (const std::exception& e) {
      std::fprintf(out, "exception: %s\n", e.what());
      code = 1;
    }
    std::fclose(out);
    _exit(code);
  }
  close(fds[1]);
  FILE* in = fdopen(fds[0], "r");
  std::vector<std::string> lines;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, in)) {
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    lines.push_back(line);
  }
  std::fclose(in);
  waitpid(pid, &status, 0);
  return lines;
}

TEST(SqliteUniqueness, AForkedChildNeverRepeatsItsParentsIds) {
  Db parent;
  parent.exec("SELECT idforge_node(50)");
  const auto before = parent.column(rows(100) + "SELECT uuid7() FROM c");
  ASSERT_EQ(parent.column("SELECT snowflake()").size(), 1u);
  int status = 0;
  const auto child = in_child(
      [](FILE* out) {
        Db db;  // a connection of the child's own, as SQLite asks
        for (const auto& id : db.column(rows(1000) + "SELECT uuid7() FROM c UNION ALL "
                                                     "SELECT ulid() FROM c"))
          std::fprintf(out, "%s\n", id.c_str());
        // The parent's node: refused with a message saying what to do, not a crash.
        db.exec("SELECT idforge_node(50)");
        std::fprintf(out, "error: %s\n", db.error("SELECT snowflake()").c_str());
        // A node of its own works.
        db.exec("SELECT idforge_node(51)");
        std::fprintf(out, "node51: %lld\n",
                     static_cast<long long>(db.integer(
                         "SELECT json_extract(idforge_inspect(snowflake()), '$.node')")));
      },
      status);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << (child.empty() ? "" : child.back());
  ASSERT_EQ(child.size(), 2002u);
  auto after = parent.column(rows(1000) + "SELECT uuid7() FROM c UNION ALL SELECT ulid() FROM c");
  std::set<std::string> all(before.begin(), before.end());
  all.insert(after.begin(), after.end());
  all.insert(child.begin(), child.begin() + 2000);
  EXPECT_EQ(all.size(), 100u + 2000 + 2000);
  EXPECT_NE(child[2000].find("snowflake(): "), std::string::npos) << child[2000];
  EXPECT_NE(child[2000].find("fork"), std::string::npos) << child[2000];
  EXPECT_NE(child[2000].find("call idforge_node() with another node"), std::string::npos)
      << child[2000];
  EXPECT_EQ(child[2000].find("rebind"), std::string::npos) << child[2000];  // not SQL's
  EXPECT_EQ(child[2001], "node51: 51");
  // The parent goes on with its node.
  EXPECT_EQ(parent.integer("SELECT json_extract(idforge_inspect(snowflake()), '$.node')"), 50);
}

// One node number, one layout in the process: layouts that place the same bits alike (10 node
// bits split otherwise, or an epoch 100 ms apart) would issue equal IDs from two generators, so
// the second layout is refused, naming the node, both layouts and the rule.
TEST(SqliteUniqueness, ANodeInUseRefusesAnotherLayout) {
  Db a, b;
  ASSERT_EQ(a.integer("SELECT idforge_node(60)"), 60);
  for (const std::string layout :
       {"twitter,node=10", "time=41,dc=4,worker=6,seq=12,epoch=1288834974657",
        "time=41,dc=5,worker=5,seq=12,epoch=1288834974757"}) {
    const std::string message = b.error("SELECT idforge_node(60, '" + layout + "')");
    EXPECT_NE(message.find("node 60 already issues in this process under layout 'twitter'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("one layout per node per process"), std::string::npos) << message;
    EXPECT_NE(message.find("IDs of the two could be equal"), std::string::npos) << message;
    EXPECT_EQ(b.text("SELECT idforge_node()"), "NULL") << layout;  // left as it was
  }
  // The same layout under another spelling shares the generator: no ID twice.
  ASSERT_EQ(
      b.integer("SELECT idforge_node(60, 'time=41,dc=5,worker=5,seq=12,epoch=1288834974657')"), 60);
  std::set<std::string> ids;
  for (int round = 0; round < 5; ++round)
    for (Db* db : {&a, &b})
      for (const auto& id : db->column(rows(1000) + "SELECT snowflake() FROM c")) ids.insert(id);
  EXPECT_EQ(ids.size(), 10000u);
}

}  // namespace
}  // namespace idforge::sqlite_test
