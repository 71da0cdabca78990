// Several processes share one segment: 4 processes x 4 threads draw 1M values. No value
// twice, and every value the store gave out but nobody handed is one a client reported
// as lost when it closed.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

constexpr int kProcesses = 4, kThreads = 4;
constexpr long kPerThread = 62'500;  // 4 x 4 x 62,500 = 1,000,000

std::int64_t row_of(SegmentStore& s, const std::string& name, std::int64_t SegmentRow::*field) {
  for (const auto& r : s.stats())
    if (r.name == name) return r.*field;
  return -1;
}

void draw_from_processes(const std::string& url) {
  const std::string name = test::unique_name("mp");
  auto store = open_segment_store(url);
  store->create(name, 1000, 5000);
  const std::string dir = test::temp_dir();
  std::vector<test::Child> kids;
  for (int p = 0; p < kProcesses; ++p)
    kids.push_back(test::spawn(IDFORGE_SEQ_WORKER, {"draw", url, name, std::to_string(kThreads),
                                                    std::to_string(kPerThread), "3000",
                                                    dir + "/out" + std::to_string(p)}));
  std::int64_t lost = 0;
  for (auto& k : kids) {
    auto [code, out] = test::finish(k);
    ASSERT_EQ(code, 0) << out;
    ASSERT_EQ(out.rfind("lost ", 0), 0u) << out;
    lost += std::stoll(out.substr(5));
  }
  std::vector<std::int64_t> all;
  for (int p = 0; p < kProcesses; ++p) {
    std::ifstream in(dir + "/out" + std::to_string(p), std::ios::binary);
    std::int64_t v;
    while (in.read(reinterpret_cast<char*>(&v), sizeof v)) all.push_back(v);
  }
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kProcesses * kThreads * kPerThread));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end())
      << "a value was handed out twice";
  EXPECT_GE(all.front(), 1000);
  const std::int64_t next_value = row_of(*store, name, &SegmentRow::next_value);
  EXPECT_LT(all.back(), next_value);
  const std::int64_t gaps = next_value - 1000 - static_cast<std::int64_t>(all.size());
  EXPECT_EQ(gaps, lost) << "every value not handed out must be one a client reported lost";
  EXPECT_EQ(row_of(*store, name, &SegmentRow::abandoned), lost);
}

TEST(SegmentProcesses, FourProcessesOfFourThreadsShareSqliteWithoutDuplicates) {
  draw_from_processes("sqlite:" + test::temp_dir() + "/shared.db");
}

TEST(SegmentProcesses, FourProcessesOfFourThreadsSharePostgresWithoutDuplicates) {
  IDFORGE_NEED_SERVICE(pg, "IDFORGE_PG_URL");
  draw_from_processes(pg);
}

// kill -9 of a client: it loses its current block's rest and its spare, nothing else.
TEST(SegmentProcesses, KilledClientLosesOnlyTheBlocksItHeld) {
  const std::string url = "sqlite:" + test::temp_dir() + "/kill.db";
  const std::string name = "killed";
  constexpr std::int64_t kStep = 500, kStart = 1;
  auto store = open_segment_store(url);
  store->create(name, kStart, kStep);
  test::Child kid =
      test::spawn(IDFORGE_SEQ_WORKER, {"stream", url, name, std::to_string(kStep), "100000"});
  std::vector<std::int64_t> seen;
  std::string pending;
  char buf[4096];
  while (seen.size() < 1800) {
    const ssize_t n = read(kid.out_fd, buf, sizeof buf);
    ASSERT_GT(n, 0) << "worker ended early";
    pending.append(buf, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1))
      seen.push_back(std::stoll(pending.substr(0, nl)));
  }
  kill(kid.pid, SIGKILL);
  auto [code, rest] = test::finish(kid);
  EXPECT_EQ(code, 128 + SIGKILL);
  pending += rest;
  for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1))
    seen.push_back(std::stoll(pending.substr(0, nl)));

  // Another client continues: its values come after everything the killed one took.
  std::vector<std::int64_t> after;
  std::int64_t after_lost = 0;
  {
    SegmentClient c(*store, name, {.background = false});
    for (int i = 0; i < 700; ++i) after.push_back(c.next());
    after_lost = c.close();
  }
  std::vector<std::int64_t> all = seen;
  all.insert(all.end(), after.begin(), after.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  const std::int64_t max_seen = *std::max_element(seen.begin(), seen.end());
  const std::int64_t min_after = *std::min_element(after.begin(), after.end());
  EXPECT_GT(min_after, max_seen);
  // Missing values below the second client's first block belong to the killed client. The
  // worker prints each value right after taking it, so all are above the last one printed,
  // inside its current block or its spare.
  const std::int64_t held_from = kStart + (max_seen - kStart) / kStep * kStep;
  std::vector<std::int64_t> missing;
  for (std::int64_t v = kStart, i = 0; v < min_after; ++v) {
    while (i < static_cast<std::int64_t>(all.size()) && all[static_cast<std::size_t>(i)] < v) ++i;
    if (i == static_cast<std::int64_t>(all.size()) || all[static_cast<std::size_t>(i)] != v)
      missing.push_back(v);
  }
  if (missing.empty()) {
    // Killed at the end of a block while its spare was still being fetched (never stored):
    // it held nothing. Any other kill leaves values of its block or spare unused.
    EXPECT_EQ((max_seen - kStart + 1) % kStep, 0)
        << "nothing is missing, yet the killed client stopped inside a block at " << max_seen;
  } else {
    EXPECT_GT(missing.front(), max_seen - 1)
        << "a value the killed client handed out in order is missing";
    EXPECT_GE(missing.front(), held_from);
    EXPECT_LT(missing.back(), held_from + 2 * kStep)
        << "lost more than the current block and the spare";
  }
  // 700 values: one full block and 200 of the second (the spare is asked for at 250).
  EXPECT_EQ(after_lost, 300);
}

}  // namespace
}  // namespace idforge::ticket
