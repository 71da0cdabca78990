// ForkGuard: whether this process is still the one a generator was made in (or last
// rebound in). A Snowflake generator refuses in a forked child until rebind() gives it a
// node ID of its own; a UUIDv7 or ULID generator moves to a fresh millisecond and seed by
// itself. Both read it the same way: two relaxed loads (detail/fork_epoch.hpp), no getpid().
#pragma once

#include <atomic>
#include <cstdint>

#include "idforge/detail/fork_epoch.hpp"

namespace idforge::detail {

class ForkGuard {
 public:
  /// What one check saw: the process's epoch, and whether it differs from the guard's.
  struct Seen {
    std::uint64_t epoch;
    bool forked;
  };

  ForkGuard() noexcept {
    install_fork_handler();
    epoch_.store(fork_epoch(), std::memory_order_release);
  }
  ForkGuard(const ForkGuard&) = delete;
  ForkGuard& operator=(const ForkGuard&) = delete;

  /// Whether this is a child forked since the guard was made or last adopted.
  bool forked() const noexcept { return fork_epoch() != epoch_.load(std::memory_order_acquire); }
  /// The check, keeping the epoch seen for adopt().
  Seen check() const noexcept {
    const std::uint64_t now = fork_epoch();
    return {now, now != epoch_.load(std::memory_order_acquire)};
  }
  /// Makes the process of epoch the guard's own. Release: whatever the caller wrote before
  /// (a new node ID, a floor) is seen by every call whose check passes afterwards.
  void adopt(std::uint64_t epoch) noexcept { epoch_.store(epoch, std::memory_order_release); }
  /// adopt() with the current epoch.
  void adopt_current() noexcept { adopt(fork_epoch()); }

 private:
  std::atomic<std::uint64_t> epoch_;
};

}  // namespace idforge::detail
