// Black-box tests of `idforge gen snowflake --node auto` and `idforge lease acquire|list`.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "run_command.hpp"
#include "test_support.hpp"

namespace idforge::test {
namespace {

using namespace std::chrono_literals;

#define NEED_CLI() \
  if (std::string(IDFORGE_BINARY).empty()) GTEST_SKIP() << "built without the CLI"

TEST(LeaseCli, GenWithNodeAutoLeasesAndIssuesAboveTheLastRun) {
  NEED_CLI();
  ScratchDir dir;
  const std::string store = "file:" + dir.path();
  const auto first =
      run_idforge({"gen", "snowflake", "--node", "auto", "--lease-store", store, "-n", "1000"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto second =
      run_idforge({"gen", "snowflake", "--node", "auto", "--lease-store", store, "-n", "3"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_GT(std::stoull(second.lines().at(0)), std::stoull(first.lines().back()));
}

TEST(LeaseCli, GenWithAnUnreachableStoreFailsNamingIt) {
  NEED_CLI();
  const std::string store = "redis://127.0.0.1:" + std::to_string(free_port());
  const auto r = run_idforge({"gen", "snowflake", "--node", "auto", "--lease-store", store});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("store unreachable (" + store + ")"), std::string::npos) << r.err;
  const auto bad = run_idforge({"gen", "snowflake", "--node", "sometimes"});
  EXPECT_NE(bad.err.find("expected a node number or 'auto'"), std::string::npos) << bad.err;
}

TEST(LeaseCli, AcquireHoldsUntilSigtermAndListShowsTheHolder) {
  NEED_CLI();
  ScratchDir dir;
  const std::string store = "file:" + dir.path();
  Child holder({IDFORGE_BINARY, "lease", "acquire", "--store", store, "--layout", "discord",
                "--format", "json"});
  const auto line = holder.read_line(10s);
  ASSERT_TRUE(line);
  EXPECT_NE(line->find(R"("node":0)"), std::string::npos) << *line;
  const auto list = run_idforge({"lease", "list", "--store", store, "--layout", "discord"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(std::to_string(holder.pid())), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("1 node ID held in " + store), std::string::npos) << list.out;
  holder.signal(SIGTERM);
  EXPECT_EQ(holder.wait(10s), 0);
  const auto after = run_idforge({"lease", "list", "--store", store, "--format", "json"});
  EXPECT_EQ(after.out, "[]\n");
}

TEST(LeaseCli, AcquireWithHoldReleasesByItself) {
  NEED_CLI();
  ScratchDir dir;
  const auto r = run_idforge({"lease", "acquire", "--store", "static:3/7", "--hold", "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("node 103 (datacenter 3, worker 7)"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("released node 103"), std::string::npos) << r.err;
}

TEST(LeaseCli, ListOfADirectoryThatDoesNotExistFails) {
  NEED_CLI();
  const auto r = run_idforge({"lease", "list", "--store", "file:/nonexistent/idforge-leases"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/idforge-leases"), std::string::npos) << r.err;
}

// The same node ID configured twice on one host: the second refuses, naming the holder.
TEST(LeaseCli, TheSameFixedNodeTwiceIsRefused) {
  NEED_CLI();
  ScratchDir dir;
  Child holder({IDFORGE_BINARY, "lease", "acquire", "--store", "static:5?state=" + dir.path()});
  ASSERT_TRUE(holder.read_line(10s));
  const auto r =
      run_idforge({"gen", "snowflake", "--node", "5", "--lease-store", "file:" + dir.path()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("node 5 is locked"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::to_string(holder.pid())), std::string::npos) << r.err;
  holder.signal(SIGTERM);
  EXPECT_EQ(holder.wait(10s), 0);
  EXPECT_EQ(run_idforge({"gen", "snowflake", "--node", "5", "--lease-store", "file:" + dir.path()})
                .exit_code,
            0);
}

std::string write_mark(const std::string& dir, int node, std::int64_t ms_from_now) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/node-" + std::to_string(node) + ".mark";
  std::ofstream(path) << now + ms_from_now << "\n";
  return path;
}

TEST(LeaseCli, AFarFutureMarkOnNodeZeroMovesALeasedNodeOnAndSaysWhy) {
  NEED_CLI();
  ScratchDir dir;
  write_mark(dir.path(), 0, 86'400'000);
  const auto r =
      run_idforge({"gen", "snowflake", "--node", "auto", "--lease-store", "file:" + dir.path(),
                   "--layout", "twitter", "-n", "3", "--format", "dec"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("node 0 passed over: its high-water mark"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("took node 1"), std::string::npos) << r.err;
  ASSERT_EQ(r.lines().size(), 3u);
  EXPECT_EQ((std::stoull(r.lines()[0]) >> 12) & 1023, 1u);  // node 1
  const auto fixed =
      run_idforge({"gen", "snowflake", "--node", "0", "--lease-store", "file:" + dir.path()});
  EXPECT_EQ(fixed.exit_code, 1);
  EXPECT_NE(fixed.err.find("behind the high-water mark"), std::string::npos) << fixed.err;
}

// Runs the binary with stderr joined to stdout, to read both as they come.
std::unique_ptr<Child> spawn_joined(const std::vector<std::string>& args) {
  std::string line = "exec '" + std::string(IDFORGE_BINARY) + "'";
  for (const auto& a : args) line += " '" + a + "'";
  return std::make_unique<Child>(std::vector<std::string>{"/bin/sh", "-c", line + " 2>&1"});
}

// After kill -9 (or with the clock behind the mark) start-up waits: it says what for and
// how long, and SIGTERM ends it at once, before anything is issued.
TEST(LeaseCli, GenSaysWhatStartUpWaitsForAndSigtermEndsItAtOnce) {
  NEED_CLI();
  ScratchDir dir;
  write_mark(dir.path(), 0, 3000);  // the file store's start-up waits up to 4 s
  auto gen = spawn_joined(
      {"gen", "snowflake", "--node", "auto", "--lease-store", "file:" + dir.path() + "?nodes=1"});
  const auto line = gen->read_line(1500ms);
  ASSERT_TRUE(line) << "nothing said within 1.5 s of a 3 s wait";
  EXPECT_NE(line->find("node 0: waiting"), std::string::npos) << *line;
  EXPECT_NE(line->find("high-water mark"), std::string::npos) << *line;
  const auto t0 = std::chrono::steady_clock::now();
  gen->signal(SIGTERM);
  EXPECT_EQ(gen->wait(1s), 128 + SIGTERM);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_EQ(gen->read_rest(1s), "") << "issued IDs";
}

// While it waits, serve already answers: /healthz alive, /readyz 503 saying what for, so a
// liveness probe does not restart a start-up that only waits for the clock.
TEST(LeaseCli, ServeSaysWhatStartUpWaitsForServesHealthMeanwhileAndSigtermEndsIt) {
  NEED_CLI();
  if (run_idforge({"serve", "--help"}).exit_code != 0) GTEST_SKIP() << "built without the server";
  ScratchDir dir;
  write_mark(dir.path() + "/leases", 0, 8000);  // serve's file store waits up to 11 s
  write_mark(dir.path() + "/leases", 1, 8000);
  auto serve = spawn_joined({"serve", "--port", "0", "--access-log", "off", "--data", dir.path(),
                             "--lease-store", "file:" + dir.path() + "/leases?ttl=10000&nodes=1"});
  const auto line = serve->read_line(5s);
  ASSERT_TRUE(line) << "nothing said within 5 s of an 8 s wait";
  EXPECT_NE(line->find("idforge serve: node 0: waiting"), std::string::npos) << *line;
  const auto listening = serve->read_line(5s);
  ASSERT_TRUE(listening);
  const auto at = listening->find("http://127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << *listening;
  const int port = std::stoi(listening->substr(at + 17));
  EXPECT_EQ(http_get(port, "/healthz").first, 200);
  const auto [ready, why] = http_get(port, "/readyz");
  EXPECT_EQ(ready, 503);
  EXPECT_NE(why.find("\"cause\":\"waiting-for-clock\""), std::string::npos) << why;
  EXPECT_NE(why.find("high-water mark"), std::string::npos) << why;
  const auto [ids, refusal] = http_get(port, "/v1/ids/snowflake");
  EXPECT_EQ(ids, 503) << refusal;
  const auto t0 = std::chrono::steady_clock::now();
  serve->signal(SIGTERM);
  const auto code = serve->wait(5s);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s)
      << "SIGTERM waited for the start-up wait to end";
  EXPECT_EQ(code, 0);
  const std::string rest = serve->read_rest(1s);
  EXPECT_NE(rest.find("stopped by SIGTERM during start-up; nothing was issued"), std::string::npos)
      << rest;
}

// The first `lines` lines a starting serve prints (at most 30 s each), and the port of its
// "listening on" line (0 when none came).
std::pair<int, std::string> start_lines(Child& serve, int lines) {
  std::pair<int, std::string> out{0, ""};
  for (int i = 0; i < lines; ++i) {
    const auto l = serve.read_line(30s);
    if (!l) break;
    out.second += *l + "\n";
    if (const auto at = l->find("http://127.0.0.1:"); at != std::string::npos)
      out.first = std::stoi(l->substr(at + 17));
  }
  return out;
}

// GETs path every 50 ms until it answers `want`, for at most 30 s; the last status.
long poll_until(int port, const std::string& path, long want) {
  long status = 0;
  for (int i = 0; i < 600 && status != want; ++i) {
    status = http_get(port, path).first;
    if (status != want) std::this_thread::sleep_for(50ms);
  }
  return status;
}

// A server with no node ID free (a spare) or a store that does not answer at start used to
// exit, down until something outside restarted it. Now it serves /healthz, says on /readyz
// what it waits for, and takes the node ID once its holder lets go.
TEST(LeaseCli, ServeWithNoNodeIdFreeWaitsNotReadyAndTakesOneOnceItIsFreed) {
  NEED_CLI();
  if (run_idforge({"serve", "--help"}).exit_code != 0) GTEST_SKIP() << "built without the server";
  ScratchDir dir;
  const std::string store = "file:" + dir.path() + "/shared?ttl=3000&nodes=1";
  auto first = spawn_joined({"serve", "--port", "0", "--access-log", "off", "--data",
                             dir.path() + "/a", "--lease-store", store});
  const auto [first_port, first_said] = start_lines(*first, 1);
  ASSERT_NE(first_port, 0) << first_said;
  auto spare = spawn_joined({"serve", "--port", "0", "--access-log", "off", "--data",
                             dir.path() + "/b", "--lease-store", store});
  const auto [port, said] = start_lines(*spare, 2);
  ASSERT_NE(port, 0) << said;
  EXPECT_NE(said.find("no node ID yet: node-ID space full"), std::string::npos) << said;
  EXPECT_NE(said.find("trying again every 500 ms"), std::string::npos) << said;
  EXPECT_EQ(http_get(port, "/healthz").first, 200);
  const auto [ready, why] = http_get(port, "/readyz");
  EXPECT_EQ(ready, 503);
  EXPECT_NE(why.find("\"cause\":\"waiting-for-node\""), std::string::npos) << why;
  EXPECT_EQ(http_get(port, "/v1/ids/snowflake").first, 503);
  first->signal(SIGTERM);
  ASSERT_EQ(first->wait(30s), 0);
  // Ready once it took the freed node ID: as long as that takes, within the test's bound.
  EXPECT_EQ(poll_until(port, "/readyz", 200), 200) << "the spare never took the freed node ID";
  EXPECT_EQ(http_get(port, "/v1/ids/snowflake").first, 200);
  spare->signal(SIGTERM);
  EXPECT_EQ(spare->wait(30s), 0);
}

// Found on the namespace cluster: a spare whose clock ran 2 s behind found the only free node
// freed by a host 3 s ahead, its mark further ahead than start-up waits, and exited. Now it
// waits, not ready, and takes the node once its clock is near enough to wait out the rest.
TEST(LeaseCli, ServeWhoseClockIsFarBehindEveryFreeMarkWaitsAndTakesTheNodeLater) {
  NEED_CLI();
  if (run_idforge({"serve", "--help"}).exit_code != 0) GTEST_SKIP() << "built without the server";
  ScratchDir dir;
  const std::int64_t ahead_ms = 6500;  // start-up waits at most 4 s (ttl 3000 + 1 s)
  write_mark(dir.path() + "/shared", 0, ahead_ms);
  const auto t0 = std::chrono::system_clock::now();
  auto serve =
      spawn_joined({"serve", "--port", "0", "--access-log", "off", "--data", dir.path() + "/a",
                    "--lease-store", "file:" + dir.path() + "/shared?ttl=3000&nodes=1"});
  const auto [port, said] = start_lines(*serve, 2);
  ASSERT_NE(port, 0) << said;
  EXPECT_NE(said.find("no node ID yet: every free node ID in"), std::string::npos) << said;
  EXPECT_EQ(http_get(port, "/readyz").first, 503);
  ASSERT_EQ(poll_until(port, "/readyz", 200), 200)
      << "never took the node once its clock came near the mark";
  EXPECT_GE(std::chrono::system_clock::now() - t0, std::chrono::milliseconds(ahead_ms))
      << "ready before the clock passed the mark";
  EXPECT_EQ(http_get(port, "/v1/ids/snowflake").first, 200);
  serve->signal(SIGTERM);
  EXPECT_EQ(serve->wait(30s), 0);
}

// Found on the namespace cluster: a server that lost node A, took node B in its place, lost
// B and was given A back ended with "terminate called": its own data-folder lock of A,
// still held, refused A from a second open file, on the replacement's thread. Now the lock
// is the process's, shared, and the server serves from A again.
TEST(LeaseCli, ServeGivenBackANodeItLostEarlierServesFromIt) {
  NEED_CLI();
  if (run_idforge({"serve", "--help"}).exit_code != 0) GTEST_SKIP() << "built without the server";
  ScratchDir dir;
  const std::string folder = dir.path() + "/shared";
  const std::string store = "file:" + folder + "?ttl=1500&nodes=2";
  // Both names of node N's lock gone: the next acquire of N is a newcomer's, and the holder
  // finds its lease lost at its next renewal.
  const auto unlink_lock = [&](int node) {
    const std::string base = "node-" + std::to_string(node) + ".lock";
    for (const auto& e : std::filesystem::directory_iterator(folder))
      if (e.path().filename().string().rfind(base, 0) == 0) std::filesystem::remove(e.path());
  };
  const auto take = [&](int node) {
    auto h = std::make_unique<Child>(std::vector<std::string>{IDFORGE_BINARY, "lease", "acquire",
                                                              "--store", store, "--layout",
                                                              "twitter", "--format", "json"});
    const auto line = h->read_line(30s);
    EXPECT_TRUE(line && line->find("\"node\":" + std::to_string(node)) != std::string::npos)
        << line.value_or("(nothing)");
    return h;
  };
  auto serve = spawn_joined({"serve", "--port", "0", "--access-log", "off", "--data",
                             dir.path() + "/a", "--lease-store", store});
  const auto line = serve->read_line(30s);
  ASSERT_TRUE(line && line->find("http://127.0.0.1:") != std::string::npos)
      << line.value_or("(nothing)");
  const int port = std::stoi(line->substr(line->find("http://127.0.0.1:") + 17));
  const auto node_served = [&] {
    const auto [status, body] = http_get(port, "/v1/ids/snowflake");
    return status == 200 ? static_cast<int>((std::stoull(body) >> 12) & 1023) : -1;
  };
  ASSERT_EQ(node_served(), 0);
  auto other = take(1);  // node 1 held elsewhere
  unlink_lock(0);
  auto newcomer = take(0);  // node 0 taken from the server: lost; all held, nothing to move to
  other->signal(SIGTERM);   // node 1 free: the server moves to it after one TTL
  ASSERT_EQ(other->wait(30s), 0);
  int node = -1;
  for (int i = 0; i < 600 && node != 1; ++i) {
    node = node_served();
    if (node != 1) std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(node, 1) << "never moved to the free node 1";
  unlink_lock(1);
  auto second = take(1);      // node 1 taken from it too
  newcomer->signal(SIGTERM);  // node 0 free again: the server is given back its first node
  ASSERT_EQ(newcomer->wait(30s), 0);
  node = -1;
  for (int i = 0; i < 600 && node != 0; ++i) {
    node = node_served();
    if (node != 0) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(node, 0) << "never served from node 0 again: " << serve->read_rest(1s);
  EXPECT_FALSE(serve->wait(0s).has_value()) << "the server ended: " << serve->read_rest(1s);
  second->signal(SIGTERM);
  EXPECT_EQ(second->wait(30s), 0);
  serve->signal(SIGTERM);
  EXPECT_EQ(serve->wait(30s), 0);
}

// A store that does not listen at start: the same wait, saying why, and SIGTERM ends it.
TEST(LeaseCli, ServeWithAStoreThatRefusesConnectionsWaitsAndSigtermEndsIt) {
  NEED_CLI();
  if (run_idforge({"serve", "--help"}).exit_code != 0) GTEST_SKIP() << "built without the server";
  ScratchDir dir;
  const std::string store = "redis://127.0.0.1:" + std::to_string(free_port()) + "?ttl=3000";
  auto serve = spawn_joined({"serve", "--port", "0", "--access-log", "off", "--data", dir.path(),
                             "--lease-store", store});
  const auto [port, said] = start_lines(*serve, 2);
  EXPECT_NE(port, 0) << said;
  EXPECT_NE(said.find("no node ID yet: store unreachable (" + store + ")"), std::string::npos)
      << said;
  serve->signal(SIGTERM);
  EXPECT_EQ(serve->wait(30s), 0);
  const std::string rest = serve->read_rest(1s);
  EXPECT_NE(rest.find("stopped by SIGTERM during start-up; nothing was issued"), std::string::npos)
      << rest;
}

TEST(LeaseCli, ServeWithTheSameFixedNodeTwiceOnOneDataFolderIsRefused) {
  NEED_CLI();
  if (run_idforge({"serve", "--help"}).exit_code != 0) GTEST_SKIP() << "built without the server";
  ScratchDir dir;
  auto first = spawn_joined(
      {"serve", "--port", "0", "--access-log", "off", "--data", dir.path(), "--node", "3"});
  const auto line = first->read_line(10s);
  ASSERT_TRUE(line && line->find("listening") != std::string::npos) << line.value_or("(nothing)");
  auto second = spawn_joined(
      {"serve", "--port", "0", "--access-log", "off", "--data", dir.path(), "--node", "3"});
  const std::string said = second->read_rest(10s);  // a second server would keep running: bounded
  EXPECT_EQ(second->wait(1s), 1) << said;
  EXPECT_NE(said.find("node 3 is locked"), std::string::npos) << said;
  EXPECT_EQ(said.find("listening"), std::string::npos) << said;
  first->signal(SIGTERM);
  EXPECT_EQ(first->wait(10s), 0);
}

// A FIFO where the mark belongs hung every command in open(); now each refuses at once,
// in one line naming the path and what it is.
TEST(LeaseCli, AFifoAsTheMarkEndsGenLeaseAndServeAtOnce) {
  NEED_CLI();
  ScratchDir dir;
  // serve's own lease folder under --data, which gen and lease acquire are pointed at too
  const std::string leases = dir.path() + "/leases";
  std::filesystem::create_directory(leases);
  const std::string mark = leases + "/node-0.mark";
  ASSERT_EQ(mkfifo(mark.c_str(), 0644), 0);
  const std::string store = "file:" + leases;
  std::vector<std::vector<std::string>> runs = {
      {"gen", "snowflake", "--node", "0", "--lease-store", store, "-n", "1"},
      {"lease", "acquire", "--store", store, "--hold", "0"}};
  if (run_idforge({"serve", "--help"}).exit_code == 0)
    runs.push_back(
        {"serve", "--port", "0", "--access-log", "off", "--data", dir.path(), "--node", "0"});
  for (const auto& args : runs) {
    const auto r = run_idforge(args, {}, StdoutTo::pipe, std::chrono::seconds(20));
    EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(mark + " is a FIFO (named pipe), not a regular file"), std::string::npos)
        << args[0] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// A TCP port that takes connections (the kernel's backlog) and never answers: a store
// request to it waits for its whole timeout.
class SilentPort {
 public:
  SilentPort() { fd_ = listen_on_loopback(port_); }
  ~SilentPort() {
    for (const int a : accepted_) close(a);
    close(fd_);
  }
  int port() const { return port_; }
  /// Whether a client connected within timeout (it is then waiting for an answer).
  bool connected(std::chrono::milliseconds timeout) const {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.count())) != 1) return false;
    // Taken off the backlog (and never answered), so the next client is seen afresh.
    accepted_.push_back(accept(fd_, nullptr, nullptr));
    return true;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
  mutable std::vector<int> accepted_;
};

// A store that does not answer holds start-up up to its timeout (a minute here); SIGTERM
// meanwhile ends `lease acquire` and `serve` at once instead of being held blocked.
TEST(LeaseCli, SigtermEndsAStartUpWaitingOnAStoreThatDoesNotAnswer) {
  NEED_CLI();
  SilentPort silent;
  const std::string store =
      "redis://127.0.0.1:" + std::to_string(silent.port()) + "?ttl=200000&timeout=60000";
  ScratchDir dir;
  std::vector<std::vector<std::string>> runs = {{"lease", "acquire", "--store", store}};
  if (run_idforge({"serve", "--help"}).exit_code == 0)
    runs.push_back({"serve", "--port", "0", "--access-log", "off", "--data", dir.path(),
                    "--lease-store", store});
  for (const auto& args : runs) {
    auto child = spawn_joined(args);
    ASSERT_TRUE(silent.connected(10s)) << args[0] << " never asked the store";
    const auto t0 = std::chrono::steady_clock::now();
    child->signal(SIGTERM);
    const auto code = child->wait(5s);
    EXPECT_TRUE(code.has_value()) << args[0] << " still waits on the store after SIGTERM";
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s) << args[0];
    const std::string said = child->read_rest(1s);
    EXPECT_EQ(said.find("listening"), std::string::npos) << said;
  }
}

// Another epoch on the same node and store would reissue the first run's IDs: refused,
// naming both layouts. An epoch that puts every new ID above the old ones is allowed.
TEST(LeaseCli, ALayoutWhoseIdsCanCoincideOnTheSameNodeAndStoreIsRefused) {
  NEED_CLI();
  ScratchDir dir;
  const std::string store = "file:" + dir.path();
  const auto first =
      run_idforge({"gen", "snowflake", "--node", "9", "--lease-store", store, "-n", "1000"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto later = run_idforge({"gen", "snowflake", "--node", "9", "--lease-store", store,
                                  "--layout", "twitter,epoch=1288921374657", "-n", "1"});
  EXPECT_EQ(later.exit_code, 1);
  EXPECT_TRUE(later.out.empty()) << later.out;
  EXPECT_NE(later.err.find("epoch=1288834974657"), std::string::npos) << later.err;
  EXPECT_NE(later.err.find("epoch=1288921374657"), std::string::npos) << later.err;
  EXPECT_NE(later.err.find("IDs of the two layouts can coincide"), std::string::npos) << later.err;
  const auto earlier = run_idforge({"gen", "snowflake", "--node", "9", "--lease-store", store,
                                    "--layout", "twitter,epoch=1288748574657", "-n", "1"});
  ASSERT_EQ(earlier.exit_code, 0) << earlier.err;
  EXPECT_GT(std::stoull(earlier.lines().at(0)), std::stoull(first.lines().back()));
}

// static:N and ordinal: keep their lock and high-water mark in the data folder, as a fixed
// --node does: a restart with the clock behind refuses instead of issuing the same IDs again,
// and the node configured twice on one data folder is refused.
const char* kFaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

// Runs the binary in dir (the folder .data/leases is relative to), with env ("NAME=value")
// and stderr joined to stdout.
std::unique_ptr<Child> spawn_in(const std::string& dir, const std::vector<std::string>& env,
                                const std::vector<std::string>& args) {
  std::string line = "cd '" + dir + "' && exec env";
  for (const auto& e : env) line += " '" + e + "'";
  line += " '" + std::string(IDFORGE_BINARY) + "'";
  for (const auto& a : args) line += " '" + a + "'";
  return std::make_unique<Child>(std::vector<std::string>{"/bin/sh", "-c", line + " 2>&1"});
}

std::vector<std::string> clock_back_a_minute() {
  return {std::string("LD_PRELOAD=") + kFaketime, "FAKETIME=-60s", "FAKETIME_DONT_FAKE_MONOTONIC=1",
          "FAKETIME_NO_CACHE=1"};
}

// The body curl fetched from url (plain text), or "" on failure.
std::string http_get_text(const std::string& url) {
  return run({find_program("curl"), "-s", "-m", "5", "-H", "Accept: text/plain", url}, {},
             std::chrono::seconds(30))
      .out;
}

std::int64_t read_mark(const std::string& path) {
  std::ifstream in(path);
  std::int64_t mark = -1;
  in >> mark;
  return mark;
}

TEST(LeaseCli, GenWithAStaticNodeKeepsItsMarkAndRefusesARestartWithTheClockBehind) {
  NEED_CLI();
  ScratchDir dir;
  auto first =
      spawn_in(dir.path(), {}, {"gen", "snowflake", "--lease-store", "static:9", "-n", "20000"});
  std::vector<std::uint64_t> ids;
  while (const auto line = first->read_line(10s)) ids.push_back(std::stoull(*line));
  ASSERT_EQ(first->wait(10s), 0);
  ASSERT_EQ(ids.size(), 20000u);
  const std::int64_t last_ms = static_cast<std::int64_t>(ids.back() >> 22) + 1288834974657;
  EXPECT_EQ((ids.back() >> 12) & 1023, 9u);
  const std::string mark_path = dir.path() + "/.data/leases/node-9.mark";
  ASSERT_TRUE(std::filesystem::exists(mark_path)) << "static:9 kept no high-water mark";
  EXPECT_GE(read_mark(mark_path), last_ms);

  // The clock behind the stored mark by far more than start-up waits: refused, nothing out.
  write_mark(dir.path() + "/.data/leases", 9, 86'400'000);
  auto behind = spawn_in(dir.path(), {}, {"gen", "snowflake", "--lease-store", "static:9"});
  const std::string said = behind->read_rest(10s);
  EXPECT_EQ(behind->wait(1s), 1) << said;
  EXPECT_NE(said.find("behind the high-water mark"), std::string::npos) << said;
  // An explicit state= still wins: a folder of its own, no mark there yet.
  ScratchDir other;
  auto own = spawn_in(dir.path(), {},
                      {"gen", "snowflake", "--lease-store", "static:9?state=" + other.path()});
  EXPECT_FALSE(own->read_rest(10s).empty());
  EXPECT_EQ(own->wait(1s), 0);
  EXPECT_TRUE(std::filesystem::exists(other.path() + "/node-9.mark"));
}

TEST(LeaseCli, ServeWithAStaticNodeRestartedWithTheClockBehindRefusesToIssue) {
  NEED_CLI();
  if (run_idforge({"serve", "--help"}).exit_code != 0) GTEST_SKIP() << "built without the server";
  if (!std::filesystem::exists(kFaketime))
    IDFORGE_SKIP_OR_FAIL(std::string("libfaketime missing: ") + kFaketime);
  ScratchDir dir;
  const std::vector<std::string> serve = {"serve",        "--port",        "0",
                                          "--access-log", "off",           "--data",
                                          dir.path(),     "--lease-store", "static:9"};
  auto first = spawn_in(dir.path(), {}, serve);
  const auto line = first->read_line(10s);
  ASSERT_TRUE(line && line->find("listening on ") != std::string::npos)
      << line.value_or("(nothing)");
  const std::string base = line->substr(line->find("listening on ") + 13);
  const std::string ids = http_get_text(base + "v1/ids/snowflake?count=1000");
  std::uint64_t last = 0;
  for (std::size_t at = 0, nl; (nl = ids.find('\n', at)) != std::string::npos; at = nl + 1)
    last = std::max<std::uint64_t>(last, std::stoull(ids.substr(at, nl - at)));
  ASSERT_NE(last, 0u) << ids;
  // The same node configured twice on one data folder: the second refuses, naming the lock.
  auto twice = spawn_in(dir.path(), {}, serve);
  const std::string twice_said = twice->read_rest(10s);
  EXPECT_EQ(twice->wait(1s), 1) << twice_said;
  EXPECT_NE(twice_said.find("node 9 is locked"), std::string::npos) << twice_said;
  first->signal(SIGTERM);
  ASSERT_EQ(first->wait(10s), 0);
  ASSERT_TRUE(std::filesystem::exists(dir.path() + "/leases/node-9.mark"))
      << "serve --lease-store static:9 kept no high-water mark in its data folder";
  EXPECT_GE(read_mark(dir.path() + "/leases/node-9.mark"),
            static_cast<std::int64_t>(last >> 22) + 1288834974657);

  auto behind = spawn_in(dir.path(), clock_back_a_minute(), serve);
  const std::string said = behind->read_rest(15s);
  EXPECT_EQ(behind->wait(1s), 1) << said;
  EXPECT_EQ(said.find("listening"), std::string::npos) << said;
  EXPECT_NE(said.find("behind the high-water mark"), std::string::npos) << said;
}

}  // namespace
}  // namespace idforge::test
