#include "idforge/clock.hpp"

#include <time.h>

#include <cerrno>

namespace idforge {
namespace {

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

void sleep_until(std::int64_t unix_ns) noexcept {
  timespec ts{static_cast<time_t>(unix_ns / 1'000'000'000),
              static_cast<long>(unix_ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace

std::int64_t SystemClock::now_ns() noexcept {
  return realtime_ns();
}

void SystemClock::wait_until_ns(std::int64_t unix_ns) noexcept {
  std::int64_t now = now_ns();
  if (now >= unix_ns) return;
  if (mode_ == WaitMode::sleep) {
    sleep_until(unix_ns);
    return;
  }
  if (mode_ == WaitMode::hybrid && unix_ns - now > kSpinTailNs) sleep_until(unix_ns - kSpinTailNs);
  // The clock may also be stepped back while we wait; re-reading it each turn handles that.
  while (now_ns() < unix_ns) cpu_relax();
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
