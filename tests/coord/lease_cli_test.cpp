// Black-box tests of `idforge gen snowflake --node auto` and `idforge lease acquire|list`.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
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

TEST(LeaseCli, ServeSaysWhatStartUpWaitsForAndSigtermEndsItAtOnce) {
  NEED_CLI();
  if (run_idforge({"serve", "--help"}).exit_code != 0) GTEST_SKIP() << "built without the server";
  ScratchDir dir;
  write_mark(dir.path() + "/leases", 0, 8000);  // serve's file store waits up to 11 s
  write_mark(dir.path() + "/leases", 1, 8000);
  auto serve = spawn_joined({"serve", "--port", "0", "--access-log", "off", "--data", dir.path(),
                             "--lease-store", "file:" + dir.path() + "/leases?ttl=10000&nodes=1"});
  const auto line = serve->read_line(2s);
  ASSERT_TRUE(line) << "nothing said within 2 s of an 8 s wait";
  EXPECT_NE(line->find("idforge serve: node 0: waiting"), std::string::npos) << *line;
  const auto t0 = std::chrono::steady_clock::now();
  serve->signal(SIGTERM);
  const auto code = serve->wait(2s);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s)
      << "SIGTERM waited for the start-up wait to end";
  EXPECT_EQ(code, 0);
  const std::string rest = serve->read_rest(1s);
  EXPECT_NE(rest.find("stopped by SIGTERM during start-up; nothing was issued"), std::string::npos)
      << rest;
  EXPECT_EQ(rest.find("listening"), std::string::npos) << rest;
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
  std::string out;
  if (FILE* p = popen(("curl -s -m 5 -H 'Accept: text/plain' '" + url + "'").c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  return out;
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
  if (!std::filesystem::exists(kFaketime)) {
    if (std::getenv("IDFORGE_REQUIRE_SERVICES") != nullptr) FAIL() << "libfaketime missing";
    GTEST_SKIP() << "libfaketime missing: " << kFaketime;
  }
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
