#include "idforge/coord/lease_keeper.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "idforge/detail/fork_epoch.hpp"
#include "idforge/time_format.hpp"

namespace idforge::coord {

struct LeaseKeeper::Sync {
  mutable std::mutex mu;
  std::condition_variable wake;
  std::thread thread;
};

namespace {

std::int64_t pick(std::int64_t given, std::int64_t fallback) {
  return given >= 0 ? given : fallback;
}

std::string when(std::int64_t unix_ms) {
  return unix_ms <= 0 || unix_ms == kNoDeadline ? std::string("never") : format_iso8601_ms(unix_ms);
}

// The last ms of the tick that holds unix_ms: a mark covers whole ticks, since an ID's time
// is its tick's and the next holder skips the mark's whole tick.
std::int64_t end_of_tick(const Layout& layout, std::int64_t unix_ms) {
  if (unix_ms < layout.epoch_ms()) return unix_ms;
  const std::int64_t tick = (unix_ms - layout.epoch_ms()) / layout.tick_ms();
  const std::int64_t room =
      (std::numeric_limits<std::int64_t>::max() - layout.epoch_ms()) / layout.tick_ms();
  if (tick + 1 > room) return std::numeric_limits<std::int64_t>::max() - 1;
  return layout.epoch_ms() + (tick + 1) * layout.tick_ms() - 1;
}

}  // namespace

LeaseKeeper::LeaseKeeper(std::unique_ptr<LeaseStore> store, const Layout& layout, Clock& clock,
                         const KeeperOptions& options)
    : store_(std::move(store)),
      layout_(layout),
      clock_(&clock),
      background_(options.renew_in_background),
      sync_(std::make_unique<Sync>()) {
  idforge::detail::install_fork_handler();
  fork_epoch_ = idforge::detail::fork_epoch();
  ttl_ms_ = store_->ttl_ms();
  margin_ms_ = pick(options.safety_margin_ms, ttl_ms_ / 6);
  reserve_ms_ = pick(options.reserve_window_ms, ttl_ms_);
  retry_ms_ = std::max<std::int64_t>(10, options.retry_ms > 0 ? options.retry_ms : ttl_ms_ / 12);
  borrow_ms_ = std::max<std::int64_t>(0, options.max_borrow_ms);
  if (margin_ms_ >= ttl_ms_ / 3)
    throw Error(errc::invalid_argument,
                "lease keeper: safety margin " + std::to_string(margin_ms_) +
                    " ms must be below a third of the TTL (" + std::to_string(ttl_ms_) +
                    " ms), or the generator pauses before the first renewal");
  if (reserve_ms_ <= ttl_ms_ / 3 + borrow_ms_)
    throw Error(errc::invalid_argument, "lease keeper: reserve window " +
                                            std::to_string(reserve_ms_) +
                                            " ms must exceed a third of the TTL plus max borrow (" +
                                            std::to_string(ttl_ms_ / 3 + borrow_ms_) +
                                            " ms), or the generator pauses between renewals");
  const bool fixed_store =
      store_->url().starts_with("static:") || store_->url().starts_with("ordinal:");
  if (options.node)
    acquired_ = store_->acquire_node(layout_, *options.node);
  else
    acquired_ = acquire_skipping(fixed_store ? -1 : options.max_mark_ahead_ms);
  // After a store lost its state, the earlier holders' marks are gone with it: their
  // windows from the reset on take the mark's place (store_generation.hpp).
  acquired_.high_water_unix_ms = earlier_holders_until(acquired_);
  status_.lease = acquired_;
  status_.reserved_unix_ms = acquired_.high_water_unix_ms;
  status_.store_reset_unix_ms = acquired_.store_reset_unix_ms;
}

std::int64_t LeaseKeeper::earlier_holders_until(Lease& lease) const {
  if (lease.store_reset_unix_ms == kNoMark) return lease.high_water_unix_ms;
  // An earlier holder issues nothing past its fence, at most one window after its last
  // renewal, which came before the reset (holders of one store share its TTL).
  const std::int64_t window = std::max(ttl_ms_, reserve_ms_);
  const std::int64_t until = end_of_tick(layout_, lease.store_reset_unix_ms + window);
  if (until < now_ms()) {
    lease.store_reset_unix_ms = kNoMark;  // that window has passed: nothing to wait for
    return lease.high_water_unix_ms;
  }
  return lease.high_water_unix_ms == kNoMark ? until : std::max(lease.high_water_unix_ms, until);
}

Lease LeaseKeeper::acquire_skipping(std::int64_t max_ahead_ms) {
  // Skipped node IDs stay held until another is found, so the store's scan moves past them;
  // then they go back with their marks untouched.
  std::vector<Lease> passed;
  const auto give_back = [&] {
    for (Lease& l : passed) {
      try {
        store_->release(l, l.high_water_unix_ms);
      } catch (const std::exception&) {  // the TTL frees it; its mark was not changed
      }
    }
  };
  for (;;) {
    Lease lease;
    try {
      lease = store_->acquire(layout_);
    } catch (const LeaseError& e) {
      give_back();
      if (skipped_.empty() || e.reason() != LeaseFailure::space_full) throw;
      const SkippedNode& first = skipped_.front();
      throw ClockBackwardsError(
          "every free node ID in " + store_->url() +
              " has a high-water mark further ahead of the clock than " +
              "start-up waits (at most " + std::to_string(max_ahead_ms) + " ms): the clock is " +
              std::to_string(first.ahead_ms) + " ms behind node " + std::to_string(first.node) +
              "'s high-water mark " + format_iso8601_ms(first.high_water_unix_ms) +
              "; nothing was issued and the node IDs were released",
          first.ahead_ms);
    }
    // The wait start-up would need: until the clock passes the mark.
    const std::int64_t ahead =
        lease.high_water_unix_ms == kNoMark ? 0 : lease.high_water_unix_ms - now_ms() + 1;
    if (max_ahead_ms < 0 || ahead <= max_ahead_ms) {
      give_back();
      return lease;
    }
    skipped_.push_back({lease.node, lease.high_water_unix_ms, ahead});
    passed.push_back(std::move(lease));
  }
}

LeaseKeeper::~LeaseKeeper() {
  if (in_forked_child()) {
    (void)
        sync_.release();  // the parent's thread, lock and waiter: not ours to end (see the header)
    return;
  }
  try {
    release();
  } catch (const std::exception&) {  // the TTL frees it; the reservation keeps the mark safe
  }
}

bool LeaseKeeper::in_forked_child() const noexcept {
  return idforge::detail::fork_epoch() != fork_epoch_;
}

std::int64_t LeaseKeeper::now_ms() const noexcept {
  const std::int64_t ns = clock_->now_ns();
  return ns / 1'000'000 - (ns % 1'000'000 < 0 ? 1 : 0);
}

void LeaseKeeper::start(bool hold_mark) {
  {
    std::lock_guard lock(sync_->mu);
    hold_mark_ = hold_mark && status_.reserved_unix_ms != kNoMark;
  }
  renew_once();
  if (background_) sync_->thread = std::thread([this] { run(); });
}

void LeaseKeeper::begin_reserving() {
  {
    std::lock_guard lock(sync_->mu);
    hold_mark_ = false;
  }
  renew_once();
}

void LeaseKeeper::attach(SharedSnowflakeGenerator* generator) {
  std::lock_guard lock(sync_->mu);
  generator_ = generator;
  apply_fence_locked();
}

void LeaseKeeper::apply_fence_locked() {
  if (generator_) generator_->set_fence_unix_ms(status_.fence_unix_ms);
}

void LeaseKeeper::renew_once() {
  Lease lease;
  std::int64_t reserved;
  bool hold = false;
  {
    std::lock_guard lock(sync_->mu);
    if (status_.lost || status_.released)
      throw LeaseError(
          LeaseFailure::lost, store_->url(),
          "node " + std::to_string(acquired_.node) + " is " + (status_.lost ? "lost" : "released"));
    lease = status_.lease;
    reserved = status_.reserved_unix_ms;
    hold = hold_mark_;
  }
  // Holding (start-up waits for the clock to pass the stored mark): renew at that mark.
  const std::int64_t mark =
      hold ? reserved : std::max(reserved, end_of_tick(layout_, now_ms() + reserve_ms_));
  store_->renew(lease, mark);  // throws; the fence stays where it was
  // The mark is stored (durably, and while the lease was still ours): now the generator may
  // issue up to it, and only until the store may hand the node ID on.
  std::int64_t fence = mark + 1;
  if (lease.deadline_unix_ms != kNoDeadline)
    fence = std::min(fence, lease.deadline_unix_ms - margin_ms_);
  std::lock_guard lock(sync_->mu);
  if (status_.lost || status_.released) return;
  status_.lease = lease;
  status_.reserved_unix_ms = std::max(status_.reserved_unix_ms, mark);
  status_.fence_unix_ms = fence;
  ++status_.renewals;
  apply_fence_locked();
}

void LeaseKeeper::reacquire_once() {
  // First drop what this process still holds of the lost lease (a lock on a file no longer
  // at its path and its second name, an expired etcd lease): the store leaves a lost lease's
  // mark and key alone, and would otherwise see this very holder as the node's live one.
  Lease stale;
  {
    std::lock_guard lock(sync_->mu);
    stale = status_.lease;
  }
  if (!stale.token.empty()) {
    store_->release(stale, kNoMark);  // throws when unreachable: the next attempt tries again
    std::lock_guard lock(sync_->mu);
    status_.lease.token.clear();
  }
  Lease lease = store_->acquire_node(layout_, acquired_.node);  // throws: held, unreachable
  std::int64_t reserved;
  {
    std::lock_guard lock(sync_->mu);
    reserved = status_.reserved_unix_ms;
  }
  const std::int64_t theirs = earlier_holders_until(lease);
  const std::int64_t mark =
      std::max({reserved, theirs, end_of_tick(layout_, now_ms() + reserve_ms_)});
  try {
    store_->renew(lease, mark);
  } catch (...) {
    try {
      store_->release(lease, std::max(reserved, theirs));
    } catch (const std::exception&) {  // the TTL frees it; its mark was raised, not lowered
    }
    throw;
  }
  std::int64_t fence = mark + 1;
  if (lease.deadline_unix_ms != kNoDeadline)
    fence = std::min(fence, lease.deadline_unix_ms - margin_ms_);
  std::unique_lock lock(sync_->mu);
  if (status_.released) {
    // release() ran meanwhile and found the lease lost: give this one back here.
    lock.unlock();
    store_->release(lease, mark);
    return;
  }
  // A mark above this keeper's own reservation is another holder's: issue above it.
  if (generator_ && theirs != kNoMark && theirs > reserved) generator_->raise_floor_unix_ms(theirs);
  status_.lease = lease;
  status_.store_reset_unix_ms = lease.store_reset_unix_ms;
  status_.lost = false;
  status_.reserved_unix_ms = std::max(status_.reserved_unix_ms, mark);
  status_.fence_unix_ms = fence;
  ++status_.renewals;
  ++status_.reacquired;
  apply_fence_locked();
}

bool LeaseKeeper::renew() {
  if (in_forked_child()) return false;
  std::string error;
  bool lost = false;
  bool was_lost = false;
  {
    std::lock_guard lock(sync_->mu);
    if (status_.released) return false;
    was_lost = status_.lost;
  }
  try {
    if (was_lost)
      reacquire_once();
    else
      renew_once();
    return true;
  } catch (const LeaseError& e) {
    error = e.what();
    lost = e.reason() == LeaseFailure::lost;
  } catch (const std::exception& e) {
    error = e.what();
  }
  // The clock is read before the mutex is taken: a clock (a test's, a slow one) may block,
  // and release() and status() must not wait behind it.
  const std::int64_t found_lost_ms = lost && !was_lost ? now_ms() : 0;
  std::lock_guard lock(sync_->mu);
  if (status_.released) return false;
  ++status_.failures;
  status_.last_error = error;
  if (lost && !was_lost) {
    // Another holder may issue with this node ID now: stop until it is taken again.
    status_.lost = true;
    status_.lost_since_unix_ms = found_lost_ms;
    status_.fence_unix_ms = 0;
    apply_fence_locked();
  } else if (was_lost) {
    status_.last_error = "taking the lost node ID again: " + error;
  }
  return false;
}

void LeaseKeeper::run() {
  // Every fifth of the TTL: a partition or a stall that begins just before a renewal is due
  // loses the lease only when it lasts TTL - TTL/5 - one request timeout (at ttl=3000 with
  // the default timeout: 2.0 s). Renewing every third lost 3 s leases to 2.2 s partitions
  // on the namespace cluster (tests/cluster) whenever one began late in the interval.
  const auto period = std::chrono::milliseconds(std::max<std::int64_t>(1, ttl_ms_ / 5));
  const auto retry = std::chrono::milliseconds(retry_ms_);
  auto delay = period;
  auto heal_delay = retry;  // while lost: from retry_ms, doubling to a fifth of the TTL
  std::unique_lock lock(sync_->mu);
  while (!stop_) {
    if (sync_->wake.wait_for(lock, delay, [this] { return stop_; })) break;
    lock.unlock();
    const auto began = std::chrono::steady_clock::now();
    const bool ok = renew();
    // A failed attempt that used up its time (a request into a partition waits its whole
    // timeout) is followed at once by the next: retries begin every retry_ms, counted from
    // the start of the last one, so one begins soon after the cause is gone.
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - began);
    lock.lock();
    if (ok) {
      delay = period, heal_delay = retry;
    } else if (status_.lost) {
      delay = heal_delay;
      heal_delay = std::min<std::chrono::milliseconds>(heal_delay * 2, std::max(period, retry));
    } else {
      delay = std::max(std::chrono::milliseconds(0), retry - spent);
    }
  }
}

void LeaseKeeper::release() {
  if (in_forked_child()) return;  // the parent's lease, connection and thread: not ours
  {
    std::lock_guard lock(sync_->mu);
    if (status_.released) return;
    status_.released = true;
    stop_ = true;
  }
  sync_->wake.notify_all();
  if (sync_->thread.joinable()) sync_->thread.join();
  Lease lease;
  std::int64_t mark;
  bool lost;
  {
    std::lock_guard lock(sync_->mu);
    // Fence first, then read: a call in flight checks the fence after its claim, so it
    // either refuses or claimed before this read and is covered by it.
    status_.fence_unix_ms = 0;
    apply_fence_locked();
    // Store exactly what was used (not the reservation), so a clean restart need not wait;
    // without a generator whatever used the node ID may have used the whole reservation.
    mark = generator_ ? std::max(acquired_.high_water_unix_ms, generator_->last_unix_ms())
                      : status_.reserved_unix_ms;
    lease = status_.lease;
    lost = status_.lost;
  }
  // 0 stands for "no mark" where nothing was ever issued.
  if (!lost) store_->release(lease, mark == kNoMark ? 0 : mark);
}

KeeperStatus LeaseKeeper::status() const {
  if (in_forked_child()) return status_;  // the mutex may have been copied locked
  std::lock_guard lock(sync_->mu);
  return status_;
}

std::int64_t LeaseKeeper::fence_unix_ms() const {
  if (in_forked_child()) return 0;
  std::lock_guard lock(sync_->mu);
  return status_.fence_unix_ms;
}

LeaseError LeaseKeeper::fenced_error() const {
  const KeeperStatus s = status();
  const std::string node = "node " + std::to_string(acquired_.node);
  if (in_forked_child())
    return LeaseError(
        LeaseFailure::lost, store_->url(),
        node +
            " is held by the parent process; a child forked after the lease was taken issues "
            "nothing with it (take a lease of its own)");
  if (s.released)
    return LeaseError(LeaseFailure::lost, store_->url(),
                      node + " was released; this generator issues no more IDs");
  if (s.lost)
    return LeaseError(
        LeaseFailure::lost, store_->url(),
        node + ": " + s.last_error + "; issuing resumes once the keeper takes the node ID again");
  // A store whose leases do not expire (file:, static:) fences at the reserved window only.
  const std::string why = s.lease.deadline_unix_ms == kNoDeadline
                              ? std::string("the end of the reserved window")
                              : "lease deadline " + when(s.lease.deadline_unix_ms) + " minus " +
                                    std::to_string(margin_ms_) +
                                    " ms, or the end of the reserved window";
  return LeaseError(
      LeaseFailure::fenced, store_->url(),
      node + " paused at " + when(s.fence_unix_ms) + " (" + why +
          "); last renewal error: " + (s.last_error.empty() ? std::string("none") : s.last_error) +
          "; issuing resumes after a successful renewal");
}

}  // namespace idforge::coord
