// A SQLite segment store deleted or replaced under open clients is refused by them (never
// written to, no block taken from it), while a client opened after it takes the new store.
// The new store starts its numbers again (a store knows nothing of the one it replaced), so
// the old clients' refusal is what keeps their values from being handed out twice.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>
#include <thread>
#include <vector>

#include "db_probe.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "pg_instance.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

namespace fs = std::filesystem;

// Deletes a SQLite store as `rm seq.db*` does: the file, its WAL and its shared memory.
void delete_store(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
}

std::int64_t blocks_of(SegmentStore& store, const std::string& name) {
  for (const auto& r : store.stats())
    if (r.name == name) return r.blocks;
  return -1;
}

class StoreReplacedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test::temp_dir() + "/seq.db";
    url_ = "sqlite:" + path_;
    store_ = open_segment_store(url_);
    store_->create("orders", 1, 10);
  }
  // The store made again at the same path by another client, and a fresh client's values.
  std::vector<std::int64_t> recreate_and_draw(int n) {
    fresh_ = open_segment_store(url_);
    fresh_->create("orders", 1, 10);
    SegmentClient c(*fresh_, "orders", {.background = false});
    std::vector<std::int64_t> out;
    for (int i = 0; i < n; ++i) out.push_back(c.next());
    return out;
  }
  std::string path_, url_;
  std::unique_ptr<SegmentStore> store_, fresh_;
};

TEST_F(StoreReplacedTest, AnOldClientRefusesAStoreDeletedAndMadeAgainAndHandsOutNothing) {
  SegmentClient old(*store_, "orders", {.prefetch_at = 1.0, .background = false});
  std::vector<std::int64_t> before;
  for (int i = 0; i < 10; ++i) before.push_back(old.next());  // its block is used up
  delete_store(path_);
  const auto fresh_values = recreate_and_draw(5);
  EXPECT_EQ(fresh_values, (std::vector<std::int64_t>{1, 2, 3, 4, 5}))
      << "a store made again starts its numbers again: the old client must not go on";
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      const std::int64_t v = old.next();
      ADD_FAILURE() << "the old client handed out " << v << " from a replaced store";
    } catch (const StoreReplaced& e) {
      EXPECT_EQ(e.code(), ticket_errc::store_unreachable);
      const std::string m = e.what();
      EXPECT_NE(m.find(path_), std::string::npos) << m;
      EXPECT_NE(m.find("was replaced"), std::string::npos) << m;
      EXPECT_NE(m.find(store_->store_id()), std::string::npos) << m;
      EXPECT_NE(m.find("starts its numbers again"), std::string::npos) << m;
    }
  }
  EXPECT_EQ(old.stats().handed, 10);
  EXPECT_NE(store_->store_id(), fresh_->store_id());
  old.close();  // its abandoned count goes nowhere: the new store is not written to
  for (const auto& r : fresh_->stats()) {
    EXPECT_EQ(r.blocks, 1) << "only the fresh client's block";
    EXPECT_EQ(r.abandoned, 5) << "only the fresh client's surplus";
  }
}

TEST_F(StoreReplacedTest, ADeletedStoreIsRefusedAndNotWrittenTo) {
  ASSERT_EQ(store_->take("orders", 0).first, 1);
  delete_store(path_);
  try {
    store_->take("orders", 0);
    FAIL() << "a block was taken from a deleted store";
  } catch (const StoreReplaced& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("was deleted"), std::string::npos) << m;
    EXPECT_NE(m.find("nothing is at " + path_), std::string::npos) << m;
  }
  EXPECT_THROW(store_->create("invoices", 1, 10), StoreReplaced);
  EXPECT_THROW(store_->report_abandoned("orders", 3), StoreReplaced);
  EXPECT_THROW(store_->stats(), StoreReplaced);
  // Still refused when a store appears at the path again: this object saw another one.
  recreate_and_draw(1);
  EXPECT_THROW(store_->take("orders", 0), StoreReplaced);
  EXPECT_EQ(blocks_of(*fresh_, "orders"), 1);
}

TEST_F(StoreReplacedTest, AStoreMovedOverThePathIsRefused) {
  const std::string other = fs::path(path_).parent_path() / "other.db";
  open_segment_store("sqlite:" + other)->create("orders", 1, 10);
  fs::rename(other, path_);
  try {
    store_->take("orders", 0);
    FAIL() << "a block was taken after another store was moved over the path";
  } catch (const StoreReplaced& e) {
    EXPECT_NE(std::string(e.what()).find("was replaced"), std::string::npos) << e.what();
  }
}

TEST_F(StoreReplacedTest, AClientHoldingABlockStopsWithinItOnceTheSpareLoadSeesTheNewStore) {
  // Step 100, spare requested at half: the background load finds the store replaced, and the
  // rest of the block in hand is not handed out either (the new store will reach those values).
  SegmentClient old(*store_, "orders", {.initial_step = 100, .min_step = 1, .prefetch_at = 0.5});
  for (int i = 0; i < 10; ++i) old.next();
  delete_store(path_);
  recreate_and_draw(1);
  int handed = 10;
  bool refused = false;
  for (int i = 0; i < 200 && !refused; ++i) {
    try {
      old.next();
      ++handed;
      if (handed > 50) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } catch (const StoreReplaced&) {
      refused = true;
    }
  }
  EXPECT_TRUE(refused);
  EXPECT_LE(handed, 100) << "only values of the block taken before the store was replaced";
  EXPECT_THROW(old.next(), StoreReplaced);
  EXPECT_EQ(old.close(), 100 - handed) << "the rest of the block is lost, not handed out";
  EXPECT_EQ(blocks_of(*fresh_, "orders"), 1);
}

// --- two `idforge serve` processes on one store --------------------------------------------

struct HttpReply {
  int status = 0;
  std::string body;
};

// One GET on a fresh connection (Connection: close), read to the end.
HttpReply http_get(int port, const std::string& target) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  HttpReply r;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const std::string req =
        "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size())) {
      std::string all;
      char buf[4096];
      ssize_t got;
      while ((got = ::recv(fd, buf, sizeof buf, 0)) > 0) all.append(buf, got);
      std::smatch m;
      if (std::regex_search(all, m, std::regex(R"(^HTTP/1\.1 (\d+))"))) r.status = std::stoi(m[1]);
      const auto body = all.find("\r\n\r\n");
      if (body != std::string::npos) r.body = all.substr(body + 4);
    }
  }
  ::close(fd);
  return r;
}

struct Serve {
  test::Child child;
  int port = 0;
};

Serve start_serve(const std::string& store, const std::string& data, int node) {
  Serve s;
  s.child = test::spawn(IDFORGE_BINARY,
                        {"serve", "--port", "0", "--access-log", "off", "--node",
                         std::to_string(node), "--data", data, "--sequence-store", store});
  std::string line;
  char ch;
  while (::read(s.child.out_fd, &ch, 1) == 1 && ch != '\n') line += ch;
  std::smatch m;
  if (std::regex_search(line, m, std::regex(R"(http://127\.0\.0\.1:(\d+)/)")))
    s.port = std::stoi(m[1]);
  return s;
}

std::vector<std::int64_t> ids_of(const std::string& body) {
  std::vector<std::int64_t> out;
  const auto list = body.find("\"ids\":[");
  if (list == std::string::npos) return out;
  std::size_t i = list + 7;
  while (i < body.size() && body[i] != ']') {
    std::size_t used = 0;
    out.push_back(std::stoll(body.substr(i), &used));
    i += used;
    if (i < body.size() && body[i] == ',') ++i;
  }
  return out;
}

TEST(StoreReplacedServe, TwoServersRefuseAStoreDeletedAndMadeAgain) {
  const std::string dir = test::temp_dir();
  const std::string path = dir + "/seq.db", store = "sqlite:" + path;
  ASSERT_EQ(test::run_cli({"seq", "create", "orders", "--store", store, "--step", "10"}).exit_code,
            0);
  std::vector<Serve> servers;
  for (int i = 0; i < 2; ++i) {
    servers.push_back(start_serve(store, dir + "/data" + std::to_string(i), i + 1));
    ASSERT_GT(servers.back().port, 0) << "server " << i << " printed no URL";
  }
  std::set<std::int64_t> handed;
  for (auto& s : servers) {
    const HttpReply r = http_get(s.port, "/v1/sequences/orders?count=10");
    ASSERT_EQ(r.status, 200) << r.body;
    for (auto v : ids_of(r.body)) EXPECT_TRUE(handed.insert(v).second) << v << " twice";
  }
  // Each server loads its spare in the background after its first draw: wait for both, so
  // every block the servers hold lies below next_value.
  std::int64_t highest_taken = 0;
  {
    auto st = open_segment_store(store);
    for (int i = 0; i < 500 && st->stats().at(0).blocks < 4; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(st->stats().at(0).blocks, 4);
    highest_taken = st->stats().at(0).next_value;
  }
  delete_store(path);
  ASSERT_EQ(test::run_cli({"seq", "create", "orders", "--store", store, "--step", "10"}).exit_code,
            0);
  const auto fresh = test::run_cli({"seq", "next", "orders", "-n", "3", "--store", store});
  EXPECT_EQ(fresh.lines(), (std::vector<std::string>{"1", "2", "3"})) << fresh.err;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    // A server may finish the blocks it took before the store went (below highest_taken);
    // within those it finds the store replaced and refuses from then on.
    bool refused = false;
    for (int n = 0; n < 10 && !refused; ++n) {
      const HttpReply r = http_get(servers[i].port, "/v1/sequences/orders?count=5");
      if (r.status == 200) {
        for (auto v : ids_of(r.body)) {
          EXPECT_LT(v, highest_taken) << "server " << i << " took a block from the new store";
          EXPECT_TRUE(handed.insert(v).second) << v << " twice";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      EXPECT_EQ(r.status, 503) << r.body;
      EXPECT_NE(r.body.find("was replaced"), std::string::npos) << r.body;
      EXPECT_NE(r.body.find(path), std::string::npos) << r.body;
      refused = true;
    }
    EXPECT_TRUE(refused) << "server " << i << " kept serving a replaced store";
    EXPECT_EQ(http_get(servers[i].port, "/v1/sequences/orders").status, 503);
  }
  {
    auto st = open_segment_store(store);
    EXPECT_EQ(st->stats().at(0).blocks, 1) << "only the fresh `seq next` took a block";
  }
  for (auto& s : servers) {
    ::kill(s.child.pid, SIGTERM);
    EXPECT_EQ(test::finish_within(s.child, 20).code, 0);
  }
}

// --- PostgreSQL: tables dropped and made again under an open store --------------------------

class PgStoreReplacedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = test::PgInstance::unavailable_reason()) IDFORGE_SKIP_OR_FAIL(*why);
    pg_ = std::make_unique<test::PgInstance>();
    store_ = open_segment_store(pg_->url());
    store_->create("orders", 1, 10);
    ASSERT_EQ(store_->take("orders", 0).first, 1);
  }
  // Another client makes the store again (its tables, then the sequence) and takes a block.
  std::unique_ptr<SegmentStore> make_again() {
    auto fresh = open_segment_store(pg_->url());
    fresh->create("orders", 1, 10);
    EXPECT_EQ(fresh->take("orders", 0).first, 1) << "a store made again starts again";
    return fresh;
  }
  void expect_refused(const std::string& what) {
    try {
      const auto b = store_->take("orders", 0);
      ADD_FAILURE() << "took block " << b.first << " from a store made again";
    } catch (const StoreReplaced& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(store_->store_id()), std::string::npos) << e.what();
    }
    EXPECT_THROW(store_->report_abandoned("orders", 9), StoreReplaced);
    EXPECT_THROW(store_->create("invoices", 1, 10), StoreReplaced);
    EXPECT_THROW(store_->take("orders", 0), StoreReplaced) << "refused for good";
  }
  std::unique_ptr<test::PgInstance> pg_;
  std::unique_ptr<SegmentStore> store_;
};

TEST_F(PgStoreReplacedTest, BothTablesDroppedAndMadeAgainAreRefused) {
  test::run_sql(pg_->url(), "DROP TABLE idforge_segments, idforge_store");
  const auto fresh = make_again();
  expect_refused("holds store ID " + fresh->store_id());
  const auto rows = fresh->stats();
  ASSERT_EQ(rows.size(), 1u) << "the old store's refused create made nothing";
  EXPECT_EQ(rows[0].blocks, 1);
  EXPECT_EQ(rows[0].abandoned, 0);
}

TEST_F(PgStoreReplacedTest, TheSegmentTableDroppedAndMadeAgainIsRefused) {
  // The store ID row stays: the table's OID tells the new table from the old one.
  test::run_sql(pg_->url(), "DROP TABLE idforge_segments");
  const auto fresh = make_again();
  EXPECT_EQ(fresh->store_id(), store_->store_id());
  expect_refused("has another table idforge_segments");
}

TEST_F(PgStoreReplacedTest, ADroppedTableIsRefused) {
  test::run_sql(pg_->url(), "DROP TABLE idforge_segments");
  expect_refused("idforge_segments");
}

}  // namespace
}  // namespace idforge::ticket
