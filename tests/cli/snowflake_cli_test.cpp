// The CLI's Snowflake commands, driven as a user would.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "idforge/snowflake.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

namespace idforge {
namespace {

using test::run_idforge;

TEST(CliGenSnowflake, PrintsNIncreasingIdsWithTheGivenNode) {
  const auto r =
      run_idforge({"gen", "snowflake", "-n", "5000", "--datacenter", "1", "--worker", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = r.lines();
  ASSERT_EQ(lines.size(), 5000u);
  std::uint64_t prev = 0;
  for (const auto& l : lines) {
    const std::uint64_t v = std::stoull(l);
    EXPECT_GT(v, prev);
    prev = v;
    const SnowflakeParts p = decompose(presets::twitter(), Snowflake(v));
    EXPECT_EQ(p.datacenter, 1u);
    EXPECT_EQ(p.worker, 5u);
  }
}

TEST(CliGenSnowflake, JsonCarriesTheIdAsAStringToo) {
  const auto r = run_idforge({"gen", "snowflake", "--node", "7", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string line = r.lines().at(0);
  const auto id = line.substr(6, line.find(',') - 6);
  EXPECT_EQ(line, R"({"id":)" + id + R"(,"id_str":")" + id + "\"}");
}

TEST(CliGenSnowflake, EncodingsDecodeBackThroughInspect) {
  for (const char* enc : {"hex", "base32", "base62"}) {
    const auto r = run_idforge({"gen", "snowflake", "--node", "9", "--format", enc});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto back = run_idforge({"inspect", "--encoding", enc, "--json", r.lines().at(0)});
    ASSERT_EQ(back.exit_code, 0) << back.err;
    EXPECT_NE(back.out.find(R"("node":9)"), std::string::npos) << back.out;
  }
}

TEST(CliGenSnowflake, OtherPresetsAndSpecs) {
  const auto r =
      run_idforge({"gen", "snowflake", "--layout", "sonyflake", "--node", "65535", "-n", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(decompose(presets::sonyflake(), Snowflake(std::stoull(r.lines().at(2)))).node, 65535u);
  const auto s =
      run_idforge({"gen", "snowflake", "--layout", "time=41,node=10,seq=12", "--node", "1023"});
  EXPECT_EQ(s.exit_code, 0) << s.err;
}

TEST(CliGenSnowflake, BadInputExitsNonZeroWithOneLineNamingTheValue) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const Case cases[] = {
      {{"gen", "snowflake", "--node", "1024"}, "node ID 1024 out of range"},
      {{"gen", "snowflake", "--datacenter", "32", "--worker", "0"}, "datacenter 32 out of range"},
      {{"gen", "snowflake"}, "no node ID"},
      {{"gen", "snowflake", "--node", "1", "--layout", "time=41,node=10,seq=13"}, "= 64"},
      {{"gen", "snowflake", "--node", "1", "--layout", "twitter,epoch=2999-01-01"}, "is after now"},
      {{"gen", "snowflake", "--node", "1", "--layout", "twiter"}, "position 0"},
      {{"gen", "snowflake", "--node", "1", "--format", "octal"}, "octal"},
      {{"gen", "snowflake", "--node", "1", "-n", "0"}, "'0' is out of range"},
  };
  for (const auto& c : cases) {
    const auto r = run_idforge(c.args);
    EXPECT_NE(r.exit_code, 0) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// A time field that runs out in the middle of a run: the IDs issued before are printed and
// the error says how many (it said "so nothing was issued" after millions).
TEST(CliGenSnowflake, RunningOutOfTimeMidRunSaysHowManyWereIssued) {
  test::ScratchDir dir;
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  // 31 bits of ms end 3 s from now; one ID per ms (no sequence bits).
  const std::string spec =
      "time=31,dc=1,worker=31,seq=0,epoch=" + std::to_string(now - (std::int64_t{1} << 31) + 3000);
  const auto r = run_idforge({"gen", "snowflake", "--layout", spec, "--node", "0", "--lease-store",
                              "file:" + (dir / "leases"), "-n", "100000"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::size_t printed = r.lines().size();
  EXPECT_GT(printed, 0u);
  EXPECT_NE(r.err.find("-bit time field ran out at "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" after " + std::to_string(printed) +
                       " IDs of the 100000 asked for were issued (all printed)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("nothing was issued"), std::string::npos) << r.err;
}

TEST(CliInspect, PrintsIsoTimeNodeAndSequence) {
  const auto r = run_idforge({"inspect", "1468006400000151552"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("time       2021-12-06T23:56:14.657Z"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("datacenter 1"), std::string::npos);
  EXPECT_NE(r.out.find("worker     5"), std::string::npos);
  EXPECT_NE(r.out.find("sequence   0"), std::string::npos);
}

TEST(CliInspect, OneBadIdAmongGoodOnesFailsButPrintsTheRest) {
  const auto r = run_idforge({"inspect", "--json", "1468006400000151552", "not-an-id", "4345856"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.lines().size(), 2u);
  EXPECT_NE(r.err.find("'not-an-id'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 of 3 IDs"), std::string::npos) << r.err;
}

TEST(CliLayout, TwitterFacts) {
  const auto r = run_idforge({"layout", "twitter"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nodes       1024"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4096 IDs per node"), std::string::npos);
  EXPECT_NE(r.out.find("4096000 IDs/s per node"), std::string::npos);
  EXPECT_NE(r.out.find("time ends   2080-07-10T17:30:30.209Z"), std::string::npos);
  EXPECT_NE(r.out.find("JS-safe     until 2010-11-28T22:14:18.305Z"), std::string::npos);
}

TEST(CliLayout, ImpossibleSpecIsRefused) {
  const auto r = run_idforge({"layout", "time=50,dc=5,worker=5,seq=12"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("time 50 + datacenter 5 + worker 5 + sequence 12 = 72"), std::string::npos)
      << r.err;
}

TEST(CliTop, VersionAndHelp) {
  EXPECT_EQ(run_idforge({"--version"}).out, "idforge 0.1.0\n");
  const auto h = run_idforge({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("inspect"), std::string::npos);
  EXPECT_EQ(run_idforge({}).exit_code, 2);
  EXPECT_EQ(run_idforge({"frobnicate"}).exit_code, 2);
}

}  // namespace
}  // namespace idforge
