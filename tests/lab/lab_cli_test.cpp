// `idforge lab ...` driven as a user would: the demo's numbers, JSON fields, the SVG file,
// and clear errors for bad options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

namespace idforge {
namespace {

using test::run_idforge;

TEST(LabCli, DemoPrintsSeedsUuid7NumbersAndRepeatsUuid4) {
  const auto r = run_idforge({"lab", "btree", "--demo"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("uuid7: 3 leaves, 2 splits, 16 page writes, leaf fill 100.0%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("p1 [  1  2  3  4 ]"), std::string::npos) << r.out;
  EXPECT_EQ(run_idforge({"lab", "btree", "--demo"}).out, r.out);
  const auto other = run_idforge({"lab", "btree", "--demo", "--seed", "99"});
  EXPECT_NE(other.out, r.out);
}

TEST(LabCli, DemoJsonHasTheScoreboardFields) {
  const auto r = run_idforge({"lab", "btree", "--demo", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& v7 = j["results"][0];
  EXPECT_EQ(v7["kind"], "uuid7");
  EXPECT_EQ(v7["splits"], 2);
  EXPECT_EQ(v7["page_writes"], 16);
  EXPECT_EQ(v7["leaves"], 3);
  EXPECT_DOUBLE_EQ(v7["leaf_fill"].get<double>(), 1.0);
  EXPECT_EQ(j["results"][1]["kind"], "uuid4");
  EXPECT_EQ(j["results"][1]["leaf_pages"].size(), j["results"][1]["leaves"].get<std::size_t>());
}

TEST(LabCli, ScaleRunWritesJsonAndAnSvgChart) {
  const auto svg = (std::filesystem::temp_directory_path() / "idforge-lab-cli-test.svg").string();
  const auto r = run_idforge({"lab", "btree", "--kinds", "snowflake,uuid4", "--n", "2e5", "--pool-pages", "50",
                              "--json", "--svg", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["results"].size(), 2u);
  for (const char* f : {"kind", "splits", "page_writes", "leaves", "leaf_fill", "index_bytes", "inserts_per_s"})
    EXPECT_TRUE(j["results"][0].contains(f)) << f;
  EXPECT_GT(j["results"][0]["leaf_fill"].get<double>(), j["results"][1]["leaf_fill"].get<double>());
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("</svg>"), std::string::npos);
  std::filesystem::remove(svg);
}

TEST(LabCli, CostReproducesTheSeedAndNamesTheFillSource) {
  const auto r = run_idforge({"lab", "cost", "--rows", "1e9", "--copies", "5", "--fill-from", "seed"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"40 GB", "80 GB", "180 GB", "42 GB", "114 GB", "257 GB", "(tight)", "$650", "$5200",
                        "seed's assumption"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  const auto sim = run_idforge({"lab", "cost", "--sim-keys", "1e5", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_NE(sim.out.find("simulator"), std::string::npos);
}

TEST(LabCli, BadOptionsGetOneLineNamingTheValue) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const Case cases[] = {
      {{"lab", "btree", "--kinds", "uuid9"}, "unknown key kind 'uuid9'"},
      {{"lab", "btree", "--kinds", "uuid4,uuid4"}, "appears twice"},
      {{"lab", "btree", "--n", "12x"}, "--n '12x'"},
      {{"lab", "btree", "--n", "0"}, "at least 1"},
      {{"lab", "db", "--engine", "oracle"}, "unknown engine 'oracle'"},
      {{"lab", "db", "--rows", "1.5"}, "not a whole number"},
      {{"lab", "cost", "--fill-from", "/nonexistent.json"}, "no such file"},
      {{"lab", "btree", "--leaf-keys", "1"}, "--leaf-keys"},
  };
  for (const auto& c : cases) {
    const auto r = run_idforge(c.args);
    EXPECT_NE(r.exit_code, 0) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "stderr: " << r.err << " expected: " << c.says;
  }
}

}  // namespace
}  // namespace idforge
