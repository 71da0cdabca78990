#include "idforge/server/bounded_clock.hpp"
#include "idforge/detail/monotonic.hpp"

#include <time.h>

#include <cerrno>

#include <algorithm>
#include <limits>

namespace idforge::server {
namespace {

using detail::monotonic_ns;
using detail::sleep_until_monotonic;

thread_local WaitBound* t_bound = nullptr;

// A stop flag is seen within this long by a waiting thread.
constexpr std::int64_t kSliceNs = 10'000'000;

}  // namespace

WaitBound::WaitBound(std::int64_t deadline_ns, const std::atomic<bool>* stop) noexcept
    : deadline_ns_(deadline_ns), stop_(stop), outer_(t_bound) {
  t_bound = this;
}

WaitBound::~WaitBound() {
  t_bound = outer_;
}

WaitBound* WaitBound::current() noexcept {
  return t_bound;
}

std::int64_t BoundedClock::now_ns() noexcept {
  if (t_bound && t_bound->gave_up_) [[unlikely]]
    return kGaveUpNs;
  return realtime_ns();
}

void BoundedClock::wait_until_ns(std::int64_t unix_ns) noexcept {
  wait_until_ns_at_most(unix_ns, std::numeric_limits<std::int64_t>::max());
}

void BoundedClock::wait_until_ns_at_most(std::int64_t unix_ns, std::int64_t max_wait_ns) noexcept {
  WaitBound* b = t_bound;
  const std::int64_t start = realtime_ns();
  // As SystemClock: at most as long as the wait was when it began (and the caller's bound),
  // on CLOCK_MONOTONIC, so a clock stepped back meanwhile does not hold a pool thread for
  // the whole step; the generator reads the clock again and decides.
  const std::int64_t end =
      monotonic_ns() + std::clamp<std::int64_t>(std::min(unix_ns - start, max_wait_ns), 0,
                                                std::numeric_limits<std::int64_t>::max() / 2);
  for (;;) {
    if (b && b->gave_up_) return;
    const std::int64_t now = realtime_ns();
    const std::int64_t mono = monotonic_ns();
    if (now >= unix_ns || mono >= end) return;
    if (b && ((b->stop_ && b->stop_->load()) || unix_ns > b->deadline_ns_)) {
      // Waiting would pass the deadline: give up now rather than at it, so the answer
      // comes at once; a wait the deadline allows is slept in full.
      b->gave_up_ = true;
      return;
    }
    sleep_until_monotonic(b && b->stop_ ? std::min(end, mono + kSliceNs) : end);
  }
}

}  // namespace idforge::server
