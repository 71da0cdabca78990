// Run under libfaketime (tests/core/CMakeLists.txt sets LD_PRELOAD and a timestamp file): the
// system clock is stepped back 3 s while Snowflakes are issued at the layout's ceiling, so
// calls are waiting for the next millisecond when it happens. No call may be held for the
// step (a wait measured on CLOCK_REALTIME held one for 3 s); the generator must refuse the
// step back, and the IDs stay increasing. Exit 0 on success, 1 on a failed check, 77 when
// libfaketime is not loaded (the step cannot be made).
#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "idforge/snowflake_generator.hpp"

namespace {

std::int64_t mono_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

bool set_offset(const char* path, const char* offset) {
  std::FILE* f = std::fopen(path, "w");
  if (!f) return false;
  std::fputs(offset, f);
  return std::fclose(f) == 0;
}

}  // namespace

int main() {
  using namespace idforge;
  const char* file = std::getenv("FAKETIME_TIMESTAMP_FILE");
  const char* preload = std::getenv("LD_PRELOAD");
  if (!file || !preload || !set_offset(file, "+0")) {
    std::puts("clock_step_probe: libfaketime is not loaded; nothing to step");
    return 77;
  }
  // Is the clock really faked? Step it a day ahead and look.
  const std::int64_t before = realtime_ms();
  set_offset(file, "+86400");
  const bool faked = realtime_ms() - before > 80'000'000;
  set_offset(file, "+0");
  if (!faked) {
    std::puts("clock_step_probe: the clock did not move with the timestamp file");
    return 77;
  }

  SharedSnowflakeGenerator gen(presets::twitter(), 3);
  std::atomic<bool> stop{false};
  std::vector<std::thread> pool;
  std::vector<std::int64_t> longest(2, 0), refusals(2, 0), out_of_order(2, 0), issued(2, 0);
  for (int t = 0; t < 2; ++t)
    pool.emplace_back([&, t] {
      std::uint64_t prev = 0;
      while (!stop.load()) {
        const std::int64_t start = mono_ms();
        try {
          const std::uint64_t id = gen.next().value();
          if (id <= prev) ++out_of_order[t];
          prev = id;
          ++issued[t];
        } catch (const ClockBackwardsError&) {
          ++refusals[t];
        }
        longest[t] = std::max(longest[t], mono_ms() - start);
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  set_offset(file, "-3");
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  stop = true;
  for (auto& th : pool) th.join();
  set_offset(file, "+0");

  // A wait for a time the clock then steps back from ends after as long as it was.
  const std::int64_t target = realtime_ns() + 50'000'000;
  std::thread stepper([file] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    set_offset(file, "-3");
  });
  const std::int64_t wait_start = mono_ms();
  SystemClock(WaitMode::hybrid).wait_until_ns(target);
  const std::int64_t waited = mono_ms() - wait_start;
  stepper.join();
  set_offset(file, "+0");

  int failures = 0;
  for (int t = 0; t < 2; ++t) {
    std::printf("thread %d: %lld IDs, %lld refusals, longest call %lld ms, %lld out of order\n", t,
                static_cast<long long>(issued[t]), static_cast<long long>(refusals[t]),
                static_cast<long long>(longest[t]), static_cast<long long>(out_of_order[t]));
    if (longest[t] > 250 || out_of_order[t] != 0 || issued[t] == 0) ++failures;
  }
  if (refusals[0] + refusals[1] == 0) {
    std::puts("no call refused the 3 s step back");
    ++failures;
  }
  std::printf("a 50 ms wait across a 3 s step back took %lld ms\n", static_cast<long long>(waited));
  if (waited > 250) ++failures;
  return failures == 0 ? 0 : 1;
}
