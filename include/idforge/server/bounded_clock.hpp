// A clock whose waits a request can bound: by a deadline, and by the server stopping.
#pragma once

#include <atomic>
#include <cstdint>

#include "idforge/clock.hpp"

namespace idforge::server {

/// CLOCK_REALTIME (like SystemClock) whose waits sleep, in slices of at most 10 ms, and end
/// early on a thread inside a WaitBound once its deadline or stop flag is reached. The
/// generators' waits cannot fail and read the clock again after each, so a wait that gave
/// up also makes the clock read kGaveUpNs on that thread from then on (until the bound
/// ends): a time before every epoch (epochs are >= 1970), at which a Snowflake generator
/// refuses (errc::clock_before_epoch) before it claims anything. Threads outside a bound
/// (the lease keeper) always see the real time and wait in full.
class BoundedClock final : public Clock {
 public:
  static constexpr std::int64_t kGaveUpNs = INT64_MIN;
  std::int64_t now_ns() noexcept override;
  void wait_until_ns(std::int64_t unix_ns) noexcept override;
  void wait_until_ns_at_most(std::int64_t unix_ns, std::int64_t max_wait_ns) noexcept override;
};

/// For its lifetime, bounds the waits of BoundedClock on this thread: none may last past
/// deadline_ns (Unix ns; 0 = no wait at all), and none goes on once *stop is true.
class WaitBound {
 public:
  WaitBound(std::int64_t deadline_ns, const std::atomic<bool>* stop) noexcept;
  ~WaitBound();
  WaitBound(const WaitBound&) = delete;
  WaitBound& operator=(const WaitBound&) = delete;
  /// A wait on this thread ended early (the clock now reads kGaveUpNs here).
  bool gave_up() const noexcept { return gave_up_; }
  /// It ended early because of the stop flag.
  bool stopped() const noexcept { return gave_up_ && stop_ && stop_->load(); }
  /// The innermost bound on this thread, or nullptr.
  static WaitBound* current() noexcept;

 private:
  friend class BoundedClock;
  std::int64_t deadline_ns_;
  const std::atomic<bool>* stop_;
  bool gave_up_ = false;
  WaitBound* outer_;
};

}  // namespace idforge::server
