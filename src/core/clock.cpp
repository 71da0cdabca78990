#include "idforge/clock.hpp"
#include "idforge/detail/monotonic.hpp"

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <limits>

namespace idforge {
namespace {

using detail::monotonic_ns;
using detail::sleep_until_monotonic;

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Sleeping closer than this to the target risks oversleeping it (timer slack, wake-up
// latency measured at 50-100 us on this class of machine); the rest is spun.
constexpr std::int64_t kSpinTailNs = 100'000;

}  // namespace

std::int64_t SystemClock::now_ns() noexcept {
  return realtime_ns();
}

void SystemClock::wait_until_ns(std::int64_t unix_ns) noexcept {
  wait_until_ns_at_most(unix_ns, std::numeric_limits<std::int64_t>::max());
}

void SystemClock::wait_until_ns_at_most(std::int64_t unix_ns, std::int64_t max_wait_ns) noexcept {
  const std::int64_t now = now_ns();
  if (now >= unix_ns || max_wait_ns <= 0) return;
  // The wait lasts at most as long as the clock said at its start (and the caller's bound):
  // measured on CLOCK_MONOTONIC, so a clock stepped back meanwhile does not hold the caller
  // for the whole step (3 s back during the wait for the next millisecond held a call 3 s).
  // The caller reads the clock after every wait and decides again: wait once more, or
  // refuse the step back. A step forward ends the spin at once.
  const std::int64_t wait = std::min(unix_ns - now, max_wait_ns);
  const std::int64_t end = monotonic_ns() + wait;
  if (mode_ == WaitMode::sleep) {
    sleep_until_monotonic(end);
    return;
  }
  if (mode_ == WaitMode::hybrid && wait > kSpinTailNs) sleep_until_monotonic(end - kSpinTailNs);
  while (now_ns() < unix_ns && monotonic_ns() < end) cpu_relax();
}

SystemClock& SystemClock::instance() noexcept {
  static SystemClock clock;
  return clock;
}

void ManualClock::wait_until_ns(std::int64_t unix_ns) noexcept {
  std::int64_t cur = now_.load(std::memory_order_acquire);
  while (cur < unix_ns) {
    if (now_.compare_exchange_weak(cur, unix_ns, std::memory_order_acq_rel)) {
      waited_.fetch_add(unix_ns - cur, std::memory_order_relaxed);
      return;
    }
  }
}

}  // namespace idforge
