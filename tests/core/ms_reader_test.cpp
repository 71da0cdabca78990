// MsReader: the TSC window that stands in for clock_gettime inside a known millisecond never
// returns a millisecond the clock has left, and any clock but the system clock is read as is.
#include <gtest/gtest.h>

#include "idforge/detail/ms_reader.hpp"
#include "idforge/ulid_generator.hpp"
#include "idforge/uuid_generator.hpp"

namespace idforge::detail {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kStartMs = 1'700'000'000'000;

TEST(MsWindow, SpansAQuarterOfTheRestOfTheMillisecondInTicks) {
  const MsWindow w = MsWindow::open(5000, kStartMs * kMs);  // at the start of a millisecond
  EXPECT_EQ(w.ms, kStartMs);
  EXPECT_EQ(w.span, 250'000u);  // 1 ms left, at the lowest rate assumed (0.25 ticks/ns)
  EXPECT_TRUE(w.contains(5000));
  EXPECT_TRUE(w.contains(5000 + 249'999));
  EXPECT_FALSE(w.contains(5000 + 250'000));
}

TEST(MsWindow, ATscReadBeforeTheAnchorIsOutside) {
  const MsWindow w = MsWindow::open(5000, kStartMs * kMs + 10);
  EXPECT_FALSE(w.contains(4999));  // another CPU's counter, a little behind
  EXPECT_FALSE(w.contains(0));
}

TEST(MsWindow, NearTheEndOfTheMillisecondItIsShortOrEmpty) {
  EXPECT_EQ(MsWindow::open(1, kStartMs * kMs + 999'996).span, 1u);
  const MsWindow last = MsWindow::open(1, kStartMs * kMs + 999'999);
  EXPECT_EQ(last.span, 0u);
  EXPECT_FALSE(last.contains(1));
}

TEST(MsWindow, ClockReadsBefore1970OpenNoWindow) {
  const MsWindow w = MsWindow::open(7, -5 * kMs);
  EXPECT_EQ(w.ms, 0);
  EXPECT_FALSE(w.contains(7));
}

TEST(MsReader, AnyClockButTheSystemClockIsReadOnEveryCall) {
  ManualClock clock(kStartMs * kMs + 999'999);
  MsReader reader(clock);
  EXPECT_FALSE(reader.uses_tsc_windows());
  EXPECT_EQ(reader.now_ms(), kStartMs);
  clock.advance_ns(1);
  EXPECT_EQ(reader.now_ms(), kStartMs + 1);
  clock.advance_ms(-3000);  // stepped back: the reader says so, the generator copes
  EXPECT_EQ(reader.now_ms(), kStartMs - 2999);
  clock.set_ns(-1);
  EXPECT_EQ(reader.now_ms(), 0);
}

// Reads until windows have opened (if this CPU allows them) and then 200,000 more; each
// read must lie between the clock's millisecond just before and just after it. A window
// that outlived its millisecond would return one below the "before" reading.
TEST(MsReader, OnTheSystemClockNeverReturnsAMillisecondTheClockHasLeft) {
  MsReader reader(SystemClock::instance());
  const std::int64_t give_up = realtime_ns() + 5'000'000'000;  // the rate check takes ~10 ms
  int after_open = 0;
  for (long i = 0; i < 100'000'000 && after_open < 200'000; ++i) {
    const std::int64_t before = realtime_ns() / kMs;
    const std::int64_t ms = reader.now_ms();
    const std::int64_t after = realtime_ns() / kMs;
    ASSERT_LE(before, ms);
    ASSERT_LE(ms, after);
    if (reader.uses_tsc_windows())
      ++after_open;
    else if (after * kMs > give_up)
      break;
  }
  if (tsc_windows_supported())
    EXPECT_EQ(after_open, 200'000) << "the TSC rate check never passed";
  else
    EXPECT_FALSE(reader.uses_tsc_windows());
}

TEST(MsReader, UuidV7OnTheSystemClockCarriesTheClocksMillisecond) {
  UuidV7Generator gen;
  const std::int64_t stop = realtime_ns() + 50 * kMs;  // past the rate check
  int n = 0;
  for (; n < 2'000'000 && (realtime_ns() < stop || n < 100'000); ++n) {
    const std::int64_t before = realtime_ns() / kMs;
    const auto ms = static_cast<std::int64_t>(decompose_v7(gen.next()).unix_ms);
    const std::int64_t after = realtime_ns() / kMs;
    ASSERT_LE(before, ms) << n;
    ASSERT_LE(ms, after) << n;  // 42 counter bits: no borrowing from the next millisecond
  }
}

TEST(MsReader, UlidOnTheSystemClockCarriesTheClocksMillisecond) {
  UlidGenerator gen;
  const std::int64_t stop = realtime_ns() + 50 * kMs;
  for (int n = 0; n < 2'000'000 && (realtime_ns() < stop || n < 100'000); ++n) {
    const std::int64_t before = realtime_ns() / kMs;
    const auto ms = static_cast<std::int64_t>(gen.next().unix_ms());
    const std::int64_t after = realtime_ns() / kMs;
    ASSERT_LE(before, ms) << n;
    ASSERT_LE(ms, after) << n;
  }
}

}  // namespace
}  // namespace idforge::detail
