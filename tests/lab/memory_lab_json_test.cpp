// The memory lab's JSON: what memory_lab_json() writes, memory_lab_from_json() reads back
// whole (the SQLite worker and `advise --measured` depend on it); broken text is a parse
// error naming what is wrong; index_entry_bytes follows each engine's entry layout.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "idforge/error.hpp"
#include "idforge/lab/memory_lab.hpp"

namespace idforge::lab {
namespace {

MemoryLabResult sample() {
  MemoryLabResult r;
  r.engine = DbEngine::mariadb;
  r.server_version = "MariaDB 10.11";
  r.settings = "a 64 MiB cgroup";
  r.cgroup_version = 1;
  r.memory_bytes = 64u << 20;
  r.cache_bytes = 16u << 20;
  r.cache_limit = 16u << 20;
  r.process_bytes = 30u << 20;
  r.page_bytes = 16384;
  r.rows = 2000;
  r.windows = 2;
  r.batch = 100;
  r.probe = 50;
  r.cgroup_peak = 60u << 20;
  MemoryKindResult k;
  k.kind = KeyKind::uuid4;
  k.column_type = "BINARY(16)";
  k.crossing_rows = 2000;
  k.entry_bytes = 34.3;
  k.index_bytes = 123456;
  k.leaf_pages = 7;
  k.leaf_fill = 0.66;
  k.fill_method = "test";
  k.p50_after_ms = 3.5;
  k.after_is_past_knee = true;
  for (int i = 1; i <= 2; ++i) {
    MemoryWindow w;
    w.rows_end = 1000u * static_cast<unsigned>(i);
    w.rows = 1000;
    w.p50_ms = 0.1 * i;
    w.fpi_per_insert = 0.25;
    w.index_bytes = 60000u * static_cast<unsigned>(i);
    k.windows.push_back(w);
  }
  r.results.push_back(k);
  WritersResult wr;
  wr.kind = KeyKind::snowflake;
  wr.points.push_back({4, 4000, 1.0, 4000, 0.9, 3.1});
  r.writers.push_back(wr);
  return r;
}

TEST(MemoryLabJson, RoundTripsEveryField) {
  const MemoryLabResult a = sample();
  const MemoryLabResult b = memory_lab_from_json(memory_lab_json(a));
  EXPECT_EQ(b.engine, DbEngine::mariadb);
  EXPECT_EQ(b.settings, a.settings);
  EXPECT_EQ(b.process_bytes, a.process_bytes);
  EXPECT_EQ(b.probe, 50u);
  ASSERT_EQ(b.results.size(), 1u);
  const auto& k = b.results[0];
  EXPECT_EQ(k.kind, KeyKind::uuid4);
  EXPECT_EQ(k.crossing_rows, std::optional<std::uint64_t>(2000));
  EXPECT_DOUBLE_EQ(k.leaf_fill, 0.66);
  EXPECT_TRUE(k.after_is_past_knee);
  ASSERT_EQ(k.windows.size(), 2u);
  EXPECT_DOUBLE_EQ(k.windows[1].p50_ms, 0.2);
  EXPECT_DOUBLE_EQ(k.windows[0].fpi_per_insert, 0.25);
  ASSERT_EQ(b.writers.size(), 1u);
  EXPECT_EQ(b.writers[0].points[0].writers, 4u);
  EXPECT_DOUBLE_EQ(b.writers[0].points[0].p99_ms, 3.1);
  EXPECT_EQ(memory_lab_json(b), memory_lab_json(a));
}

TEST(MemoryLabJson, OnlyAStoppedRunSaysSoAndItReadsBack) {
  MemoryLabResult a = sample();
  EXPECT_EQ(memory_lab_json(a).find("interrupted"), std::string::npos);
  EXPECT_FALSE(memory_lab_from_json(memory_lab_json(a)).interrupted);
  a.interrupted = true;
  EXPECT_TRUE(memory_lab_from_json(memory_lab_json(a)).interrupted);
}

TEST(MemoryLabJson, BrokenTextIsAParseError) {
  for (const char* bad : {"", "{", "[]", R"({"engine":"postgres"})"}) {
    try {
      memory_lab_from_json(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::parse_error) << e.what();
    }
  }
}

// A file that is not JSON is refused without quoting it: `advise --measured /etc/shadow`
// must not print the file's first bytes.
TEST(MemoryLabJson, TextThatIsNotJsonIsNotQuoted) {
  try {
    memory_lab_from_json("root:$6$secret");
    ADD_FAILURE();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("not JSON (syntax error at byte"), std::string::npos) << what;
    EXPECT_EQ(what.find("root"), std::string::npos) << what;
    EXPECT_EQ(what.find("json.exception"), std::string::npos) << what;
  }
}

// A file nested far deeper than a run is refused while it is read: the checks walk the
// document recursively, and 50,000 levels overflowed the stack.
TEST(MemoryLabJson, NestingFarDeeperThanARunIsRefusedNotCrashed) {
  for (const std::string& deep :
       {std::string(50'000, '[') + std::string(50'000, ']'),
        "{\"results\":" + std::string(50'000, '[') + std::string(50'000, ']') + "}", [] {
          std::string s;
          for (int i = 0; i < 50'000; ++i) s += "{\"a\":";
          return s + "1" + std::string(50'000, '}');
        }()}) {
    try {
      memory_lab_from_json(deep);
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::parse_error);
      EXPECT_NE(std::string(e.what()).find("nested more than 16 levels deep"), std::string::npos)
          << e.what();
    }
  }
  // A real run, four levels deep, still reads.
  EXPECT_EQ(memory_lab_from_json(memory_lab_json(sample())).results.size(),
            sample().results.size());
}

// A number past a double's range is refused in the lab's words, not the JSON library's.
TEST(MemoryLabJson, ANumberPastADoubleIsRefusedInTheLabsWords) {
  std::string text = memory_lab_json(sample());
  const auto at = text.find("\"leaf_fill\": ");
  ASSERT_NE(at, std::string::npos);
  const auto end = text.find(',', at);
  text.replace(at, end - at, "\"leaf_fill\": 1e999");
  try {
    memory_lab_from_json(text);
    ADD_FAILURE();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("a number too large for a double"), std::string::npos) << what;
    EXPECT_EQ(what.find("json.exception"), std::string::npos) << what;
  }
}

// Text from a file reaches the terminal escaped and bounded; a kind given twice is refused.
TEST(MemoryLabJson, FileTextIsEscapedAndBoundedAndAKindCountsOnce) {
  nlohmann::json j = nlohmann::json::parse(memory_lab_json(sample()));
  j["server_version"] = "\x1b[2J\x1b]0;pwned\x07ver";
  j["settings"] = std::string(200'000, 's');
  const MemoryLabResult r = memory_lab_from_json(j.dump());
  EXPECT_EQ(r.server_version.find('\x1b'), std::string::npos) << r.server_version;
  EXPECT_NE(r.server_version.find("\\x1b[2J"), std::string::npos) << r.server_version;
  EXPECT_LE(r.settings.size(), 300u);
  j = nlohmann::json::parse(memory_lab_json(sample()));
  j["results"].push_back(j["results"][0]);
  try {
    memory_lab_from_json(j.dump());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("twice: a run measures each kind once"), std::string::npos)
        << e.what();
  }
}

// Figures no run can have are refused, naming where they are: a negative count (which an
// unsigned read would wrap to 2^64 - 1), a fill above 1, no results at all.
TEST(MemoryLabJson, ImpossibleFiguresAreRefusedWithTheirPlace) {
  const nlohmann::json good = nlohmann::json::parse(memory_lab_json(sample()));
  const auto expect_refused = [](const nlohmann::json& j, const std::string& says) {
    try {
      memory_lab_from_json(j.dump());
      ADD_FAILURE() << says;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::parse_error) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  nlohmann::json j = good;
  j["rows"] = -1;
  expect_refused(j, "run.rows is -1");
  j = good;
  j["results"][0]["windows"][0]["p50_ms"] = -5;
  expect_refused(j, "run.results[0].windows[0].p50_ms is -5");
  j = good;
  j["results"][0]["leaf_fill"] = 1.9;
  expect_refused(j, "leaf_fill 1.9: a fill is at most 1");  // the value as written
  j = good;
  j["results"] = nlohmann::json::array();
  expect_refused(j, "no results");
  expect_refused(nlohmann::json::array({1, 2}), "a JSON array");
}

TEST(MemoryLab, EntryBytesFollowEachEnginesLayout) {
  EXPECT_DOUBLE_EQ(index_entry_bytes(DbEngine::postgres, KeyKind::snowflake), 20);
  EXPECT_DOUBLE_EQ(index_entry_bytes(DbEngine::postgres, KeyKind::uuid4), 28);
  EXPECT_DOUBLE_EQ(index_entry_bytes(DbEngine::postgres, KeyKind::uuid4_text), 52);
  EXPECT_NEAR(index_entry_bytes(DbEngine::mariadb, KeyKind::uuid7), 34.33, 0.01);
  EXPECT_DOUBLE_EQ(index_entry_bytes(DbEngine::sqlite, KeyKind::uuid4_text), 41);
}

TEST(MemoryLab, BadOptionsAreNamedBeforeAnythingStarts) {
  struct Case {
    MemoryLabOptions o;
    const char* says;
  };
  std::vector<Case> cases;
  MemoryLabOptions base;
  base.engine = DbEngine::postgres;
  base.rows = 1000;
  base.windows = 10;
  auto with = [&](auto change, const char* says) {
    MemoryLabOptions o = base;
    change(o);
    cases.push_back({o, says});
  };
  with([](MemoryLabOptions& o) { o.memory_bytes = 8u << 20; }, "needs at least 16 MiB");
  with(
      [](MemoryLabOptions& o) {
        o.engine = DbEngine::mariadb;
        o.memory_bytes = 20u << 20;
      },
      "mariadb needs at least 48 MiB");
  with(
      [](MemoryLabOptions& o) {
        o.engine = DbEngine::mariadb;
        o.memory_bytes = 64u << 20;
        o.cache_bytes = 2u << 20;
      },
      "buffer pool is at least 6 MiB");
  with([](MemoryLabOptions& o) { o.cache_bytes = o.memory_bytes; },
       "must be below the memory limit");
  with([](MemoryLabOptions& o) { o.windows = 1; }, "windows 1");
  with([](MemoryLabOptions& o) { o.rows = 5; }, "rows 5");
  with([](MemoryLabOptions& o) { o.batch = 0; }, "batch 0");
  with([](MemoryLabOptions& o) { o.writers = {0}; }, "writers 0");
  with([](MemoryLabOptions& o) { o.kinds.clear(); }, "no key kinds");
  for (const auto& c : cases) {
    try {
      run_memory_lab(c.o);
      ADD_FAILURE() << c.says;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace idforge::lab
