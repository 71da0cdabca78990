// A start-up that waits for the clock to pass the stored mark reserves nothing until the
// wait is over: stopped during the wait (a supervisor's start timeout, kill -9), it leaves
// the mark where it was, so a restart loop converges instead of pushing the mark one
// reservation further at every attempt. On a ManualClock and a file: store.
#include <gtest/gtest.h>

#include <stop_token>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/leased_generator.hpp"
#include "idforge/snowflake.hpp"
#include "test_support.hpp"

namespace idforge::coord {
namespace {

const Layout kTwitter = presets::twitter();
constexpr std::int64_t kT = 1'800'000'000'000;
constexpr std::int64_t kMs = 1'000'000;

// The mark the store holds for node 0 now (taken and given back with that mark).
std::int64_t stored_mark(const std::string& url) {
  auto store = open_lease_store(url);
  Lease l = store->acquire_node(kTwitter, 0);
  const std::int64_t mark = l.high_water_unix_ms;
  store->release(l, mark);
  return mark;
}

TEST(StartWait, AStartStoppedWhileWaitingForTheClockLeavesTheMarkWhereItWas) {
  test::ScratchDir dir;
  const std::string url = "file:" + dir.path() + "?ttl=10000";
  // A holder that reserved up to kT + 10 s and was killed at kT (kill -9: no release).
  {
    auto store = open_lease_store(url);
    Lease l = store->acquire_node(kTwitter, 0);
    store->renew(l, kT + 10'000);
    store->release(l, kT + 10'000);
  }
  ASSERT_EQ(stored_mark(url), kT + 10'000);

  // Three starts, each stopped during its wait 2 s, 3 s and 4 s after the crash.
  for (const std::int64_t after_ms : {2'000, 3'000, 4'000}) {
    ManualClock clock((kT + after_ms) * kMs);
    std::stop_source stop;
    LeasedOptions o;
    o.keeper.renew_in_background = false;
    o.stop = stop.get_token();
    std::int64_t told_behind = 0;
    o.on_start_wait = [&](const StartWait& w) {
      told_behind = w.wait_ms;
      stop.request_stop();  // the supervisor's timeout, at the worst moment
    };
    try {
      SharedLeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter, clock, {}, o);
      FAIL() << "a start with the clock behind the mark did not wait";
    } catch (const LeaseError& e) {
      EXPECT_EQ(e.reason(), LeaseFailure::cancelled) << e.what();
    }
    EXPECT_EQ(told_behind, kT + 10'000 - (kT + after_ms) + 1);
    EXPECT_EQ(stored_mark(url), kT + 10'000)
        << "a start stopped " << after_ms << " ms after the crash pushed the mark";
  }

  // A start that is let through issues above the mark and only then reserves from now.
  ManualClock clock((kT + 10'001) * kMs);
  LeasedOptions o;
  o.keeper.renew_in_background = false;
  SharedLeasedSnowflakeGenerator gen(open_lease_store(url), kTwitter, clock, {}, o);
  const SnowflakeParts p = decompose(kTwitter, gen.next());
  EXPECT_GT(p.unix_ms, kT + 10'000);
  EXPECT_GE(gen.keeper().status().reserved_unix_ms, kT + 10'001 + 10'000 - 1);
}

}  // namespace
}  // namespace idforge::coord
