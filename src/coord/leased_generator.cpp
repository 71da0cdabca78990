#include "idforge/coord/leased_generator.hpp"

#include <algorithm>

#include "idforge/time_format.hpp"

namespace idforge::coord {
namespace {

constexpr std::int64_t kStartWaitSliceNs =
    50'000'000;  // how soon a stop request ends the start-up wait

}  // namespace

SharedLeasedSnowflakeGenerator::SharedLeasedSnowflakeGenerator(std::unique_ptr<LeaseStore> store,
                                                               const Layout& layout,
                                                               SnowflakePolicy policy,
                                                               const LeasedOptions& options)
    : SharedLeasedSnowflakeGenerator(std::move(store), layout, SystemClock::instance(), policy,
                                     options) {}

SharedLeasedSnowflakeGenerator::SharedLeasedSnowflakeGenerator(std::unique_ptr<LeaseStore> store,
                                                               const Layout& layout, Clock& clock,
                                                               SnowflakePolicy policy,
                                                               const LeasedOptions& options) {
  KeeperOptions keeper_options = options.keeper;
  keeper_options.max_borrow_ms = std::max(keeper_options.max_borrow_ms, policy.max_borrow_ms);
  const std::int64_t reserve =
      keeper_options.reserve_window_ms >= 0 ? keeper_options.reserve_window_ms : store->ttl_ms();
  const std::int64_t bound =
      options.max_start_wait_ms >= 0 ? options.max_start_wait_ms : reserve + 1000;
  // A node whose mark is further ahead than start-up waits would refuse: take another.
  if (!keeper_options.node && keeper_options.max_mark_ahead_ms < 0)
    keeper_options.max_mark_ahead_ms = bound;
  keeper_ = std::make_unique<LeaseKeeper>(std::move(store), layout, clock, keeper_options);
  // The first renewal reserves a window above the stored mark before anything is issued,
  // and the renewal thread keeps the lease alive while we wait below. A start that must
  // wait for the clock holds the stored mark until the wait is over: a start stopped during
  // the wait (a supervisor's start timeout, kill -9) leaves it where it was, so restarts
  // converge instead of each pushing the mark one reservation further.
  const Lease& lease = keeper_->acquired();
  const std::int64_t mark = lease.high_water_unix_ms;
  const bool waits = mark != kNoMark && clock.now_ns() / 1'000'000 <= mark;
  keeper_->start(waits);
  if (mark != kNoMark) {
    const std::int64_t now_ms = clock.now_ns() / 1'000'000;
    if (now_ms <= mark) {
      const std::int64_t behind = mark - now_ms + 1;
      if (behind > bound) {
        keeper_->release();
        throw ClockBackwardsError(
            "clock reads " + format_iso8601_ms(now_ms) + ", " + std::to_string(behind) +
                " ms behind the high-water mark " + format_iso8601_ms(mark) +
                " that an earlier holder of node " + std::to_string(lease.node) + " stored in " +
                keeper_->store_url() + "; start-up waits at most " + std::to_string(bound) +
                " ms, so nothing was issued and the node ID was released",
            behind);
      }
      if (options.on_start_wait)
        options.on_start_wait({lease.node, mark, behind, keeper_->store_url()});
      // In slices, so that a stop request ends the wait at once.
      const std::int64_t target = (mark + 1) * 1'000'000;
      for (std::int64_t now = clock.now_ns(); now < target; now = clock.now_ns()) {
        if (options.stop.stop_requested()) {
          keeper_->release();
          throw LeaseError(LeaseFailure::cancelled, keeper_->store_url(),
                           "stopped while waiting " + std::to_string(behind) +
                               " ms for the clock to pass node " + std::to_string(lease.node) +
                               "'s high-water mark " + format_iso8601_ms(mark) +
                               "; nothing was issued and the node ID was released");
        }
        clock.wait_until_ns(std::min(target, now + kStartWaitSliceNs));
      }
      start_wait_ms_ = behind;
    }
    if (waits) {
      try {
        keeper_->begin_reserving();
      } catch (...) {
        keeper_->release();
        throw;
      }
    }
    policy.issued_up_to_unix_ms = std::max(policy.issued_up_to_unix_ms, mark);
  }
  generator_ = std::make_unique<SharedSnowflakeGenerator>(layout, lease.node, clock, policy);
  keeper_->attach(generator_.get());
}

SharedLeasedSnowflakeGenerator::~SharedLeasedSnowflakeGenerator() {
  // Before generator_ goes: the keeper reads its last issued time as the final mark.
  try {
    keeper_->release();
  } catch (const std::exception&) {
  }
}

void SharedLeasedSnowflakeGenerator::rethrow_fenced(const Error& e) const {
  if (e.code() == errc::fenced) throw keeper_->fenced_error();
  throw;
}

Snowflake SharedLeasedSnowflakeGenerator::next() {
  try {
    return generator_->next();
  } catch (const Error& e) {
    rethrow_fenced(e);
  }
}

void SharedLeasedSnowflakeGenerator::next_batch(std::span<Snowflake> out) {
  try {
    generator_->next_batch(out);
  } catch (const Error& e) {
    rethrow_fenced(e);
  }
}

std::size_t SharedLeasedSnowflakeGenerator::next_batch(std::span<Snowflake> out,
                                                       std::error_code& error) noexcept {
  return generator_->next_batch(out, error);
}

}  // namespace idforge::coord
