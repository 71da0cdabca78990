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
  /// Starts not ready, with reason.
  explicit Readiness(std::string reason = "starting") : reason_(std::move(reason)) {}
  /// Marks ready.
  void set_ready() {
    std::lock_guard lock(mutex_);
    reason_.clear();
    ready_.store(true, std::memory_order_release);
  }
  /// Marks not ready, saying why (shown by /readyz and in 503 answers).
  void set_not_ready(std::string reason) {
    std::lock_guard lock(mutex_);
    reason_ = std::move(reason);
    ready_.store(false, std::memory_order_release);
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
  std::string reason_;
};

}  // namespace idforge::server
