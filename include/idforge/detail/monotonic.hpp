// CLOCK_MONOTONIC, the clock nobody steps: SystemClock and the server's BoundedClock measure
// their waits on it, so a wall clock stepped back during a wait cannot stretch the wait.
#pragma once

#include <time.h>

#include <cerrno>
#include <cstdint>

namespace idforge::detail {

/// CLOCK_MONOTONIC in nanoseconds.
inline std::int64_t monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// Sleeps until CLOCK_MONOTONIC reads mono_ns (through signals).
inline void sleep_until_monotonic(std::int64_t mono_ns) noexcept {
  timespec ts{static_cast<time_t>(mono_ns / 1'000'000'000),
              static_cast<long>(mono_ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace idforge::detail
