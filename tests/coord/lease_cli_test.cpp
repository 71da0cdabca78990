// Black-box tests of `idforge gen snowflake --node auto` and `idforge lease acquire|list`.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>

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
  const auto first = run_idforge({"gen", "snowflake", "--node", "auto", "--lease-store", store, "-n", "1000"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto second = run_idforge({"gen", "snowflake", "--node", "auto", "--lease-store", store, "-n", "3"});
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
  Child holder({IDFORGE_BINARY, "lease", "acquire", "--store", store, "--layout", "discord", "--format", "json"});
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

}  // namespace
}  // namespace idforge::test
