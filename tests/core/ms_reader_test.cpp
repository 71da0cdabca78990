// MsReader: the TSC window that stands in for clock_gettime inside a known millisecond never
// returns a millisecond the clock has left, and any clock but the system clock is read as is.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "idforge/detail/ms_reader.hpp"
#include "idforge/snowflake_generator.hpp"
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

TEST(MsReaderGates, OnlyTheTscClocksourceOpensWindows) {
  EXPECT_TRUE(is_tsc_clocksource("tsc\n"));
  EXPECT_TRUE(is_tsc_clocksource("tsc"));
  EXPECT_FALSE(is_tsc_clocksource("kvm-clock\n"));  // per-vCPU pvclock: no window
  EXPECT_FALSE(is_tsc_clocksource("hpet\n"));
  EXPECT_FALSE(is_tsc_clocksource("acpi_pm\n"));
  EXPECT_FALSE(is_tsc_clocksource("tsc-early\n"));
  EXPECT_FALSE(is_tsc_clocksource(""));
  // The process-wide probe never says yes unless the kernel keeps time with the TSC.
  if (tsc_windows_supported()) EXPECT_TRUE(kernel_clocksource_is_tsc());
}

TEST(MsReaderGates, RateCheckNeedsTenMillisecondsAtHalfATickPerNanosecond) {
  EXPECT_TRUE(tsc_rate_checked(5'000'000, 10'000'000));
  EXPECT_TRUE(tsc_rate_checked(24'500'000, 10'000'000));  // 2.45 GHz
  EXPECT_FALSE(tsc_rate_checked(4'999'999, 10'000'000));
  EXPECT_FALSE(tsc_rate_checked(5'000'000, 10'000'001));
  EXPECT_FALSE(tsc_rate_checked(100'000'000, 9'999'999));  // too short to tell
  EXPECT_FALSE(tsc_rate_checked(0, 0));
}

// Reads until the reader's windows are open, for up to 5 s; false if they never open.
bool open_windows(MsReader& reader) {
  const std::int64_t give_up = realtime_ns() + 5'000'000'000;
  while (!reader.uses_tsc_windows() && realtime_ns() < give_up) reader.now_ms();
  return reader.uses_tsc_windows();
}

// n reads, each between the clock's millisecond just before and just after it; the first
// failing read's index, or -1.
long first_read_outside_the_clock(MsReader& reader, long n) {
  for (long i = 0; i < n; ++i) {
    const std::int64_t before = realtime_ns() / kMs;
    const std::int64_t ms = reader.now_ms();
    const std::int64_t after = realtime_ns() / kMs;
    if (ms < before || ms > after) return i;
  }
  return -1;
}

// A forked child inherits the parent's open window: the counter it reads is the same
// machine's, so the window still ends before its millisecond does.
TEST(MsReader, AForkedChildNeverReturnsAMillisecondTheClockHasLeft) {
  MsReader reader(SystemClock::instance());
  if (!open_windows(reader)) GTEST_SKIP() << "no TSC windows on this machine";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(first_read_outside_the_clock(reader, 300'000) == -1 ? 0 : 1);
  EXPECT_EQ(first_read_outside_the_clock(reader, 300'000), -1);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child read a stale ms";
}

// The thread moves to another CPU before every read (sched_setaffinity): a window opened
// on one CPU is tested against the other's counter.
TEST(MsReader, MovingBetweenCpusNeverReturnsAMillisecondTheClockHasLeft) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 4; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU";
  MsReader reader(SystemClock::instance());
  if (!open_windows(reader)) GTEST_SKIP() << "no TSC windows on this machine";
  long failures = 0;
  for (int i = 0; i < 5'000; ++i) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[static_cast<std::size_t>(i) % cpus.size()], &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    if (first_read_outside_the_clock(reader, 3) != -1) ++failures;
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof allowed, &allowed), 0);
  EXPECT_EQ(failures, 0);
  EXPECT_TRUE(reader.uses_tsc_windows());
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

// Snowflake generators read the system clock through each thread's window too (a shared
// generator from several threads at once): every ID carries a millisecond between the
// clock's just before and just after the call, and the IDs of each thread increase.
template <class Gen>
void snowflake_carries_the_clocks_millisecond(Gen& gen, int threads) {
  std::vector<std::thread> pool;
  std::vector<int> bad(static_cast<std::size_t>(threads), 0);
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::int64_t stop = realtime_ns() + 50 * kMs;  // past each thread's rate check
      std::uint64_t prev = 0;
      for (int n = 0; n < 2'000'000 && (realtime_ns() < stop || n < 100'000); ++n) {
        const std::int64_t before = realtime_ns() / kMs;
        const Snowflake id = gen.next();
        const std::int64_t after = realtime_ns() / kMs;
        const std::int64_t ms = decompose(gen.layout(), id).unix_ms;
        if (ms < before || ms > after || id.value() <= prev) {
          ++bad[static_cast<std::size_t>(t)];
          break;
        }
        prev = id.value();
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(bad[static_cast<std::size_t>(t)], 0) << "thread " << t;
}

// 22 sequence bits: 4M IDs per ms, never used up at this speed, so no wait and no borrowing.
Layout wide() {
  return parse_layout("time=40,node=1,seq=22");
}

TEST(MsReader, SnowflakeOnTheSystemClockCarriesTheClocksMillisecond) {
  SnowflakeGenerator gen(wide(), 1);
  snowflake_carries_the_clocks_millisecond(gen, 1);
}

TEST(MsReader, SharedSnowflakeFromTwoThreadsCarriesTheClocksMillisecond) {
  SharedSnowflakeGenerator gen(wide(), 1);
  snowflake_carries_the_clocks_millisecond(gen, 2);
}

}  // namespace
}  // namespace idforge::detail
