// A restart with the clock set back, on the real binary: the clock is moved by libfaketime
// (LD_PRELOAD), the node ID and its high-water mark come from a file: lease store that
// holds one node ID, so the second run gets the same node ID as the first.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "idforge/snowflake.hpp"
#include "run_command.hpp"
#include "services.hpp"

namespace idforge {
namespace {

using test::run_idforge;

const char* kFaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

bool coord_built() {
  return run_idforge({"lease", "--help"}).exit_code == 0;
}

class RestartClockBack : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!coord_built()) GTEST_SKIP() << "idforge built without leases (IDFORGE_BUILD_COORD=OFF)";
    if (!std::filesystem::exists(kFaketime))
      IDFORGE_SKIP_OR_FAIL(std::string("libfaketime missing: ") + kFaketime);
    char tmpl[] = "/tmp/idforge-restart-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    store_ = "file:" + dir_ + "?nodes=1&ttl=1000";
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::vector<std::string> faketime(const char* offset) const {
    return {std::string("LD_PRELOAD=") + kFaketime, std::string("FAKETIME=") + offset,
            "FAKETIME_DONT_FAKE_MONOTONIC=1", "FAKETIME_NO_CACHE=1"};
  }
  std::string dir_, store_;
};

std::uint64_t max_id(const test::CommandResult& r) {
  std::uint64_t m = 0;
  for (const auto& l : r.lines()) m = std::max<std::uint64_t>(m, std::stoull(l));
  return m;
}

TEST_F(RestartClockBack, TenSecondsBackRefusesAndIssuesNothing) {
  const auto first =
      run_idforge({"gen", "snowflake", "-n", "20000", "--node", "auto", "--lease-store", store_});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto second =
      run_idforge({"gen", "snowflake", "-n", "10", "--node", "auto", "--lease-store", store_},
                  faketime("-10s"));
  EXPECT_NE(second.exit_code, 0) << "issued with the clock 10 s behind the stored mark";
  EXPECT_TRUE(second.out.empty()) << second.out;
  EXPECT_NE(second.err.find("behind"), std::string::npos) << second.err;
}

TEST_F(RestartClockBack, SmallStepBackWaitsAndIssuesAboveTheMark) {
  const auto first =
      run_idforge({"gen", "snowflake", "-n", "20000", "--node", "auto", "--lease-store", store_});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto second =
      run_idforge({"gen", "snowflake", "-n", "1000", "--node", "auto", "--lease-store", store_},
                  faketime("-0.5s"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  std::uint64_t lowest = ~0ull;
  for (const auto& l : second.lines()) lowest = std::min<std::uint64_t>(lowest, std::stoull(l));
  EXPECT_GT(lowest, max_id(first));
}

}  // namespace
}  // namespace idforge
