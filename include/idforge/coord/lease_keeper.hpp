// LeaseKeeper: holds one node-ID lease, renews it (in a background thread at a third of
// the TTL, or when its owner calls renew()), and reserves the high-water mark ahead.
//
// The fencing rule. Every successful renewal first stores mark = now + reserve window,
// rounded up to the end of its tick, and only then sets the attached generator's fence to
//   F = min(mark + 1, deadline - safety margin)        (deadline: none for file/static)
// The generator issues no ID whose tick ends after F (SharedSnowflakeGenerator::set_fence_unix_ms):
// borrowed ticks, a reading taken again and a wait for the next tick included, and it reads
// the fence after claiming its stamp. So every ID ever issued lies in a tick at or below a
// mark the store already holds, and was claimed before the lease's deadline minus the
// margin. A crash (kill -9, power loss after the store answered) can lose only unused
// reservation, never a used time.
//
// Failure: a renewal that fails because the store is unreachable leaves the fence where it
// was (the generator stops there by itself) and is retried. When the store says the lease
// is gone (expired, another holder, its key or lock file deleted or replaced by hand), the
// keeper fences the generator at once and status().lost is set.
// Healing: a lost lease is taken again, the same node ID (the generator's bits name it), at
// every later renewal attempt (background: from retry_ms, doubling to a fifth of the TTL).
// Taken again, it first stores a new reservation above its own and the store's mark, then
// raises the generator's floor to the store's mark where that is above its own reservation
// (another holder may have issued up to it meanwhile; one that started after the loss began
// above this keeper's reservation, which the store held), and only then lifts the fence. A
// node another live holder has taken stays lost until that holder lets it go.
// Release: the fence goes to "nothing more" first, then the generator's last claimed tick
// is read; calls in flight check the fence after their claim, so that tick covers every ID
// they can still return. That exact time is stored as the mark (a clean restart need not
// wait); with no generator attached the reservation is stored instead.
// Fork: a keeper belongs to the process that made it. In a forked child release(),
// renew() and the destructor do nothing at once: they never touch the parent's lease, its
// store connection or its renewal thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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
  /// false: no background thread; the owner calls renew() itself, at least every TTL/3 to
  /// keep the generator issuing (an embedder with its own scheduler, or a test driving time).
  bool renew_in_background = true;
  /// A node ID fixed by configuration: acquire exactly it (LeaseStore::acquire_node), so a
  /// node ID configured twice is refused (LeaseFailure::held). Unset: any free node ID.
  std::optional<std::uint64_t> node;
  /// A free node ID whose stored mark is more than this far ahead of the clock is skipped
  /// for the next free one (start-up would have to wait that long); -1: never skip. Not for
  /// a fixed node, nor for static:/ordinal: stores, whose node ID is fixed.
  std::int64_t max_mark_ahead_ms = -1;
};

/// A node ID passed over at acquisition, and why (its mark was too far ahead).
struct SkippedNode {
  std::uint64_t node = 0;
  std::int64_t high_water_unix_ms = kNoMark;
  std::int64_t ahead_ms = 0;  ///< how far the mark was ahead of the clock
};

/// What a keeper has seen, for metrics and `idforge lease`.
struct KeeperStatus {
  Lease lease;                              ///< as of the last successful renewal
  std::int64_t reserved_unix_ms = kNoMark;  ///< the mark stored by the last renewal
  std::int64_t fence_unix_ms = 0;           ///< the generator stops issuing at this time
  std::uint64_t renewals = 0;               ///< successful renewals
  std::uint64_t failures = 0;               ///< failed renewal attempts
  bool lost = false;                        ///< the store gave the node ID away (until healed)
  std::uint64_t reacquired = 0;             ///< times a lost lease was taken again
  std::int64_t lost_since_unix_ms = 0;      ///< when the lease was last found lost (0: never)
  /// Lease::store_reset_unix_ms of the lease held: kNoMark, or when the store's state was
  /// found lost (the keeper then issues above every window an earlier holder had from it).
  std::int64_t store_reset_unix_ms = kNoMark;
  bool released = false;   ///< release() ran
  std::string last_error;  ///< message of the last failed attempt
};

/// Holds, renews and releases one node-ID lease and fences a generator by it (file comment).
class LeaseKeeper {
 public:
  /// Acquires a node ID for layout from store (throws LeaseError; ClockBackwardsError when
  /// every free node's mark is further ahead than options.max_mark_ahead_ms). Renewal
  /// starts with start(). clock must outlive the keeper.
  LeaseKeeper(std::unique_ptr<LeaseStore> store, const Layout& layout, Clock& clock,
              const KeeperOptions& options = {});
  /// Releases the lease (errors are swallowed; call release() to see them).
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  /// Reserves the first mark window (a renewal) and starts the renewal thread (unless
  /// options.renew_in_background is false). Throws LeaseError if that renewal fails.
  /// With hold_mark, the renewals keep the lease but reserve nothing beyond the stored
  /// mark, until begin_reserving(): for a start-up that waits for the clock to pass that
  /// mark first, so that a start stopped during the wait (a supervisor's timeout, kill -9)
  /// leaves the mark where it was and the next start waits no longer.
  void start(bool hold_mark = false);
  /// Ends start(true)'s hold: one renewal reserves the window from now (throws LeaseError
  /// if it fails), and later renewals reserve as usual.
  void begin_reserving();
  /// One renewal, as the background thread makes it: on success the mark and the fence
  /// move on; when the store says the lease is gone, the generator is fenced and the next
  /// call tries to take the node ID again (see Healing above). Returns whether the lease is
  /// held and renewed (status().last_error says why not). Thread-safe.
  bool renew();
  /// Puts generator under the keeper's fence from now on (see the top of this file). The
  /// generator must outlive the keeper's release().
  void attach(SharedSnowflakeGenerator* generator);
  /// Stops renewing, fences the generator, stores its last claimed time as the mark (the
  /// reservation if none is attached) and frees the node ID. Idempotent. Throws LeaseError
  /// if the store cannot be told.
  void release();
  /// Node IDs passed over at acquisition because their marks were too far ahead.
  const std::vector<SkippedNode>& skipped() const noexcept { return skipped_; }

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
  // Takes the lost node ID again and reserves above every mark (see Healing). Throws.
  void reacquire_once();
  // The highest time an earlier holder of lease's node may have issued: the stored mark, and
  // after a store reset one window from the reset (Lease::store_reset_unix_ms, which is
  // cleared when that window has already passed).
  std::int64_t earlier_holders_until(Lease& lease) const;
  // Applies status_.fence_unix_ms to the generator; the mutex held.
  void apply_fence_locked();
  // Takes a node ID, passing over those whose marks are too far ahead.
  Lease acquire_skipping(std::int64_t max_ahead_ms);
  bool in_forked_child() const noexcept;
  std::int64_t now_ms() const noexcept;

  std::unique_ptr<LeaseStore> store_;
  Layout layout_;
  Clock* clock_;
  std::int64_t ttl_ms_, margin_ms_, reserve_ms_, retry_ms_, borrow_ms_;
  bool background_;
  std::uint64_t fork_epoch_;
  Lease acquired_;
  std::vector<SkippedNode> skipped_;
  SharedSnowflakeGenerator* generator_ = nullptr;

  // The mutex (guarding status_, stop_ and generator_), the condition variable and the
  // renewal thread. Never destroyed in a forked child: there the thread is the parent's, the
  // mutex may have been copied locked and the condition variable with the parent's waiter
  // (destroying it would wait for that waiter forever).
  struct Sync;
  std::unique_ptr<Sync> sync_;
  KeeperStatus status_;
  bool stop_ = false;
  bool hold_mark_ = false;  // start(true) until begin_reserving(); sync_->mu
};

}  // namespace idforge::coord
