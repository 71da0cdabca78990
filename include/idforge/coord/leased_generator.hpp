// SharedLeasedSnowflakeGenerator: a SharedSnowflakeGenerator whose node ID comes from a lease
// store.
//
// Start-up: acquire a node ID (a fixed one with KeeperOptions::node; otherwise the first free
// one whose stored mark start-up can wait out, passing over those whose marks are further
// ahead: keeper().skipped() says which and why). Reserve a first window. If the clock reads
// at or before the stored high-water mark of earlier holders, say so through
// LeasedOptions::on_start_wait and wait until it passes (at most max_start_wait_ms, ended
// early by LeasedOptions::stop), or refuse with ClockBackwardsError naming the store, the node
// ID and the mark. Then the generator is built with SnowflakePolicy::issued_up_to_unix_ms =
// mark, so even a clock that moves back afterwards cannot make it issue at or below the mark.
// Running: a LeaseKeeper renews the lease and fences the generator (see lease_keeper.hpp);
// next() throws LeaseError (reason fenced or lost) while fenced.
// Fork: in a child process next() refuses (the parent keeps the lease) and the destructor
// does nothing, so a child may exit at once without touching the parent's lease.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <system_error>

#include "idforge/coord/lease.hpp"
#include "idforge/coord/lease_keeper.hpp"
#include "idforge/snowflake_generator.hpp"

namespace idforge::coord {

/// What start-up is about to wait for (LeasedOptions::on_start_wait).
struct StartWait {
  std::uint64_t node = 0;
  std::int64_t high_water_unix_ms = kNoMark;  ///< the mark the clock must pass
  std::int64_t wait_ms = 0;                   ///< how long that is from now
  std::string store;                          ///< the store's URL
};

/// Start-up settings besides the generator policy.
struct LeasedOptions {
  KeeperOptions keeper;  ///< renewal timing, fixed node
  /// Longest start-up wait for the clock to pass the stored mark; -1: reserve window + 1 s.
  /// A leased (not fixed) node whose mark is further ahead is passed over for the next.
  std::int64_t max_start_wait_ms = -1;
  /// Called once before start-up waits for the clock (say what and for how long).
  std::function<void(const StartWait&)> on_start_wait;
  /// A stop request ends the start-up wait: nothing is issued, the node ID is released
  /// (its mark untouched) and the constructor throws LeaseError (LeaseFailure::cancelled).
  std::stop_token stop;
};

/// A thread-safe Snowflake generator on a leased node ID; not copyable (file comment).
class SharedLeasedSnowflakeGenerator {
 public:
  /// Acquires a node ID from store, waits out the stored mark, starts renewing. Throws
  /// LeaseError (unreachable, space_full, held, cancelled, ...) or ClockBackwardsError
  /// (clock behind the mark further than start-up waits).
  /// policy.max_borrow_ms is passed to the keeper so the reservation covers borrowed time.
  SharedLeasedSnowflakeGenerator(std::unique_ptr<LeaseStore> store, const Layout& layout,
                                 Clock& clock, SnowflakePolicy policy = {},
                                 const LeasedOptions& options = {});
  /// With the process-wide SystemClock.
  SharedLeasedSnowflakeGenerator(std::unique_ptr<LeaseStore> store, const Layout& layout,
                                 SnowflakePolicy policy = {}, const LeasedOptions& options = {});
  /// Releases the lease, storing the last issued time as the mark.
  ~SharedLeasedSnowflakeGenerator();

  /// The next ID; as SharedSnowflakeGenerator::next(), but a fence becomes LeaseError.
  Snowflake next();
  /// As SharedSnowflakeGenerator::next_batch(), with the same translation of a fence.
  void next_batch(std::span<Snowflake> out);
  /// Fills out; returns how many were written before an error (stored in error: errc::fenced
  /// once the lease's deadline passes) or out.size(). Never throws.
  std::size_t next_batch(std::span<Snowflake> out, std::error_code& error) noexcept;
  /// Stops issuing and releases the lease now (see LeaseKeeper::release()).
  void release() { keeper_->release(); }

  /// The underlying generator, to read (stats, last_unix_ms, layout). Read-only: its fence
  /// and node ID belong to the lease, and a caller that could move them would issue past it.
  const SharedSnowflakeGenerator& generator() const noexcept { return *generator_; }
  /// The keeper (for the lease, its status and the store URL).
  LeaseKeeper& keeper() noexcept { return *keeper_; }
  /// The node ID held.
  std::uint64_t node() const noexcept { return keeper_->acquired().node; }
  /// How long start-up waited for the clock to pass the stored mark, in ms.
  std::int64_t start_wait_ms() const noexcept { return start_wait_ms_; }

 private:
  [[noreturn]] void rethrow_fenced(const Error& e) const;

  std::unique_ptr<LeaseKeeper> keeper_;
  std::unique_ptr<SharedSnowflakeGenerator> generator_;
  std::int64_t start_wait_ms_ = 0;
};

}  // namespace idforge::coord
