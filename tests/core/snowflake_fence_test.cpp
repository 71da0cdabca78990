// The fence in ticks: no ID whose tick ends after the fence, whichever way a call reaches
// its claim (a fresh reading, a reading taken again after a stale one, a wait for the next
// tick, borrowed ticks). And rebind(): only in a forked child, with the new node's mark.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "expect_errc.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake_generator.hpp"

namespace idforge {
namespace {

constexpr std::int64_t kMs = 1'000'000;
const Layout kTwitter = presets::twitter();
const Layout kSonyflake = presets::sonyflake();  // 10 ms ticks, 256 IDs a tick
// A whole 10 ms tick of Sonyflake's epoch (2014-09-01), long after it.
constexpr std::int64_t kT = 1'409'529'600'000 + 10 * 170'000'000'000;

// Replays readings (ns), then repeats the last one; waiting jumps to the target.
class ScriptedClock final : public Clock {
 public:
  explicit ScriptedClock(std::vector<std::int64_t> readings) : readings_(std::move(readings)) {}
  std::int64_t now_ns() noexcept override {
    const std::int64_t v = std::max(readings_[std::min(next_, readings_.size() - 1)], floor_);
    ++next_;
    return v;
  }
  void wait_until_ns(std::int64_t t) noexcept override { floor_ = std::max(floor_, t); }

 private:
  std::vector<std::int64_t> readings_;
  std::size_t next_ = 0;
  std::int64_t floor_ = 0;
};

template <typename G>
std::int64_t time_of(const G& gen, Snowflake id) {
  return decompose(gen.layout(), id).unix_ms;
}

template <typename G>
class SnowflakeFence : public ::testing::Test {};
using Variants = ::testing::Types<SharedSnowflakeGenerator, SnowflakeGenerator>;
TYPED_TEST_SUITE(SnowflakeFence, Variants);

// A thread delayed past the backward-wait bound between its reading and its claim sees a
// stamp "ahead" of its reading and reads the clock again; that second reading is past the
// fence, and must be checked against it like the first.
TYPED_TEST(SnowflakeFence, AReadingTakenAgainAfterAStaleOneIsCheckedAgainstTheFence) {
  const std::int64_t t1 = 1'700'000'000'000;
  const std::int64_t fence = t1 + 100;
  // Readings: construction, the first ID, a stale reading 10 ms back, the reading again.
  ScriptedClock clock({t1 * kMs, t1 * kMs, (t1 - 10) * kMs, (fence + 50) * kMs});
  TypeParam gen(kTwitter, 1, clock, {.max_backward_wait_ms = 5});
  gen.set_fence_unix_ms(fence);
  EXPECT_EQ(time_of(gen, gen.next()), t1);
  EXPECT_ERRC(gen.next(), errc::fenced);
}

// 10 ms ticks, fence in the middle of a tick: that tick does not end by the fence.
TYPED_TEST(SnowflakeFence, NoIdInATickThatEndsAfterTheFence) {
  ManualClock clock((kT + 12) * kMs);
  TypeParam gen(kSonyflake, 7, clock);
  gen.set_fence_unix_ms(kT + 15);  // tick [kT+10, kT+20) ends after it
  EXPECT_ERRC(gen.next(), errc::fenced);
  gen.set_fence_unix_ms(kT + 20);  // now it ends exactly at the fence
  EXPECT_EQ(time_of(gen, gen.next()), kT + 10);
}

// The sequence runs out in the last tick before the fence: the ID after the wait would be
// in the tick that starts at the fence, so the call refuses instead of waiting.
TYPED_TEST(SnowflakeFence, AWaitForTheNextTickDoesNotCarryAnIdPastTheFence) {
  ManualClock clock((kT + 12) * kMs);
  TypeParam gen(kSonyflake, 7, clock);
  gen.set_fence_unix_ms(kT + 20);
  std::vector<Snowflake> tick(256);
  gen.next_batch(tick);
  EXPECT_EQ(time_of(gen, tick.back()), kT + 10);
  for (int i = 0; i < 2; ++i) {  // next() and next_batch() take the same path
    EXPECT_ERRC(i == 0 ? gen.next() : (gen.next_batch(std::span(tick).first(1)), tick[0]),
                errc::fenced);
  }
  EXPECT_EQ(clock.waited_ns(), 0) << "waited for a tick the fence forbids";
  EXPECT_EQ(gen.last_unix_ms(), kT + 10);
}

// Borrowing 5 ms on 10 ms ticks borrows a whole tick; it stops at the fence too.
TYPED_TEST(SnowflakeFence, BorrowedTicksStopAtTheFence) {
  ManualClock clock((kT + 12) * kMs);
  TypeParam gen(kSonyflake, 7, clock, {.max_borrow_ms = 5});
  gen.set_fence_unix_ms(kT + 20);
  std::vector<Snowflake> ids(300);
  std::error_code ec;
  EXPECT_EQ(gen.next_batch(ids, ec), 256u);
  EXPECT_EQ(ec, errc::fenced);
  EXPECT_EQ(time_of(gen, ids[255]), kT + 10);
  gen.set_fence_unix_ms(kT + 30);
  EXPECT_EQ(time_of(gen, gen.next()), kT + 20);  // borrowed: the clock still reads kT + 12
  EXPECT_EQ(gen.ahead_ms(), 10);
}

// min() stops everything; max() lifts the fence.
TYPED_TEST(SnowflakeFence, MinStopsAllIssuingAndMaxLiftsTheFence) {
  ManualClock clock(1'700'000'000'000 * kMs);
  TypeParam gen(kTwitter, 1, clock);
  gen.set_fence_unix_ms(std::numeric_limits<std::int64_t>::min());
  EXPECT_THROW(gen.next(), Error);
  EXPECT_EQ(gen.last_unix_ms(), std::numeric_limits<std::int64_t>::min());  // nothing claimed
  gen.set_fence_unix_ms(std::numeric_limits<std::int64_t>::max());
  EXPECT_NO_THROW(gen.next());
  EXPECT_EQ(gen.fence_unix_ms(), std::numeric_limits<std::int64_t>::max());
}

// Fenced and then read: the mark covers everything any thread got, whatever was in flight.
TEST(SnowflakeFenceThreads, LastReadAfterTheFenceCoversEveryIdReturned) {
  for (int round = 0; round < 20; ++round) {
    SharedSnowflakeGenerator gen(kTwitter, 9);
    std::atomic<bool> go{true};
    std::atomic<std::size_t> issued{0};  // the threads own got[t]; main reads only this count
    std::vector<std::vector<Snowflake>> got(2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&, t] {
        while (go.load(std::memory_order_relaxed)) {
          try {
            got[t].push_back(gen.next());
            issued.fetch_add(1, std::memory_order_relaxed);
          } catch (const Error&) {
            return;  // fenced: nothing more from this thread
          }
        }
      });
    while (issued.load(std::memory_order_relaxed) < 20'000) std::this_thread::yield();
    gen.set_fence_unix_ms(std::numeric_limits<std::int64_t>::min());
    const std::int64_t mark = gen.last_unix_ms();
    go = false;
    for (auto& th : threads) th.join();
    for (const auto& v : got)
      for (Snowflake id : v) ASSERT_LE(time_of(gen, id), mark);
  }
}

// ---- rebind -------------------------------------------------------------------------------

TEST(SnowflakeRebind, OnlyAForkedChildMayRebind) {
  ManualClock clock(1'700'000'000'000 * kMs);
  SharedSnowflakeGenerator gen(kTwitter, 1, clock);
  EXPECT_ERRC(gen.rebind(2), errc::invalid_argument);
  EXPECT_EQ(gen.node(), 1u);
}

// In the child: threads calling next() while the main thread rebinds see either the
// refusal or the new node above its mark, never a mix.
TEST(SnowflakeRebind, ChildThreadsRacingRebindSeeTheOldRefusalOrTheNewNodeInFull) {
  ManualClock clock(1'700'000'000'000 * kMs);
  SharedSnowflakeGenerator gen(kTwitter, 1, clock);
  gen.next();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::int64_t mark = 1'700'000'000'003;
    std::atomic<int> bad{0}, issued{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&] {
        while (!stop.load()) {
          try {
            const SnowflakeParts p = decompose(kTwitter, gen.next());
            if (p.node != 2 || p.unix_ms <= mark) ++bad;
            ++issued;
          } catch (const Error& e) {
            if (e.code() != errc::forked) ++bad;
          }
        }
      });
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let them spin on the refusal
    gen.rebind(2, mark);
    clock.advance_ms(10);
    while (issued.load() < 1000) std::this_thread::yield();
    stop = true;
    for (auto& th : threads) th.join();
    _exit(bad.load() == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace idforge
