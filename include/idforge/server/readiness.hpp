// Readiness: whether the service may issue IDs that need a node ID. The node-ID lease
// drives it (ready while held); a fixed --node keeps it ready. GET /readyz reports it and
// kinds that need a node answer 503 while it is down.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

namespace idforge::server {

/// A ready flag with the reason it is down. Thread-safe; ready() is one atomic load.
class Readiness {
 public:
  /// Starts not ready, with reason (cause "starting").
  explicit Readiness(std::string reason = "starting")
      : cause_("starting"), reason_(std::move(reason)) {}
  /// Marks ready.
  void set_ready() {
    std::lock_guard lock(mutex_);
    cause_.clear();
    reason_.clear();
    ready_.store(true, std::memory_order_release);
  }
  /// Marks not ready, saying why (shown by /readyz and in 503 answers); cause "not-ready".
  void set_not_ready(std::string reason) { set_not_ready("not-ready", std::move(reason)); }
  /// Marks not ready with a cause: a short word for probes and /metrics ("lease-lost",
  /// "fenced", "clock-behind", "time-exhausted", "waiting-for-clock", ...), and the reason in
  /// words.
  void set_not_ready(std::string cause, std::string reason) {
    std::lock_guard lock(mutex_);
    cause_ = std::move(cause);
    reason_ = std::move(reason);
    ready_.store(false, std::memory_order_release);
  }
  /// The cause of the last set_not_ready(); empty when ready.
  std::string cause() const {
    std::lock_guard lock(mutex_);
    return cause_;
  }
  /// True while ready.
  bool ready() const noexcept { return ready_.load(std::memory_order_acquire); }
  /// Why it is not ready; empty when ready.
  std::string reason() const {
    std::lock_guard lock(mutex_);
    return reason_;
  }

 private:
  std::atomic<bool> ready_{false};
  mutable std::mutex mutex_;
  std::string cause_;
  std::string reason_;
};

}  // namespace idforge::server
