// RateLimiter: a token bucket shared by all clients; requests beyond it get 429.
// Lock-free: the bucket is one atomic word (time of the "empty" point, in ns), the GCRA
// form of a token bucket, so it costs one CAS per request. The clock is a parameter.
#pragma once

#include <atomic>
#include <cstdint>

#include "idforge/clock.hpp"

namespace idforge::server {

/// Admits at most rate requests per second on average, burst at once.
class RateLimiter {
 public:
  /// rate 0.001..1e9 requests/s; burst 1..1e6 (0 means one second's worth, at least 1).
  /// Throws Error(errc::invalid_argument) outside those ranges.
  RateLimiter(double rate, double burst, Clock& clock);
  /// True if one more request fits now (and takes its token); false: answer 429.
  bool try_acquire() noexcept;
  /// Seconds until a request would fit (for Retry-After), at least 1.
  std::int64_t retry_after_s() const noexcept;

 private:
  Clock* clock_;
  std::int64_t interval_ns_;          // time one token takes to refill
  std::int64_t burst_ns_;             // how far the bucket may run ahead: burst * interval
  std::atomic<std::int64_t> tat_{0};  // theoretical arrival time of the next request
};

}  // namespace idforge::server
