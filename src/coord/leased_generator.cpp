#include "idforge/coord/leased_generator.hpp"

#include "idforge/time_format.hpp"

namespace idforge::coord {

LeasedSnowflakeGenerator::LeasedSnowflakeGenerator(std::unique_ptr<LeaseStore> store, const Layout& layout,
                                                   SnowflakePolicy policy, const LeasedOptions& options)
    : LeasedSnowflakeGenerator(std::move(store), layout, SystemClock::instance(), policy, options) {}

LeasedSnowflakeGenerator::LeasedSnowflakeGenerator(std::unique_ptr<LeaseStore> store, const Layout& layout,
                                                   Clock& clock, SnowflakePolicy policy,
                                                   const LeasedOptions& options) {
  KeeperOptions keeper_options = options.keeper;
  keeper_options.max_borrow_ms = std::max(keeper_options.max_borrow_ms, policy.max_borrow_ms);
  keeper_ = std::make_unique<LeaseKeeper>(std::move(store), layout, clock, keeper_options);
  // The first renewal reserves a window above the stored mark before anything is issued,
  // and the renewal thread keeps the lease alive while we wait below.
  keeper_->start();
  const Lease& lease = keeper_->acquired();
  const std::int64_t mark = lease.high_water_unix_ms;
  if (mark != kNoMark) {
    const std::int64_t now_ms = clock.now_ns() / 1'000'000;
    if (now_ms <= mark) {
      const std::int64_t behind = mark - now_ms + 1;
      const std::int64_t bound =
          options.max_start_wait_ms >= 0 ? options.max_start_wait_ms : keeper_->reserve_window_ms() + 1000;
      if (behind > bound) {
        keeper_->release();
        throw ClockBackwardsError(
            "clock reads " + format_iso8601_ms(now_ms) + ", " + std::to_string(behind) +
                " ms behind the high-water mark " + format_iso8601_ms(mark) + " that an earlier holder of node " +
                std::to_string(lease.node) + " stored in " + keeper_->store_url() + "; start-up waits at most " +
                std::to_string(bound) + " ms, so nothing was issued and the node ID was released",
            behind);
      }
      clock.wait_until_ns((mark + 1) * 1'000'000);
      start_wait_ms_ = behind;
    }
    policy.issued_up_to_unix_ms = std::max(policy.issued_up_to_unix_ms, mark);
  }
  generator_ = std::make_unique<SnowflakeGenerator>(layout, lease.node, clock, policy);
  keeper_->attach(generator_.get());
}

LeasedSnowflakeGenerator::~LeasedSnowflakeGenerator() {
  // Before generator_ goes: the keeper reads its last issued time as the final mark.
  try {
    keeper_->release();
  } catch (const std::exception&) {
  }
}

void LeasedSnowflakeGenerator::rethrow_fenced(const Error& e) const {
  if (e.code() == errc::fenced) throw keeper_->fenced_error();
  throw;
}

Snowflake LeasedSnowflakeGenerator::next() {
  try {
    return generator_->next();
  } catch (const Error& e) {
    rethrow_fenced(e);
  }
}

void LeasedSnowflakeGenerator::next_batch(std::span<Snowflake> out) {
  try {
    generator_->next_batch(out);
  } catch (const Error& e) {
    rethrow_fenced(e);
  }
}

}  // namespace idforge::coord
