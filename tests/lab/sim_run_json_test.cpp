// The simulator's report as JSON and back: a real run survives the round trip field by
// field, a file with only kind and leaf_fill reads, and a wrong field is named.
#include <gtest/gtest.h>

#include <string>

#include "idforge/error.hpp"
#include "idforge/lab/sim_run.hpp"

namespace idforge::lab {
namespace {

SimReport small_report() {
  SimReport report;
  report.options.n = 20'000;
  report.options.page_bytes = 4096;
  report.options.pool_pages = 64;
  report.options.rightmost_fill = 0.9;
  report.options.keys.seed = 7;
  report.options.keys.keys_per_ms = 3;
  for (KeyKind k : {KeyKind::snowflake, KeyKind::uuid4})
    report.results.push_back(run_simulation(k, report.options));
  return report;
}

TEST(SimReportJson, ARealRunSurvivesTheRoundTrip) {
  const SimReport a = small_report();
  const SimReport b = sim_report_from_json(sim_report_json(a));
  EXPECT_EQ(b.options.n, a.options.n);
  EXPECT_EQ(b.options.page_bytes, a.options.page_bytes);
  EXPECT_EQ(b.options.pool_pages, a.options.pool_pages);
  EXPECT_EQ(b.options.rightmost_fill, a.options.rightmost_fill);
  EXPECT_EQ(b.options.keys.seed, a.options.keys.seed);
  EXPECT_EQ(b.options.keys.keys_per_ms, a.options.keys.keys_per_ms);
  EXPECT_EQ(b.options.keys.start_unix_ms, a.options.keys.start_unix_ms);
  ASSERT_EQ(b.results.size(), a.results.size());
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    const SimResult& x = a.results[i];
    const SimResult& y = b.results[i];
    SCOPED_TRACE(std::string(info(x.kind).name));
    EXPECT_EQ(y.kind, x.kind);
    EXPECT_EQ(y.stats.inserts, x.stats.inserts);
    EXPECT_EQ(y.stats.leaf_splits, x.stats.leaf_splits);
    EXPECT_EQ(y.stats.interior_splits, x.stats.interior_splits);
    EXPECT_EQ(y.stats.page_writes, x.stats.page_writes);
    EXPECT_EQ(y.stats.leaves, x.stats.leaves);
    EXPECT_EQ(y.stats.interior_pages, x.stats.interior_pages);
    EXPECT_EQ(y.stats.height, x.stats.height);
    EXPECT_EQ(y.stats.pool_misses, x.stats.pool_misses);
    EXPECT_EQ(y.stats.index_bytes, x.stats.index_bytes);
    EXPECT_DOUBLE_EQ(y.stats.leaf_fill, x.stats.leaf_fill);
    EXPECT_EQ(y.config.leaf_capacity, x.config.leaf_capacity);
    EXPECT_EQ(y.config.interior_fanout, x.config.interior_fanout);
    EXPECT_EQ(y.config.page_bytes, x.config.page_bytes);
    EXPECT_EQ(y.config.pool_pages, x.config.pool_pages);
    EXPECT_DOUBLE_EQ(y.config.rightmost_fill, x.config.rightmost_fill);
    EXPECT_DOUBLE_EQ(y.leaf_fill_mean, x.leaf_fill_mean);
    EXPECT_DOUBLE_EQ(y.insert_seconds, x.insert_seconds);
    EXPECT_DOUBLE_EQ(y.inserts_per_s, x.inserts_per_s);
    EXPECT_EQ(y.tenth_end, x.tenth_end);
    ASSERT_EQ(y.tenth_inserts_per_s.size(), x.tenth_inserts_per_s.size());
    for (std::size_t t = 0; t < x.tenth_miss_rate.size(); ++t) {
      EXPECT_DOUBLE_EQ(y.tenth_inserts_per_s[t], x.tenth_inserts_per_s[t]);
      EXPECT_DOUBLE_EQ(y.tenth_miss_rate[t], x.tenth_miss_rate[t]);
    }
  }
  // Written again, the same text.
  EXPECT_EQ(sim_report_json(b), sim_report_json(a));
}

TEST(SimReportJson, AFileWithOnlyKindAndFillReads) {
  const SimReport r =
      sim_report_from_json(R"({"results":[{"kind":"uuid7","leaf_fill":0.5,"inserts":12}]})");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].kind, KeyKind::uuid7);
  EXPECT_DOUBLE_EQ(r.results[0].stats.leaf_fill, 0.5);
  EXPECT_EQ(r.results[0].stats.inserts, 12u);
  EXPECT_EQ(r.options.n, SimOptions{}.n);
}

TEST(SimReportJson, AWrongFieldIsNamedWithWhatItHolds) {
  struct Case {
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"{", "not JSON"},
      {"[1]", "the top level is an array, not an object"},
      {R"({"n":1})", "no \"results\" array"},
      {R"({"n":-1,"results":[]})", "n is -1, not a whole number >= 0"},
      {R"({"page_bytes":5000000000,"results":[]})", "page_bytes is 5000000000"},
      {R"({"results":[5]})", "results[0] is 5, not an object"},
      {R"({"results":[{"leaf_fill":0.5}]})", "results[0] has no kind"},
      {R"({"results":[{"kind":"uuid9"}]})", "results[0].kind: "},
      {R"({"results":[{"kind":"uuid4","leaf_fill":"high"}]})",
       "results[0].leaf_fill is \"high\", not a number"},
      {R"({"results":[{"kind":"uuid4","inserts":1.5}]})", "results[0].inserts is 1.5"},
      {R"({"results":[{"kind":"uuid4","tenths":[{"rows":"x"}]}]})",
       "results[0].tenths[0].rows is \"x\""},
  };
  for (const Case& c : cases) {
    try {
      sim_report_from_json(c.text);
      ADD_FAILURE() << c.text << " was read";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::parse_error) << c.text;
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos)
          << c.text << " -> " << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace idforge::lab
