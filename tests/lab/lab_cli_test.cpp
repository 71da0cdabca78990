// `idforge lab ...` driven as a user would: the demo's numbers, JSON fields, the SVG file,
// and clear errors for bad options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "idforge/lab/memory_lab.hpp"
#include "idforge/lab/sim_run.hpp"
#include "run_command.hpp"

namespace idforge {
namespace {

using test::run_idforge;

TEST(LabCli, DemoPrintsSeedsUuid7NumbersAndRepeatsUuid4) {
  const auto r = run_idforge({"lab", "btree", "--demo"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("uuid7: 3 leaves, 2 splits, 16 page writes, leaf fill 100.0%"),
            std::string::npos)
      << r.out;
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

TEST(LabCli, CostReadsTheFillOfABtreeJsonRun) {
  const auto file =
      (std::filesystem::temp_directory_path() / "idforge-lab-cli-btree.json").string();
  const auto run = run_idforge({"lab", "btree", "--kinds", "uuid7,uuid4", "--n", "2e4", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // What the lab wrote, read back by the lab: the same fills the run printed.
  const lab::SimReport report = lab::sim_report_from_json(run.out);
  ASSERT_EQ(report.results.size(), 2u);
  EXPECT_EQ(report.options.n, 20000u);
  {
    std::ofstream out(file);
    out << run.out;
  }
  const auto cost = run_idforge({"lab", "cost", "--kinds", "uuid4", "--fill-from", file, "--json"});
  ASSERT_EQ(cost.exit_code, 0) << cost.err;
  const auto j = nlohmann::json::parse(cost.out);
  EXPECT_DOUBLE_EQ(j["results"][0]["leaf_fill"].get<double>(), report.results[1].stats.leaf_fill)
      << cost.out;
  std::filesystem::remove(file);
}

TEST(LabCli, ScaleRunWritesJsonAndAnSvgChart) {
  const auto svg = (std::filesystem::temp_directory_path() / "idforge-lab-cli-test.svg").string();
  const auto r = run_idforge({"lab", "btree", "--kinds", "snowflake,uuid4", "--n", "2e5",
                              "--pool-pages", "50", "--json", "--svg", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["results"].size(), 2u);
  for (const char* f :
       {"kind", "splits", "page_writes", "leaves", "leaf_fill", "index_bytes", "inserts_per_s"})
    EXPECT_TRUE(j["results"][0].contains(f)) << f;
  EXPECT_GT(j["results"][0]["leaf_fill"].get<double>(), j["results"][1]["leaf_fill"].get<double>());
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("</svg>"), std::string::npos);
  std::filesystem::remove(svg);
}

TEST(LabCli, CostReproducesTheSeedAndNamesTheFillSource) {
  const auto r =
      run_idforge({"lab", "cost", "--rows", "1e9", "--copies", "5", "--fill-from", "seed"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"40 GB", "80 GB", "180 GB", "42 GB", "114 GB", "257 GB", "(tight)", "$650",
                        "$5200", "seed's assumption"})
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
      // A device that never ends, a folder: refused before a byte is read.
      {{"lab", "db", "--report", "/dev/zero"}, "--report '/dev/zero': not a regular file"},
      {{"advise", "--measured", "/dev/zero"}, "--measured '/dev/zero': not a regular file"},
      {{"advise", "--measured", "/tmp"}, "--measured '/tmp': not a regular file"},
      // A limit above the machine's memory would not bind; checked before any cgroup.
      {{"lab", "db", "--engine", "sqlite", "--memory-mb", "1048576"},
       "so the limit would not bind"},
      // A chart that cannot be written is found before the run, not after it.
      {{"lab", "db", "--engine", "sqlite", "--memory-mb", "16", "--svg", "/nonexistent/dir/x.svg"},
       "--svg '/nonexistent/dir/x.svg': cannot write"},
      // Options only a memory-limited run reads are not dropped in silence.
      {{"lab", "db", "--engine", "sqlite", "--windows", "5"},
       "--windows is read only by a memory-limited run"},
      {{"lab", "db", "--engine", "sqlite", "--memory-mb", "16", "--writers", "1,1"}, "1 twice"},
      {{"lab", "db", "--engine", "sqlite", "--memory-mb", "16", "--writers", ""}, "or none"},
      {{"lab", "db", "--engine", "postgres", "--memory-mb", "16", "--port", "0"}, "--port"},
      {{"lab", "db", "--engine", "mariadb", "--memory-mb", "20"}, "mariadb needs at least 48 MiB"},
  };
  for (const auto& c : cases) {
    const auto r = run_idforge(c.args);
    EXPECT_NE(r.exit_code, 0) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos)
        << "stderr: " << r.err << " expected: " << c.says;
  }
}

// The offset is read whole: "0x10000" once read as 0 put a run on another lab's port.
TEST(LabCli, APortOffsetThatIsNotAWholeNumberIsRefused) {
  // Set but empty is refused as well: it does not fall back to the default ports.
  for (const char* bad : {"0x10000", "700x", " 5", "1e3", "-1", ""}) {
    const auto r = run_idforge({"lab", "db", "--engine", "postgres", "--memory-mb", "16"},
                               {std::string("IDFORGE_PORT_OFFSET=") + bad});
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.err.find("IDFORGE_PORT_OFFSET '" + std::string(bad) + "': must be a whole number"),
              std::string::npos)
        << r.err;
  }
}

TEST(AdviseCli, SecretsGetATokenInJson) {
  const auto r = run_idforge({"advise", "--secret", "--databases", "4", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["key"], "token");
  EXPECT_EQ(j["command"], "idforge gen token --bits 256");
  EXPECT_TRUE(j["situation"]["secret"].get<bool>());
  EXPECT_FALSE(j["measured"]["source"].get<std::string>().empty());
}

TEST(AdviseCli, TextNamesTheSchemeTheCommandAndTheMeasuredSource) {
  const auto r = run_idforge({"advise", "--databases", "3", "--writes-per-second", "40000",
                              "--rows", "5e9", "--js-clients"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"Use: Snowflake", "idforge gen snowflake", "id_str",
                        "Why:", "Measured: the recorded run", "UUIDv4 as 36-char text"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(AdviseCli, MeasuredFileSuppliesTheNumbers) {
  lab::MemoryLabResult run;
  run.engine = lab::DbEngine::postgres;
  run.server_version = "PostgreSQL test";
  run.settings = "a test run";
  run.page_bytes = 8192;
  lab::MemoryKindResult v7, v4;
  v7.kind = lab::KeyKind::uuid7;
  v7.column_type = "uuid";
  v7.leaf_fill = 0.9;
  v7.p50_after_ms = 0.25;
  v7.inserts_per_s_after = 4000;
  v7.wal_bytes_after = 100;
  v7.index_bytes = 1000;
  v4 = v7;
  v4.kind = lab::KeyKind::uuid4;
  v4.leaf_fill = 0.61;
  v4.p50_before_ms = 0.3;
  v4.p50_after_ms = 7.75;
  v4.after_is_past_knee = true;
  run.results = {v7, v4};
  const auto path =
      (std::filesystem::temp_directory_path() / "idforge-advise-measured.json").string();
  std::ofstream(path) << lab::memory_lab_json(run);
  const auto r = run_idforge({"advise", "--databases", "2", "--measured", path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["measured"]["slowdown_vs_ordered"].get<double>(), 31.0);
  EXPECT_DOUBLE_EQ(j["measured"]["fill_random"].get<double>(), 0.61);
  EXPECT_NE(j["measured"]["source"].get<std::string>().find(path), std::string::npos);
  EXPECT_NE(r.out.find("31x slower"), std::string::npos) << r.out;
  std::filesystem::remove(path);
}

TEST(AdviseCli, BadInputIsOneLineNamingTheValue) {
  const auto missing = run_idforge({"advise", "--measured", "/nonexistent/run.json"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("--measured '/nonexistent/run.json': no such file"), std::string::npos)
      << missing.err;
  const auto rows = run_idforge({"advise", "--rows", "lots"});
  EXPECT_EQ(rows.exit_code, 1);
  EXPECT_NE(rows.err.find("--rows 'lots'"), std::string::npos) << rows.err;
  const auto dbs = run_idforge({"advise", "--databases", "0"});
  EXPECT_EQ(dbs.exit_code, 2);
}

// Found from outside: hex was read as a count ("--rows 0x10" advised for 16 rows), NaN passed
// the range check into a misleading message, and a value of 100,000 digits was echoed whole.
TEST(AdviseCli, NumbersAreDecimalFiniteAndEchoedBounded) {
  for (const char* hex : {"0x10", "0x1p10"}) {
    const auto r = run_idforge({"advise", "--rows", hex});
    EXPECT_EQ(r.exit_code, 1) << hex << r.out;
    EXPECT_NE(r.err.find(std::string("--rows '") + hex + "': not a count"), std::string::npos)
        << r.err;
  }
  for (const char* opt : {"--writes-per-second", "--memory-gb"})
    for (const char* bad : {"nan", "inf", "-5", "0x10"}) {
      const auto r = run_idforge({"advise", opt, bad});
      EXPECT_EQ(r.exit_code, 2) << opt << " " << bad;
      EXPECT_NE(r.err.find(std::string("'") + bad + "'"), std::string::npos) << r.err;
    }
  const std::string huge(100'000, '9');
  for (const char* opt : {"--rows", "--writes-per-second", "--databases"}) {
    const auto r = run_idforge({"advise", opt, huge});
    EXPECT_NE(r.exit_code, 0) << opt;
    EXPECT_LT(r.err.size(), 1'000u) << opt;
  }
  for (const char* bad : {"1__0", "_10", "10_", "1e1_0"}) {
    const auto r = run_idforge({"advise", "--rows", bad});
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.err.find("an underscore stands only between two digits"), std::string::npos)
        << r.err;
  }
  const auto grouped = run_idforge({"advise", "--rows", "1_000_000", "--json"});
  EXPECT_EQ(grouped.exit_code, 0) << grouped.err;
  const auto tiny = run_idforge({"advise", "--memory-gb", "1e-300", "--rows", "1e9"});
  EXPECT_EQ(tiny.exit_code, 0) << tiny.err;
  EXPECT_EQ(tiny.out.find("fit in 0 GB"), std::string::npos) << tiny.out;
}

TEST(LabCli, MemoryRunRefusesATooSmallLimitBeforeStartingAnything) {
  const auto r = run_idforge({"lab", "db", "--engine", "postgres", "--memory-mb", "4"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("memory 4 MiB: postgres needs at least 16 MiB"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace idforge
