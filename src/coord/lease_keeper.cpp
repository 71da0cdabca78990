#include "idforge/coord/lease_keeper.hpp"

#include <algorithm>
#include <chrono>

#include "idforge/time_format.hpp"

namespace idforge::coord {
namespace {

std::int64_t pick(std::int64_t given, std::int64_t fallback) { return given >= 0 ? given : fallback; }

std::string when(std::int64_t unix_ms) {
  return unix_ms <= 0 || unix_ms == kNoDeadline ? std::string("never") : format_iso8601_ms(unix_ms);
}

}  // namespace

LeaseKeeper::LeaseKeeper(std::unique_ptr<LeaseStore> store, const Layout& layout, Clock& clock,
                         const KeeperOptions& options)
    : store_(std::move(store)), layout_(layout), clock_(&clock) {
  ttl_ms_ = store_->ttl_ms();
  margin_ms_ = pick(options.safety_margin_ms, ttl_ms_ / 6);
  reserve_ms_ = pick(options.reserve_window_ms, ttl_ms_);
  retry_ms_ = std::max<std::int64_t>(10, options.retry_ms > 0 ? options.retry_ms : ttl_ms_ / 12);
  borrow_ms_ = std::max<std::int64_t>(0, options.max_borrow_ms);
  if (margin_ms_ >= ttl_ms_ / 3)
    throw Error(errc::invalid_argument,
                "lease keeper: safety margin " + std::to_string(margin_ms_) + " ms must be below a third of the TTL (" +
                    std::to_string(ttl_ms_) + " ms), or the generator pauses before the first renewal");
  if (reserve_ms_ <= ttl_ms_ / 3 + borrow_ms_)
    throw Error(errc::invalid_argument,
                "lease keeper: reserve window " + std::to_string(reserve_ms_) +
                    " ms must exceed a third of the TTL plus max borrow (" + std::to_string(ttl_ms_ / 3 + borrow_ms_) +
                    " ms), or the generator pauses between renewals");
  acquired_ = store_->acquire(layout_);
  status_.lease = acquired_;
  status_.reserved_unix_ms = acquired_.high_water_unix_ms;
}

LeaseKeeper::~LeaseKeeper() {
  try {
    release();
  } catch (const std::exception&) {  // the TTL frees it; the reservation keeps the mark safe
  }
}

void LeaseKeeper::start() {
  renew_once();
  thread_ = std::thread([this] { run(); });
}

void LeaseKeeper::attach(SnowflakeGenerator* generator) {
  std::lock_guard lock(mu_);
  generator_ = generator;
  apply_fence_locked();
}

void LeaseKeeper::apply_fence_locked() {
  if (generator_) generator_->set_fence_unix_ms(status_.fence_unix_ms);
}

void LeaseKeeper::renew_once() {
  Lease lease;
  std::int64_t reserved;
  {
    std::lock_guard lock(mu_);
    lease = status_.lease;
    reserved = status_.reserved_unix_ms;
  }
  const std::int64_t mark = std::max(reserved, now_ms() + reserve_ms_);
  store_->renew(lease, mark);  // throws; the fence stays where it was
  // Stop before the store may hand the node ID on, and before IDs (which may run
  // borrow_ms_ ahead of the clock) could pass the mark just stored.
  std::int64_t fence = mark - borrow_ms_;
  if (lease.deadline_unix_ms != kNoDeadline) fence = std::min(fence, lease.deadline_unix_ms - margin_ms_);
  std::lock_guard lock(mu_);
  if (status_.lost || status_.released) return;
  status_.lease = lease;
  status_.reserved_unix_ms = mark;
  status_.fence_unix_ms = fence;
  ++status_.renewals;
  apply_fence_locked();
}

void LeaseKeeper::run() {
  const auto period = std::chrono::milliseconds(std::max<std::int64_t>(1, ttl_ms_ / 3));
  auto delay = period;
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (wake_.wait_for(lock, delay, [this] { return stop_; })) break;
    lock.unlock();
    std::string error;
    bool lost = false;
    try {
      renew_once();
    } catch (const LeaseError& e) {
      error = e.what();
      lost = e.reason() == LeaseFailure::lost;
    } catch (const std::exception& e) {
      error = e.what();
    }
    lock.lock();
    if (error.empty()) {
      delay = period;
      continue;
    }
    ++status_.failures;
    status_.last_error = error;
    delay = std::chrono::milliseconds(retry_ms_);
    if (lost) {
      // Another holder may issue with this node ID now: stop for good.
      status_.lost = true;
      status_.fence_unix_ms = 0;
      apply_fence_locked();
      return;
    }
  }
}

void LeaseKeeper::release() {
  {
    std::lock_guard lock(mu_);
    if (status_.released) return;
    status_.released = true;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  Lease lease;
  std::int64_t mark = acquired_.high_water_unix_ms;
  bool lost;
  {
    std::lock_guard lock(mu_);
    status_.fence_unix_ms = 0;
    apply_fence_locked();  // from here on nothing is issued, so last_unix_ms() is final
    if (generator_) mark = std::max(mark, generator_->last_unix_ms());
    lease = status_.lease;
    lost = status_.lost;
  }
  // Store exactly what was used (not the reservation), so a clean restart need not wait;
  // 0 stands for "no mark" where nothing was ever issued.
  if (!lost) store_->release(lease, mark == kNoMark ? 0 : mark);
}

KeeperStatus LeaseKeeper::status() const {
  std::lock_guard lock(mu_);
  return status_;
}

std::int64_t LeaseKeeper::fence_unix_ms() const {
  std::lock_guard lock(mu_);
  return status_.fence_unix_ms;
}

LeaseError LeaseKeeper::fenced_error() const {
  std::lock_guard lock(mu_);
  const std::string node = "node " + std::to_string(acquired_.node);
  if (status_.released)
    return LeaseError(LeaseFailure::lost, store_->url(), node + " was released; this generator issues no more IDs");
  if (status_.lost)
    return LeaseError(LeaseFailure::lost, store_->url(),
                      node + ": " + status_.last_error + "; this generator issues no more IDs");
  return LeaseError(LeaseFailure::fenced, store_->url(),
                    node + " paused at " + when(status_.fence_unix_ms) + " (lease deadline " +
                        when(status_.lease.deadline_unix_ms) + " minus " + std::to_string(margin_ms_) +
                        " ms, or the end of the reserved window); last renewal error: " +
                        (status_.last_error.empty() ? std::string("none") : status_.last_error) +
                        "; issuing resumes after a successful renewal");
}

}  // namespace idforge::coord
