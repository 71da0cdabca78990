// `idforge serve` against faults of its lease store, as a process against a private Redis,
// etcd or lease folder. NeverDown: a Redis frozen past the TTL comes back by itself, and the
// layout's time field running out is a 503 with its cause, never a 500. StoreStateLost: a
// store that loses its state under a running server (docs/LEASES.md, "A store that lost
// its state"): Redis FLUSHALL, a Redis restart without persistence, a wiped etcd, and an
// `rm -rf` of the lease folder. A second server started right after takes the first one's
// node (nodes=1 leaves it no other), and the two must never issue the same ID. Before the
// generation record these gave 298,092, 282,100 and up to 172 duplicates.
//
// No timing is asserted: each wait is as long as the code under test may take, bounded
// only so that a hang ends the test.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "run_command.hpp"
#include "test_support.hpp"

namespace idforge::test {
namespace {

using namespace std::chrono_literals;

#define NEED_SERVE()                                                                          \
  if (std::string(IDFORGE_BINARY).empty() || run_idforge({"serve", "--help"}).exit_code != 0) \
  GTEST_SKIP() << "built without the server"

std::pair<long, std::string> get(int port, const std::string& path) {
  return http_get(port, path);
}

// One `idforge serve` with stderr joined to stdout, and its port once it listens.
struct Serve {
  std::unique_ptr<Child> child;
  int port = 0;
  std::string said;  // every line up to "listening on"
};

// `idforge serve` on port 0 with data, access log off, and args; env ("NAME=value ...",
// already quoted) is set for it alone.
Serve start_serve(const std::string& data, const std::vector<std::string>& args,
                  const std::string& env = "") {
  Serve s;
  std::string line = "exec env " + env + " '" + std::string(IDFORGE_BINARY) +
                     "' serve --port 0 --access-log off --data '" + data + "'";
  for (const std::string& a : args) line += " '" + a + "'";
  s.child = std::make_unique<Child>(std::vector<std::string>{"/bin/sh", "-c", line + " 2>&1"});
  const std::regex listening(R"(listening on http://127\.0\.0\.1:(\d+)/)");
  // Start-up may wait out one window (3 s here) of the lost state's holders, and more on a
  // loaded machine: read until it listens or exits.
  while (auto l = s.child->read_line(60s)) {
    s.said += *l + "\n";
    std::smatch m;
    if (std::regex_search(*l, m, listening)) {
      s.port = std::stoi(m[1]);
      break;
    }
  }
  return s;
}

Serve start_serve(const std::string& data, const std::string& store) {
  return start_serve(data, {"--lease-store", store});
}

// Asks one server for IDs until stopped, keeping every ID of every 200 answer.
class Poller {
 public:
  explicit Poller(int port) : thread_([this, port] { run(port); }) {}
  ~Poller() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::size_t issued() const { return count_.load(); }
  // Waits until at least n IDs were issued (false after limit).
  bool wait_for(std::size_t n, std::chrono::seconds limit) const {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (count_.load() < n && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(10ms);
    return count_.load() >= n;
  }
  std::vector<std::uint64_t> ids() {
    std::lock_guard lock(mu_);
    return ids_;
  }

 private:
  void run(int port) {
    while (!stop_) {
      const auto [status, body] = get(port, "/v1/ids/snowflake?count=1000");
      if (status != 200) {
        std::this_thread::sleep_for(5ms);
        continue;
      }
      std::vector<std::uint64_t> got;
      std::size_t at = 0;
      while (at < body.size()) {
        const std::size_t nl = body.find('\n', at);
        const std::string one = body.substr(at, nl == std::string::npos ? nl : nl - at);
        if (!one.empty()) got.push_back(std::stoull(one));
        if (nl == std::string::npos) break;
        at = nl + 1;
      }
      std::lock_guard lock(mu_);
      ids_.insert(ids_.end(), got.begin(), got.end());
      count_ += got.size();
    }
  }

  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> count_{0};
  std::mutex mu_;
  std::vector<std::uint64_t> ids_;
  std::thread thread_;
};

std::size_t common(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  const std::unordered_set<std::uint64_t> seen(a.begin(), a.end());
  return static_cast<std::size_t>(
      std::count_if(b.begin(), b.end(), [&](std::uint64_t id) { return seen.contains(id); }));
}

bool redis_command(const std::string& url, const char* command) {
  const std::string hp = url.substr(std::string("redis://").size());
  const int port = std::stoi(hp.substr(hp.find(':') + 1));
  redisContext* c = redisConnect("127.0.0.1", port);
  if (!c || c->err) {
    if (c) redisFree(c);
    return false;
  }
  auto* r = static_cast<redisReply*>(redisCommand(c, command));
  const bool ok = r && r->type != REDIS_REPLY_ERROR;
  if (r) freeReplyObject(r);
  redisFree(c);
  return ok;
}

// Server A holds node 0 and issues; lose() takes the store's state away; server B starts on
// the same store at once. Both are polled until B has issued plenty; no ID may repeat.
void expect_no_duplicates_after(const std::string& store, const std::function<void()>& lose,
                                const std::string& a_lost_words) {
  ScratchDir a_data, b_data;
  Serve a = start_serve(a_data.path(), store);
  ASSERT_GT(a.port, 0) << a.said;
  Poller pa(a.port);
  ASSERT_TRUE(pa.wait_for(20'000, 60s)) << "server A issued no IDs";
  lose();
  std::this_thread::sleep_for(110ms);
  Serve b = start_serve(b_data.path(), store);
  ASSERT_GT(b.port, 0) << b.said;
  Poller pb(b.port);
  ASSERT_TRUE(pb.wait_for(50'000, 60s)) << "server B issued no IDs after the store was lost";
  pa.stop();
  pb.stop();
  const auto ids_a = pa.ids(), ids_b = pb.ids();
  ::testing::Test::RecordProperty("ids_from_a", static_cast<int>(ids_a.size()));
  ::testing::Test::RecordProperty("ids_from_b", static_cast<int>(ids_b.size()));
  EXPECT_EQ(common(ids_a, ids_b), 0u)
      << ids_a.size() << " IDs from A, " << ids_b.size() << " from B";
  // A noticed: its renewal found the generation record gone, and it stopped issuing.
  const auto [ready, why] = get(a.port, "/readyz");
  EXPECT_EQ(ready, 503) << why;
  a.child->signal(SIGTERM);
  b.child->signal(SIGTERM);
  const std::string a_said = a.child->read_rest(20s);
  EXPECT_NE(a_said.find(a_lost_words), std::string::npos) << a_said;
  const std::string b_said = b.said + b.child->read_rest(20s);
  EXPECT_NE(b_said.find("store_state_lost"), std::string::npos) << b_said;
}

TEST(StoreStateLost, FlushallUnderARunningServerGivesNoDuplicates) {
  NEED_SERVE();
  PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  const std::string store = with_params(redis.url(), "nodes=1&ttl=3000");
  ASSERT_EQ(run_idforge({"lease", "init", "--store", store}).exit_code, 0);
  expect_no_duplicates_after(
      store, [&] { ASSERT_TRUE(redis_command(redis.url(), "FLUSHALL")); }, "store state lost");
}

// The holder need not be connected when the state goes: its connection closed (an idle
// `timeout` in redis.conf does the same between renewals), then FLUSHALL. A newcomer still
// waits a window: Redis cannot say who held what (found by an outside pass: 212,639
// duplicates when the newcomer trusted CLIENT LIST).
TEST(StoreStateLost, FlushallWhileTheHolderIsDisconnectedGivesNoDuplicates) {
  NEED_SERVE();
  PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  const std::string store = with_params(redis.url(), "nodes=1&ttl=3000");
  ASSERT_EQ(run_idforge({"lease", "init", "--store", store}).exit_code, 0);
  expect_no_duplicates_after(
      store,
      [&] {
        ASSERT_TRUE(redis_command(redis.url(), "CLIENT KILL TYPE normal"));
        ASSERT_TRUE(redis_command(redis.url(), "FLUSHALL"));
      },
      "store state lost");
}

// `lease init` refuses while it can see a holder: a Redis connection named for the prefix,
// or a live holder's socket for a lease folder (its folder deleted under it).
TEST(StoreStateLost, LeaseInitRefusesWhileAHolderIsSeen) {
  NEED_SERVE();
  PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  const std::string store = with_params(redis.url(), "nodes=1&ttl=3000");
  ASSERT_EQ(run_idforge({"lease", "init", "--store", store}).exit_code, 0);
  ScratchDir a_data, dir;
  const std::string folder = dir.path() + "/leases";
  const std::string file_store = "file:" + folder + "?nodes=1&ttl=3000";
  Serve a = start_serve(a_data.path(), store);
  ASSERT_GT(a.port, 0) << a.said;
  Serve f = start_serve(a_data.path() + "-f", file_store);
  ASSERT_GT(f.port, 0) << f.said;
  ASSERT_TRUE(redis_command(redis.url(), "FLUSHALL"));
  const auto redis_init = run_idforge({"lease", "init", "--store", store});
  EXPECT_EQ(redis_init.exit_code, 1) << redis_init.out;
  EXPECT_NE(redis_init.err.find("is connected"), std::string::npos) << redis_init.err;
  std::filesystem::remove_all(folder);
  const auto file_init = run_idforge({"lease", "init", "--store", file_store});
  EXPECT_EQ(file_init.exit_code, 1) << file_init.out;
  EXPECT_NE(file_init.err.find("holds a lease of"), std::string::npos) << file_init.err;
  a.child->signal(SIGTERM);
  f.child->signal(SIGTERM);
  (void)a.child->wait(20s);
  (void)f.child->wait(20s);
}

TEST(StoreStateLost, ARedisRestartWithoutPersistenceGivesNoDuplicates) {
  NEED_SERVE();
  PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  const std::string store = with_params(redis.url(), "nodes=1&ttl=3000");
  ASSERT_EQ(run_idforge({"lease", "init", "--store", store}).exit_code, 0);
  expect_no_duplicates_after(
      store,
      [&] {
        redis.signal(SIGKILL);
        ASSERT_TRUE(redis.start()) << "the private redis-server did not come back";
      },
      "store state lost");
}

TEST(StoreStateLost, TheLeaseFolderDeletedUnderARunningServerGivesNoDuplicates) {
  NEED_SERVE();
  ScratchDir dir;
  const std::string folder = dir.path() + "/leases";
  const std::string store = "file:" + folder + "?nodes=1&ttl=3000";
  expect_no_duplicates_after(
      store, [&] { std::filesystem::remove_all(folder); }, "no longer names the file");
}

// An etcd of the test's own (one member, on free ports) whose data directory a test may wipe.
class PrivateEtcd {
 public:
  PrivateEtcd() : client_(free_port()), peer_(free_port()) {}
  bool start() {
    const std::string etcd = find_program("etcd");
    if (etcd.empty()) return false;
    const std::string c = "http://127.0.0.1:" + std::to_string(client_);
    const std::string p = "http://127.0.0.1:" + std::to_string(peer_);
    child_ = std::make_unique<Child>(std::vector<std::string>{
        "/bin/sh", "-c",
        "exec '" + etcd + "' --name solo --data-dir '" + data() + "' --listen-client-urls " + c +
            " --advertise-client-urls " + c + " --listen-peer-urls " + p +
            " --initial-advertise-peer-urls " + p + " --initial-cluster solo=" + p +
            " --initial-cluster-state new --log-outputs '" + dir_.path() + "/etcd.log' " +
            "--logger zap >/dev/null 2>&1"});
    for (int i = 0; i < 600; ++i) {  // up to 60 s on a loaded machine
      if (get_health()) return true;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }
  // Kills it and deletes its data directory, as an operator wiping a member would.
  void kill_and_wipe() {
    child_->signal(SIGKILL);
    (void)child_->wait(10s);
    std::filesystem::remove_all(data());
  }
  std::string url() const { return "etcd://127.0.0.1:" + std::to_string(client_); }

 private:
  bool get_health() const {
    const auto [status, body] = get(client_, "/health");
    return status == 200 && body.find("true") != std::string::npos;
  }
  std::string data() const { return dir_.path() + "/data"; }
  ScratchDir dir_;
  int client_, peer_;
  std::unique_ptr<Child> child_;
};

TEST(StoreStateLost, AWipedEtcdDataDirectoryGivesNoDuplicates) {
  NEED_SERVE();
  PrivateEtcd etcd;
  if (!etcd.start()) IDFORGE_SKIP_OR_FAIL("could not start a private etcd");
  const std::string store = with_params(etcd.url(), "nodes=1&ttl=3000");
  ASSERT_EQ(run_idforge({"lease", "init", "--store", store}).exit_code, 0);
  expect_no_duplicates_after(
      store,
      [&] {
        etcd.kill_and_wipe();
        ASSERT_TRUE(etcd.start()) << "the private etcd did not come back";
      },
      "lease lost");
}

// With a second node ID free, the server whose node the newcomer took after the flush
// moves to it (one TTL after the loss) instead of staying down, and still repeats nothing.
TEST(StoreStateLost, AServerWhoseNodeWasTakenAfterAFlushMovesToAnotherNode) {
  NEED_SERVE();
  PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  const std::string store = with_params(redis.url(), "nodes=2&ttl=3000");
  ASSERT_EQ(run_idforge({"lease", "init", "--store", store}).exit_code, 0);
  ScratchDir a_data, b_data;
  Serve a = start_serve(a_data.path(), store);
  ASSERT_GT(a.port, 0) << a.said;
  Poller pa(a.port);
  ASSERT_TRUE(pa.wait_for(20'000, 60s)) << "server A issued no IDs";
  ASSERT_TRUE(redis_command(redis.url(), "FLUSHALL"));
  std::this_thread::sleep_for(110ms);
  Serve b = start_serve(b_data.path(), store);  // takes node 0, A's
  ASSERT_GT(b.port, 0) << b.said;
  Poller pb(b.port);
  ASSERT_TRUE(pb.wait_for(20'000, 60s)) << "server B issued no IDs";
  // A: lost, then on node 1 after one TTL and the window of the lost state.
  const std::size_t before = pa.issued();
  ASSERT_TRUE(pa.wait_for(before + 20'000, 60s)) << "server A never came back";
  pa.stop();
  pb.stop();
  EXPECT_EQ(common(pa.ids(), pb.ids()), 0u);
  EXPECT_EQ(get(a.port, "/readyz").first, 200);
  a.child->signal(SIGTERM);
  b.child->signal(SIGTERM);
  const std::string a_said = a.child->read_rest(20s);
  EXPECT_NE(a_said.find("lease_replaced"), std::string::npos) << a_said;
  EXPECT_NE(a_said.find("took node 1"), std::string::npos) << a_said;
}

// Polls /readyz until it answers want (false after limit); the last body in body.
bool readyz_becomes(int port, long want, std::chrono::seconds limit, std::string& body) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    const auto [status, text] = get(port, "/readyz");
    body = text;
    if (status == want) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

// Redis frozen (SIGSTOP) past the lease's TTL: the server says not ready, and once Redis
// answers again it is ready and issuing by itself (before, it stayed down for good).
TEST(NeverDown, ARedisFrozenPastTheTtlComesBackByItself) {
  NEED_SERVE();
  PrivateRedis redis;
  if (!redis.start()) IDFORGE_SKIP_OR_FAIL("could not start a private redis-server");
  const std::string store = with_params(redis.url(), "nodes=1&ttl=3000&timeout=500");
  ASSERT_EQ(run_idforge({"lease", "init", "--store", store}).exit_code, 0);
  ScratchDir data;
  Serve s = start_serve(data.path(), store);
  ASSERT_GT(s.port, 0) << s.said;
  std::string body;
  ASSERT_TRUE(readyz_becomes(s.port, 200, 60s, body)) << body;
  redis.signal(SIGSTOP);
  ASSERT_TRUE(readyz_becomes(s.port, 503, 60s, body)) << "ready although Redis is frozen";
  std::this_thread::sleep_for(4s);  // past the TTL: Redis frees the key once it runs again
  redis.signal(SIGCONT);
  ASSERT_TRUE(readyz_becomes(s.port, 200, 60s, body)) << "never came back: " << body;
  EXPECT_EQ(get(s.port, "/v1/ids/snowflake").first, 200);
  s.child->signal(SIGTERM);
  EXPECT_EQ(s.child->wait(20s), 0);
}

// A layout whose time field runs out two seconds after start: /readyz turns 503 with cause
// time-exhausted, and an ID request is a 503 of that type, never a 500.
TEST(NeverDown, TheTimeFieldRunningOutWhileServingIsA503WithItsCause) {
  NEED_SERVE();
  ScratchDir data;
  const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  // 20 bits of 1 ms ticks hold 1,048,576 ms: an epoch that long ago, less 2 s.
  const std::string layout = "time=20,dc=0,worker=31,seq=12,tick=1ms,epoch=" +
                             std::to_string(now_ms - (std::int64_t{1} << 20) + 2000);
  Serve c = start_serve(data.path(), {"--layout", layout});
  const int port = c.port;
  ASSERT_GT(port, 0) << c.said;
  std::string body;
  ASSERT_TRUE(readyz_becomes(port, 503, 60s, body)) << body;
  EXPECT_NE(body.find("\"cause\":\"time-exhausted\""), std::string::npos) << body;
  const auto [status, refusal] = get(port, "/v1/ids/snowflake");
  EXPECT_EQ(status, 503) << refusal;
  EXPECT_NE(refusal.find("time-exhausted"), std::string::npos) << refusal;
  const auto [m, metrics] = get(port, "/metrics");
  EXPECT_NE(metrics.find("idforge_not_ready{cause=\"time-exhausted\"} 1"), std::string::npos)
      << metrics;
  c.child->signal(SIGTERM);
  EXPECT_EQ(c.child->wait(20s), 0);
}

// The clock of a running server stepped back a minute (libfaketime, its offset read from a
// file on every call): /readyz turns 503 (the clock is behind the last ID, or the fence),
// every ID request is refused meanwhile, and it is ready again once the clock is back.
TEST(NeverDown, AClockSteppedBackAMinuteIsNotReadyAndComesBack) {
  NEED_SERVE();
  const char* faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
  if (!std::filesystem::exists(faketime)) IDFORGE_SKIP_OR_FAIL("libfaketime is not installed");
  ScratchDir data;
  const std::string offset = data.path() + "/offset";
  { std::ofstream(offset) << "+0s\n"; }
  Serve c = start_serve(data.path() + "/d", {},
                        "LD_PRELOAD=" + std::string(faketime) + " FAKETIME_TIMESTAMP_FILE='" +
                            offset + "' FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1");
  const int port = c.port;
  ASSERT_GT(port, 0) << c.said;
  std::string body;
  ASSERT_TRUE(readyz_becomes(port, 200, 60s, body)) << body;
  ASSERT_EQ(get(port, "/v1/ids/snowflake").first, 200);
  { std::ofstream(offset) << "-60s\n"; }
  ASSERT_TRUE(readyz_becomes(port, 503, 60s, body)) << "ready with the clock a minute back";
  EXPECT_TRUE(body.find("clock-behind") != std::string::npos ||
              body.find("lease-fenced") != std::string::npos)
      << body;
  EXPECT_EQ(get(port, "/v1/ids/snowflake").first, 503);
  { std::ofstream(offset) << "+0s\n"; }
  ASSERT_TRUE(readyz_becomes(port, 200, 60s, body)) << "never came back: " << body;
  EXPECT_EQ(get(port, "/v1/ids/snowflake").first, 200);
  c.child->signal(SIGTERM);
  EXPECT_EQ(c.child->wait(20s), 0);
}

// `lease init` on a store that has a record changes nothing, and says so.
TEST(StoreStateLost, LeaseInitCreatesTheRecordOnceAndSaysSo) {
  if (std::string(IDFORGE_BINARY).empty()) GTEST_SKIP() << "built without the CLI";
  ScratchDir dir;
  const std::string store = "file:" + dir.path() + "/leases";
  const auto first = run_idforge({"lease", "init", "--store", store, "--format", "json"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("\"created\":true"), std::string::npos) << first.out;
  const auto again = run_idforge({"lease", "init", "--store", store});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("exists already"), std::string::npos) << again.out;
}

}  // namespace
}  // namespace idforge::test
