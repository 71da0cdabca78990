// LeaseKeeper: holds one node-ID lease, renews it in a background thread at a third of the
// TTL, and reserves the high-water mark ahead in windows.
//
// Reservation: every successful renewal stores mark = now + reserve window. The fence of the
// attached generator is set to min(deadline - safety margin, mark - max borrow), so the
// generator never issues an ID whose time is past a mark already stored: a crash (kill -9,
// power loss after the store answered) can lose only unused reservation, never a used time.
// The fence doubles as the reservation ceiling, so SnowflakeGenerator needed no new field
// and its hot path stays one atomic stamp plus one fence load.
//
// Failure: if a renewal fails because the store is unreachable, the keeper retries; the
// generator stops by itself at the fence and resumes when a renewal succeeds. If the store
// says the lease is gone (expired, or another holder), the keeper fences the generator
// for good and status().lost is set. Release stores the exact last issued time (not the
// reservation), so a clean restart does not wait.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "idforge/clock.hpp"
#include "idforge/coord/lease.hpp"
#include "idforge/snowflake_generator.hpp"

namespace idforge::coord {

/// Timing of a keeper; -1 means "derive from the store's TTL" as described per field.
struct KeeperOptions {
  /// Stop issuing this long before the lease deadline. Default ttl / 6, so two renewals
  /// (at ttl/3 and 2ttl/3) can fail before the generator pauses. Must be < ttl / 3.
  std::int64_t safety_margin_ms = -1;
  /// How far ahead of now each renewal reserves the mark. Default: the TTL. Must be
  /// > ttl / 3 so the generator does not pause between renewals.
  std::int64_t reserve_window_ms = -1;
  /// Pause between retries after a failed renewal. Default ttl / 12 (at least 10 ms).
  std::int64_t retry_ms = -1;
  /// IDs may be this far ahead of the clock (SnowflakePolicy::max_borrow_ms).
  std::int64_t max_borrow_ms = 0;
};

/// What a keeper has seen, for metrics and `idforge lease`.
struct KeeperStatus {
  Lease lease;                         ///< as of the last successful renewal
  std::int64_t reserved_unix_ms = kNoMark;  ///< the mark stored by the last renewal
  std::int64_t fence_unix_ms = 0;      ///< the generator stops issuing at this time
  std::uint64_t renewals = 0;          ///< successful renewals
  std::uint64_t failures = 0;          ///< failed renewal attempts
  bool lost = false;                   ///< the store gave the node ID away
  bool released = false;               ///< release() ran
  std::string last_error;              ///< message of the last failed attempt
};

class LeaseKeeper {
 public:
  /// Acquires a node ID for layout from store (throws LeaseError). Renewal starts with
  /// start(). clock must outlive the keeper.
  LeaseKeeper(std::unique_ptr<LeaseStore> store, const Layout& layout, Clock& clock,
              const KeeperOptions& options = {});
  /// Releases the lease (errors are swallowed; call release() to see them).
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  /// Reserves the first mark window (a renewal) and starts the renewal thread. Throws
  /// LeaseError if that first renewal fails.
  void start();
  /// Puts generator under the keeper's fence from now on (see the top of this file). The
  /// generator must outlive the keeper's release().
  void attach(SnowflakeGenerator* generator);
  /// Stops renewing, fences the generator, stores its last issued time as the mark and
  /// frees the node ID. Idempotent. Throws LeaseError if the store cannot be told.
  void release();

  /// The lease as acquired (node ID, earlier holders' mark).
  const Lease& acquired() const noexcept { return acquired_; }
  /// A snapshot of the renewal state.
  KeeperStatus status() const;
  /// The store's URL.
  const std::string& store_url() const noexcept { return store_->url(); }
  /// The TTL the keeper works with, in ms.
  std::int64_t ttl_ms() const noexcept { return ttl_ms_; }
  /// How far ahead each renewal reserves the mark, in ms.
  std::int64_t reserve_window_ms() const noexcept { return reserve_ms_; }
  /// The fence put on an attached generator by the last renewal (0: stopped).
  std::int64_t fence_unix_ms() const;
  /// The error to throw for a fenced generator: lost (LeaseFailure::lost) or paused
  /// (LeaseFailure::fenced), naming the store, the node and the last renewal error.
  LeaseError fenced_error() const;

 private:
  void run();
  // One renewal: reserve a new window and move the fence. Throws LeaseError.
  void renew_once();
  // Applies status_.fence_unix_ms to the generator; mu_ held.
  void apply_fence_locked();
  std::int64_t now_ms() const noexcept { return clock_->now_ns() / 1'000'000; }

  std::unique_ptr<LeaseStore> store_;
  Layout layout_;
  Clock* clock_;
  std::int64_t ttl_ms_, margin_ms_, reserve_ms_, retry_ms_, borrow_ms_;
  Lease acquired_;
  SnowflakeGenerator* generator_ = nullptr;

  mutable std::mutex mu_;  // guards status_, stop_, released_ and store_ calls
  std::condition_variable wake_;
  KeeperStatus status_;
  bool stop_ = false;
  bool released_ = false;
  std::thread thread_;
};

}  // namespace idforge::coord
