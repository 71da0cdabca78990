#include "idforge/server/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

#include "idforge/error.hpp"

namespace idforge::server {

RateLimiter::RateLimiter(double rate, double burst, Clock& clock) : clock_(&clock) {
  // The bounds keep burst x interval (ns) far inside 64 bits: rate 1e-10 would make the
  // interval overflow, burst 1e9 at rate 0.01 the product.
  if (!(rate >= 0.001 && rate <= 1e9) || !(burst >= 0 && burst <= 1e6))
    throw Error(errc::invalid_argument,
                "rate limit " + std::to_string(rate) + "/s, burst " + std::to_string(burst) +
                    ": rate must be from 0.001 to 1e9, burst from 0 to 1e6");
  interval_ns_ = std::max<std::int64_t>(1, std::llround(1e9 / rate));
  const double b = burst > 0 ? burst : std::max(1.0, rate);
  burst_ns_ = static_cast<std::int64_t>(std::max(1.0, std::floor(b))) * interval_ns_;
  tat_.store(clock.now_ns(), std::memory_order_relaxed);
}

bool RateLimiter::try_acquire() noexcept {
  const std::int64_t now = clock_->now_ns();
  std::int64_t tat = tat_.load(std::memory_order_relaxed);
  for (;;) {
    const std::int64_t start = std::max(tat, now);
    // GCRA: admit while the next arrival time stays within burst of now.
    if (start + interval_ns_ - now > burst_ns_) return false;
    if (tat_.compare_exchange_weak(tat, start + interval_ns_, std::memory_order_relaxed))
      return true;
  }
}

std::int64_t RateLimiter::retry_after_s() const noexcept {
  const std::int64_t wait =
      tat_.load(std::memory_order_relaxed) + interval_ns_ - burst_ns_ - clock_->now_ns();
  return std::max<std::int64_t>(1, (wait + 999'999'999) / 1'000'000'000);
}

}  // namespace idforge::server
