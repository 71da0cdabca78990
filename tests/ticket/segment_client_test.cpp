// SegmentClient on a real SQLite file: values, double buffer, step adaptation, lost values.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/error.hpp"
#include "idforge/ticket/segment_client.hpp"
#include "idforge/ticket/segment_store.hpp"
#include "test_support.hpp"

namespace idforge::ticket {
namespace {

class SegmentClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = "sqlite:" + test::temp_dir() + "/seq.db";
    store_ = open_segment_store(url_);
    store_->create("orders", 1, 100);
  }
  std::int64_t abandoned() {
    for (const auto& r : store_->stats())
      if (r.name == "orders") return r.abandoned;
    return -1;
  }
  std::string url_;
  std::unique_ptr<SegmentStore> store_;
};

TEST_F(SegmentClientTest, HandsOutConsecutiveValuesFromTheFirstBlock) {
  SegmentClient c(*store_, "orders", {.background = false});
  for (std::int64_t want = 1; want <= 150; ++want) EXPECT_EQ(c.next(), want);
}

TEST_F(SegmentClientTest, LoadsTheSpareBeforeTheCurrentBlockRunsOut) {
  ManualClock clock(1);
  SegmentClient c(*store_, "orders", {.prefetch_at = 0.5}, clock);
  for (int i = 0; i < 51; ++i) c.next();  // offset 50 is the prefetch point
  // The background load takes the database's time (not the clock's): poll for it, bounded.
  for (int i = 0; i < 2000 && !c.stats().spare_ready; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(c.stats().spare_ready);
  for (int i = 0; i < 100; ++i) c.next();
  const auto s = c.stats();
  EXPECT_EQ(s.sync_loads, 1) << "only the very first block may be loaded in the caller";
  EXPECT_EQ(s.handed, 151);
}

TEST_F(SegmentClientTest, AdaptsTheStepSoABlockLastsTheTarget) {
  ManualClock clock(1'000'000'000);
  SegmentClient c(*store_, "orders",
                  {.initial_step = 100,
                   .min_step = 10,
                   .max_step = 1'000'000,
                   .target_block_ns = 1'000'000'000,
                   .prefetch_at = 1.0,
                   .background = false},
                  clock);
  for (int i = 0; i < 100; ++i) c.next();  // block [1,101), started at the first call
  clock.advance_ms(10);                    // 100 values in 10 ms: 10,000 a second
  EXPECT_EQ(c.next(), 101);                // switch to [101,201); the next load should last 1 s
  EXPECT_EQ(c.stats().step, 10'000);
  for (int i = 0; i < 99; ++i) c.next();
  clock.advance_ms(10'000);  // 100 values in 10 s: 10 a second, so 10 values, the floor
  EXPECT_EQ(c.next(), 201);  // this block was asked for with the step set before: 10,000
  EXPECT_EQ(c.stats().step, 10);
  EXPECT_EQ(c.close(), 9'999);
}

TEST_F(SegmentClientTest, CloseCountsAndReportsWhatIsLeftInBothBlocks) {
  SegmentClient c(*store_, "orders", {.prefetch_at = 0.1, .background = false});
  for (int i = 0; i < 30; ++i) c.next();  // block [1,101) used 30, spare [101,201) loaded
  EXPECT_EQ(c.close(), 70 + 100);
  EXPECT_EQ(c.stats().lost, 170);
  EXPECT_EQ(abandoned(), 170);
  EXPECT_EQ(c.close(), 170) << "close is idempotent";
  EXPECT_THROW(c.next(), Error);
}

TEST_F(SegmentClientTest, ThreadsNeverGetTheSameValue) {
  SegmentClient c(*store_, "orders", {.initial_step = 1000});
  constexpr int kThreads = 4, kEach = 50'000;
  std::vector<std::vector<std::int64_t>> got(kThreads);
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) got[t].push_back(c.next());
    });
  for (auto& t : ts) t.join();
  std::vector<std::int64_t> all;
  for (auto& v : got) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  EXPECT_EQ(c.stats().handed, kThreads * kEach);
}

TEST_F(SegmentClientTest, BadOptionsAreRefusedWithTheValue) {
  const std::vector<SegmentOptions> bad = {
      {.initial_step = -1},    {.min_step = 0},      {.min_step = 10, .max_step = 5},
      {.target_block_ns = -1}, {.prefetch_at = 0.0}, {.prefetch_at = 1.5}};
  for (const auto& o : bad) {
    try {
      SegmentClient c(*store_, "orders", o);
      ADD_FAILURE() << "accepted bad options";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("segment options"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace idforge::ticket
