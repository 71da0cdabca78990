#include "idforge/snowflake_generator.hpp"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

#include "expect_errc.hpp"
#include "idforge/error.hpp"

namespace idforge {
namespace {

using Step = SnowflakeRule::Step;
constexpr std::int64_t kMs = 1'000'000;
const Layout kTwitter = presets::twitter();
// A whole millisecond, well after Twitter's epoch.
constexpr std::int64_t kStartMs = 1'700'000'000'000;

// Counts clock reads, to check that a batch reads the clock once per tick.
class CountingClock final : public Clock {
 public:
  explicit CountingClock(ManualClock& inner) : inner_(inner) {}
  std::int64_t now_ns() noexcept override { return ++reads, inner_.now_ns(); }
  void wait_until_ns(std::int64_t t) noexcept override { inner_.wait_until_ns(t); }
  int reads = 0;

 private:
  ManualClock& inner_;
};

// Replays a script of readings, then keeps returning the last one: models a thread that
// read the clock, was preempted, and claims after other threads moved the state on.
class ScriptedClock final : public Clock {
 public:
  explicit ScriptedClock(std::vector<std::int64_t> readings) : readings_(std::move(readings)) {}
  std::int64_t now_ns() noexcept override {
    const std::int64_t v = readings_[std::min(next_, readings_.size() - 1)];
    ++next_;
    return v;
  }
  void wait_until_ns(std::int64_t) noexcept override {}

 private:
  std::vector<std::int64_t> readings_;
  std::size_t next_ = 0;
};

SnowflakeParts parts(Snowflake id) {
  return decompose(kTwitter, id);
}

// --- the pure transition -------------------------------------------------------------

constexpr SnowflakeRule::Limits kLim{12, (1ull << 41) - 1, 0, 5};

TEST(SnowflakeAdvance, NewTickStartsAtSequenceZero) {
  const Step s = SnowflakeRule::advance((100ull << 12) | 7, 101, kLim);
  EXPECT_EQ(s.kind, Step::Kind::issue);
  EXPECT_EQ(s.stamp, 101ull << 12);
}

TEST(SnowflakeAdvance, SameTickIncrementsSequence) {
  const Step s = SnowflakeRule::advance((100ull << 12) | 7, 100, kLim);
  EXPECT_EQ(s.kind, Step::Kind::issue);
  EXPECT_EQ(s.stamp, (100ull << 12) | 8);
}

TEST(SnowflakeAdvance, FullSequenceWaitsForNextTick) {
  const Step s = SnowflakeRule::advance((100ull << 12) | 4095, 100, kLim);
  EXPECT_EQ(s.kind, Step::Kind::wait);
  EXPECT_EQ(s.until_tick, 101);
  EXPECT_EQ(s.behind, 0);
}

TEST(SnowflakeAdvance, SmallStepBackWaitsLargeStepBackRefuses) {
  const Step w = SnowflakeRule::advance((100ull << 12) | 3, 95, kLim);
  EXPECT_EQ(w.kind, Step::Kind::wait);
  EXPECT_EQ(w.until_tick, 100);  // the sequence is not full: tick 100 again, sequence 4
  EXPECT_EQ(w.behind, 5);
  const Step r = SnowflakeRule::advance((100ull << 12) | 3, 94, kLim);
  EXPECT_EQ(r.kind, Step::Kind::refuse_backwards);
  EXPECT_EQ(r.behind, 6);
}

TEST(SnowflakeAdvance, BorrowingIssuesAheadInsteadOfWaiting) {
  SnowflakeRule::Limits lim = kLim;
  lim.borrow_ticks = 2;
  EXPECT_EQ(SnowflakeRule::advance((100ull << 12) | 4095, 100, lim).stamp, 101ull << 12);
  EXPECT_EQ(SnowflakeRule::advance((102ull << 12) | 4095, 100, lim).kind, Step::Kind::wait);
}

TEST(SnowflakeAdvance, LastTickOfTheTimeFieldIsTheEnd) {
  SnowflakeRule::Limits lim = kLim;
  lim.max_tick = 100;
  EXPECT_EQ(SnowflakeRule::advance((100ull << 12) | 4095, 100, lim).kind,
            Step::Kind::time_exhausted);
  EXPECT_EQ(SnowflakeRule::advance(0, 101, lim).kind, Step::Kind::time_exhausted);
}

// --- both variants with a manual clock ---------------------------------------------

template <typename G>
class SnowflakeGeneratorBoth : public ::testing::Test {};
using Variants = ::testing::Types<SharedSnowflakeGenerator, SnowflakeGenerator>;
TYPED_TEST_SUITE(SnowflakeGeneratorBoth, Variants);

TYPED_TEST(SnowflakeGeneratorBoth, FirstIdCarriesClockNodeAndSequenceZero) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 37, clock);
  const SnowflakeParts p = parts(gen.next());
  EXPECT_EQ(p.unix_ms, kStartMs);
  EXPECT_EQ(p.node, 37u);
  EXPECT_EQ(p.sequence, 0u);
  EXPECT_EQ(gen.last_unix_ms(), kStartMs);
}

TYPED_TEST(SnowflakeGeneratorBoth, The4097thIdInOneMillisecondWaitsForTheNext) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock);
  Snowflake prev{};
  for (int i = 0; i < 4096; ++i) {
    const Snowflake id = gen.next();
    EXPECT_GT(id, prev);
    prev = id;
    EXPECT_EQ(parts(id).sequence, static_cast<std::uint64_t>(i));
  }
  EXPECT_EQ(clock.waited_ns(), 0);
  const Snowflake last = gen.next();
  EXPECT_EQ(clock.waited_ns(), 1 * kMs);
  EXPECT_EQ(parts(last).unix_ms, kStartMs + 1);
  EXPECT_EQ(parts(last).sequence, 0u);
  EXPECT_EQ(gen.stats().exhausted_waits, 1u);
}

TYPED_TEST(SnowflakeGeneratorBoth, ClockBackThreeMsWaitsAndKeepsTheSequence) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock);  // default wait bound: 5 ms
  gen.next();
  const Snowflake before = gen.next();
  clock.advance_ms(-3);
  const Snowflake after = gen.next();
  EXPECT_EQ(clock.waited_ns(), 3 * kMs);
  EXPECT_GT(after, before);
  EXPECT_EQ(parts(after).unix_ms, kStartMs);
  EXPECT_EQ(parts(after).sequence, 2u);  // not reset to 0 on the repeated millisecond
  EXPECT_EQ(gen.stats().backward_waits, 1u);
}

TYPED_TEST(SnowflakeGeneratorBoth, ClockBackTenSecondsRefusesWithTypedErrorAndIssuesNothing) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock);
  const Snowflake before = gen.next();
  clock.advance_ms(-10'000);
  try {
    gen.next();
    FAIL() << "issued an ID with the clock 10 s behind";
  } catch (const ClockBackwardsError& e) {
    EXPECT_EQ(e.code(), errc::clock_moved_backwards);
    EXPECT_EQ(e.behind_ms(), 10'000);
    EXPECT_NE(std::string(e.what()).find("10000 ms behind"), std::string::npos) << e.what();
  }
  EXPECT_EQ(clock.waited_ns(), 0);
  EXPECT_EQ(gen.last_unix_ms(), kStartMs);
  EXPECT_EQ(gen.stats().backward_refusals, 1u);
  clock.advance_ms(10'000);
  EXPECT_GT(gen.next(), before);
}

// A step back is judged by the wait it needs in ms, not in whole ticks: on a 1 s tick a
// 1.998 s step rounded to one tick, and the call waited 999 ms against a 5 ms bound (on a
// day-long tick a 47 h step waited 23 h).
TYPED_TEST(SnowflakeGeneratorBoth, AStepBackNeedingAWaitPastTheBoundIsRefusedOnLongTicks) {
  const Layout slow = parse_layout("time=41,node=10,seq=12,tick=1000ms,epoch=2020-01-01", kStartMs);
  ManualClock clock((kStartMs + 999) * kMs);  // the last ms of a tick (kStartMs is whole)
  ASSERT_EQ(kStartMs % 1000, 0);
  TypeParam gen(slow, 1, clock);  // default wait bound: 5 ms
  const Snowflake before = gen.next();
  clock.advance_ms(-1998);  // into the tick before: one tick behind, 999 ms from its start
  try {
    gen.next();
    FAIL() << "waited out a step back of 1998 ms";
  } catch (const ClockBackwardsError& e) {
    EXPECT_EQ(e.behind_ms(), 999) << e.what();
    EXPECT_NE(std::string(e.what()).find("waits at most 5 ms"), std::string::npos) << e.what();
  }
  EXPECT_EQ(clock.waited_ns(), 0);
  EXPECT_EQ(gen.stats().backward_refusals, 1u);
  // A step that needs no more than the bound is still waited out, on the same tick size.
  clock.set_ns((kStartMs - 3) * kMs);  // 3 ms before the last issued tick begins
  const Snowflake after = gen.next();
  EXPECT_EQ(clock.waited_ns(), 3 * kMs);
  EXPECT_GT(after, before);
}

TYPED_TEST(SnowflakeGeneratorBoth, ADayLongTickRefusesAStepBackOfHours) {
  const Layout daily =
      parse_layout("time=41,node=10,seq=12,tick=86400000ms,epoch=2020-01-01", kStartMs);
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(daily, 1, clock);
  gen.next();
  clock.advance_ms(-47LL * 3'600'000);  // 47 h: one or two day-ticks back
  EXPECT_THROW(gen.next(), ClockBackwardsError);
  EXPECT_EQ(clock.waited_ns(), 0) << "a wait of hours was begun";
}

TYPED_TEST(SnowflakeGeneratorBoth, AStaleReadingIsReadAgainBeforeRefusing) {
  // Readings: construction, first ID at T+8, then a stale T (read before a preemption)
  // followed by the true T+8 on the re-read.
  const std::int64_t t = kStartMs * kMs;
  ScriptedClock clock({t + 8 * kMs, t + 8 * kMs, t, t + 8 * kMs});
  TypeParam gen(kTwitter, 1, clock, {.max_backward_wait_ms = 5});
  const Snowflake first = gen.next();
  const Snowflake second = gen.next();  // must not throw "8 ms behind"
  EXPECT_GT(second, first);
  EXPECT_EQ(parts(second).unix_ms, kStartMs + 8);
}

// A clock that, on chosen readings, lets "another thread" claim first: the hook runs after
// the reading is taken and before the caller uses it, as a preemption at that point would.
class PreemptingClock final : public Clock {
 public:
  std::int64_t now_ns() noexcept override {
    const std::int64_t v = now_;
    const std::size_t n = reads_++;
    if (hook_ && n < preempt_.size() && preempt_[n]) hook_();
    return v;
  }
  void wait_until_ns(std::int64_t t) noexcept override { now_ = std::max(now_, t); }
  std::int64_t now_ = 0;
  std::size_t reads_ = 0;
  std::vector<bool> preempt_;
  std::function<void()> hook_;
};

// Under load (TSan, 4 threads on 2 cores) a thread read the clock, lost the core, and twice
// in a row found later ticks claimed by others: it refused with "clock moved backwards"
// though the clock never went back. Each reading followed by a newer claim is read again.
TEST(SnowflakeGenerator, AReadingOvertakenTwiceByOtherClaimsIsReadAgainNotRefused) {
  PreemptingClock clock;
  clock.now_ = kStartMs * kMs;
  SharedSnowflakeGenerator gen(kTwitter, 1, clock, {.max_backward_wait_ms = 0});
  gen.next();
  // Readings from here: #r (the caller's, then overtaken: the clock moves 8 ms and
  // another caller claims), #r+1 (the other's), #r+2 (the caller's re-read, overtaken
  // again the same way), #r+3 (the other's), #r+4 (the caller's third reading).
  const std::size_t r = clock.reads_;
  clock.preempt_.assign(r + 5, false);
  clock.preempt_[r] = clock.preempt_[r + 2] = true;
  std::vector<Snowflake> theirs;
  clock.hook_ = [&] {
    clock.now_ += 8 * kMs;
    theirs.push_back(gen.next());
  };
  Snowflake mine;
  EXPECT_NO_THROW(mine = gen.next());
  ASSERT_EQ(theirs.size(), 2u);
  EXPECT_GT(mine, theirs.back());
  EXPECT_EQ(parts(mine).unix_ms, kStartMs + 16);
}

TYPED_TEST(SnowflakeGeneratorBoth, RefusePolicyRefusesEvenOneMillisecondBack) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock, {.max_backward_wait_ms = 0});
  gen.next();
  clock.advance_ms(-1);
  EXPECT_THROW(gen.next(), ClockBackwardsError);
}

TYPED_TEST(SnowflakeGeneratorBoth, BorrowingRunsAheadWithinItsBoundAndReportsIt) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock, {.max_borrow_ms = 2});
  std::vector<Snowflake> ids(3 * 4096);
  gen.next_batch(ids);
  EXPECT_EQ(clock.waited_ns(), 0);
  EXPECT_EQ(parts(ids.back()).unix_ms, kStartMs + 2);
  EXPECT_EQ(gen.ahead_ms(), 2);
  EXPECT_EQ(gen.stats().max_ahead_ms, 2);
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  gen.next();  // beyond the bound: waits for the clock
  EXPECT_EQ(clock.waited_ns(), 1 * kMs);
}

TYPED_TEST(SnowflakeGeneratorBoth, BatchReadsTheClockOncePerTick) {
  ManualClock manual(kStartMs * kMs);
  CountingClock clock(manual);
  TypeParam gen(kTwitter, 3, clock);
  const int reads_at_start = clock.reads;
  std::vector<Snowflake> ids(10'000);
  gen.next_batch(ids);
  // 10,000 IDs need ticks T, T+1, T+2: one read each.
  EXPECT_EQ(clock.reads - reads_at_start, 3);
  for (std::size_t i = 1; i < ids.size(); ++i) ASSERT_LT(ids[i - 1], ids[i]);
  EXPECT_EQ(parts(ids.back()).unix_ms, kStartMs + 2);
  EXPECT_EQ(parts(ids.back()).sequence, 10'000u - 2 * 4096 - 1);
}

TYPED_TEST(SnowflakeGeneratorBoth, BatchStopsAtARefusalAndReportsWhatItWrote) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 3, clock, {.max_backward_wait_ms = 0});
  gen.next();
  clock.advance_ms(-1);
  std::vector<Snowflake> ids(5);
  std::error_code ec;
  EXPECT_EQ(gen.next_batch(ids, ec), 0u);
  EXPECT_EQ(ec, errc::clock_moved_backwards);
  EXPECT_THROW(gen.next_batch(ids), ClockBackwardsError);
}

// A layout with a day-long tick and a 1-bit sequence: its third ID in a tick used to block
// the caller until the next day, with no way to interrupt it.
TYPED_TEST(SnowflakeGeneratorBoth, ANextTickBeyondTheSequenceWaitBoundIsRefusedNotAwaited) {
  const Layout day =
      parse_layout("time=58,node=4,seq=1,tick=86400000ms,epoch=2020-01-01", kStartMs);
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(day, 2, clock, {.max_sequence_wait_ms = 1000});
  const Snowflake a = gen.next(), b = gen.next();
  EXPECT_LT(a, b);
  try {
    gen.next();
    ADD_FAILURE() << "waited";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::counter_exhausted);
    EXPECT_NE(std::string(e.what()).find("max_sequence_wait_ms = 1000"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("the 2 IDs of this 86400000 ms tick are used up"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(clock.waited_ns(), 0);
  std::vector<Snowflake> ids(3);
  std::error_code ec;
  EXPECT_EQ(gen.next_batch(ids, ec), 0u);
  EXPECT_EQ(ec, errc::counter_exhausted);
  // Once the next tick begins, it issues again, above everything before.
  clock.set_ms(decompose(day, b).unix_ms + 86'400'000);
  EXPECT_GT(gen.next(), b);
  // A batch that reaches the end of a tick stops there instead of waiting a day for the rest.
  std::vector<Snowflake> more(4);
  EXPECT_EQ(gen.next_batch(more, ec), 1u);
  EXPECT_EQ(ec, errc::counter_exhausted);
  EXPECT_EQ(clock.waited_ns(), 0);
}

TYPED_TEST(SnowflakeGeneratorBoth, ANextTickWithinTheSequenceWaitBoundIsAwaited) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock, {.max_sequence_wait_ms = 1});
  std::vector<Snowflake> ids(4097);
  gen.next_batch(ids);
  EXPECT_EQ(clock.waited_ns(), 1 * kMs);
  EXPECT_THROW(TypeParam(kTwitter, 1, clock, {.max_sequence_wait_ms = -1}), Error);
  EXPECT_THROW(TypeParam(kTwitter, 1, clock, {.max_sequence_wait_ms = 86'400'001}), Error);
}

// Each wait of a batch was within the bound, but together they were not: a batch of 5 on a
// layout with one ID per 999 ms tick blocked its caller 5 s. A batch's waits now end
// max_sequence_wait_ms after its first reading; what it wrote stays valid.
TYPED_TEST(SnowflakeGeneratorBoth, ABatchWaitsAtMostTheSequenceWaitBoundInAll) {
  const Layout slow = parse_layout("time=50,dc=0,worker=13,seq=0,tick=999ms", kStartMs);
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(slow, 2, clock, {.max_sequence_wait_ms = 1000});
  std::vector<Snowflake> ids(5);
  std::error_code ec;
  EXPECT_EQ(gen.next_batch(ids, ec), 2u);  // this tick's one, then one wait of under 1 s
  EXPECT_EQ(ec, errc::counter_exhausted);
  EXPECT_LE(clock.waited_ns(), 1000 * kMs);
  EXPECT_LT(ids[0], ids[1]);
  try {
    gen.next_batch(ids);
    ADD_FAILURE() << "waited past the bound";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::counter_exhausted);
    EXPECT_NE(std::string(e.what()).find("a batch waits at most 1000 ms in all"), std::string::npos)
        << e.what();
  }
  EXPECT_LE(clock.waited_ns(), 2000 * kMs);
  // Twitter's layout with a 1 s bound: a batch of more IDs than a second holds stops after
  // about a second of ticks; each ID it wrote is above the one before.
  ManualClock tw_clock(kStartMs * kMs);
  TypeParam tw(kTwitter, 1, tw_clock, {.max_sequence_wait_ms = 1000});
  std::vector<Snowflake> many(5'000'000);
  const std::size_t got = tw.next_batch(many, ec);
  EXPECT_EQ(ec, errc::counter_exhausted);
  EXPECT_GE(got, 4096u * 1000);
  EXPECT_LE(got, 4096u * 1001);
  EXPECT_LE(tw_clock.waited_ns(), 1000 * kMs);
  for (std::size_t i = 1; i < got; ++i) ASSERT_LT(many[i - 1], many[i]) << i;
}

TYPED_TEST(SnowflakeGeneratorBoth, HighWaterMarkOfAnEarlierHolderIsNeverReissued) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock, {.issued_up_to_unix_ms = kStartMs + 4});
  const SnowflakeParts p = parts(gen.next());
  EXPECT_EQ(p.unix_ms, kStartMs + 5);  // strictly after the mark's millisecond
  EXPECT_EQ(clock.waited_ns(), 5 * kMs);
}

TYPED_TEST(SnowflakeGeneratorBoth, HighWaterMarkFarAheadOfTheClockRefuses) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock, {.issued_up_to_unix_ms = kStartMs + 10'000});
  EXPECT_THROW(gen.next(), ClockBackwardsError);
}

TYPED_TEST(SnowflakeGeneratorBoth, FenceStopsIssuingAtTheDeadline) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock);
  gen.set_fence_unix_ms(kStartMs + 1);
  gen.next();
  clock.advance_ms(1);
  EXPECT_ERRC(gen.next(), errc::fenced);
  gen.set_fence_unix_ms(kStartMs + 1000);
  EXPECT_NO_THROW(gen.next());
}

TYPED_TEST(SnowflakeGeneratorBoth, EpochAfterTheClockIsRefusedAtConstruction) {
  ManualClock clock(kTwitter.epoch_ms() * kMs - 1);
  EXPECT_ERRC(TypeParam gen(kTwitter, 1, clock), errc::epoch_in_future);
}

TYPED_TEST(SnowflakeGeneratorBoth, ClockBeforeEpochLaterIsRefused) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(kTwitter, 1, clock, {.max_backward_wait_ms = 0});
  clock.set_ms(kTwitter.epoch_ms() - 1);
  EXPECT_ERRC(gen.next(), errc::clock_before_epoch);
}

TYPED_TEST(SnowflakeGeneratorBoth, NodeOutOfRangeIsRefusedAtConstruction) {
  ManualClock clock(kStartMs * kMs);
  EXPECT_THROW(TypeParam(kTwitter, 1024, clock), Error);
}

TYPED_TEST(SnowflakeGeneratorBoth, TimeFieldRunsOutWithATypedError) {
  const Layout tiny =
      Layout::make({"tiny", 20, 0, 31, 12, 1, 0, FieldOrder::time_node_sequence, true}, kStartMs);
  ManualClock clock(((1 << 20) - 1) * kMs);
  TypeParam gen(tiny, 0, clock);
  std::vector<Snowflake> ids(4096);
  gen.next_batch(ids);
  EXPECT_ERRC(gen.next(), errc::time_exhausted);
}

TYPED_TEST(SnowflakeGeneratorBoth, SonyflakeTicksAreTenMilliseconds) {
  ManualClock clock(kStartMs * kMs);
  TypeParam gen(presets::sonyflake(), 65535, clock);
  std::vector<Snowflake> ids(257);
  gen.next_batch(ids);
  EXPECT_EQ(clock.waited_ns(), 10 * kMs);
  const SnowflakeParts p = decompose(presets::sonyflake(), ids.back());
  EXPECT_EQ(p.node, 65535u);
  EXPECT_EQ(p.sequence, 0u);
  EXPECT_EQ(p.unix_ms, kStartMs + 10);
}

// fork() or the raw system call, which skips the pthread_atfork handlers.
template <class Gen>
void child_refuses_until_rebound(pid_t (*do_fork)()) {
  ManualClock clock(kStartMs * kMs);
  Gen gen(kTwitter, 1, clock);
  gen.next();
  const pid_t pid = do_fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 0;
    try {
      gen.next();
      code = 1;  // must not issue with the parent's node ID
    } catch (const Error& e) {
      if (e.code() != errc::forked) code = 2;
    }
    gen.rebind(2);
    try {
      if (decompose(kTwitter, gen.next()).node != 2) code = 3;
    } catch (...) {
      code = 4;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NO_THROW(gen.next());  // the parent is unaffected
}

TYPED_TEST(SnowflakeGeneratorBoth, ChildProcessRefusesUntilRebound) {
  child_refuses_until_rebound<TypeParam>([] { return fork(); });
}

TYPED_TEST(SnowflakeGeneratorBoth, ChildOfARawForkSystemCallRefusesUntilRebound) {
  child_refuses_until_rebound<TypeParam>([] { return static_cast<pid_t>(syscall(SYS_fork)); });
}

// --- threads on the system clock -----------------------------------------------------

TEST(SnowflakeGenerator, FourThreadsTimesOneMillionAreUniqueAndIncreasingPerThread) {
  SharedSnowflakeGenerator gen(kTwitter, 5);
  constexpr int kThreads = 4, kPerThread = 1'000'000;
  std::vector<std::vector<Snowflake>> got(kThreads, std::vector<Snowflake>(kPerThread));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (auto& id : got[t]) id = gen.next();
    });
  for (auto& th : threads) th.join();
  std::vector<Snowflake> all;
  all.reserve(kThreads * kPerThread);
  for (const auto& v : got) {
    for (std::size_t i = 1; i < v.size(); ++i)
      ASSERT_LT(v[i - 1], v[i]) << "not increasing at " << i;
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate ID";
}

TEST(SnowflakeGenerator, BatchesAndSinglesFromTwoThreadsNeverCollide) {
  SharedSnowflakeGenerator gen(kTwitter, 6);
  std::vector<Snowflake> a(300'000), b(300'000);
  std::thread t1([&] {
    for (std::size_t i = 0; i < a.size(); i += 1000) gen.next_batch(std::span(a).subspan(i, 1000));
  });
  std::thread t2([&] {
    for (auto& id : b) id = gen.next();
  });
  t1.join();
  t2.join();
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  EXPECT_EQ(std::adjacent_find(a.begin(), a.end()), a.end());
}

}  // namespace
}  // namespace idforge
