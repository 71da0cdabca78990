// SnowflakeGenerator, a Snowflake generator for one thread (no locked instructions), and
// SharedSnowflakeGenerator, the same generator shared by any number of threads (lock-free).
// The rule for every generator family: the plain name is for one thread, Shared... is
// thread-safe.
//
// The generator is assembled from small parts, each in its own header:
//   SnowflakeRule::advance (snowflake_rule.hpp)   the pure "what comes next" rule;
//   detail::SnowflakeTicks, SnowflakeBits          tick arithmetic and an ID's bits;
//     (detail/snowflake_stamp.hpp)
//   detail::StampCell (detail/stamp_cell.hpp)      the one word of state, claimed by CAS;
//   detail::SnowflakeFence (detail/...fence.hpp)   the last stamp a lease admits;
//   detail::ForkGuard (detail/fork_guard.hpp)      refuse in a child until rebind();
//   detail::GeneratorClock                         the clock, one rdtsc inside a known ms;
//   src/core/snowflake_refusal.cpp                 every refusal's error and message.
// claim() in snowflake_generator.cpp puts them together: read the clock, guard, advance,
// fence, claim.
//
// State is one 64-bit word, the "stamp" = tick << S | sequence (S = sequence bits; time +
// sequence bits never exceed 64, so every stamp of every layout fits). Every ID comes from
// a stamp that one call alone claimed (a compare-and-swap in the shared generator), and the
// stamp only moves up, so no two calls on any thread get the same stamp, and stamp order is
// ID order. What the next stamp is, given the last one and the clock, is the pure function
// SnowflakeRule::advance(); every call (next() and next_batch()) then takes the same path: read the
// clock, check fork and epoch, advance, claim, check the claim against the fence.
//
// Clock going back: the generator keeps its last tick. If the clock reads behind it by at
// most policy.max_backward_wait_ms, it waits for the clock to catch up; beyond that it
// throws ClockBackwardsError with how far behind it is, and issues nothing. A reading that
// only looks behind because other threads moved on since it was taken is read again first.
// Sequence exhausted in a tick: it waits for the next tick. The sequence is never reset on
// a repeated tick, and never wraps into a value already used.
// Time field exhausted: once the clock (or a high-water mark) passes the last tick the
// layout holds, construction and every call refuse with errc::time_exhausted naming the
// date the field ran out; no arithmetic wraps for any layout Layout::make accepts.
// Borrowing (opt-in, policy.max_borrow_ms > 0): instead of waiting, it may issue up to
// ceil(max_borrow_ms / tick) whole ticks ahead of the clock (as Hazelcast's and Baidu's
// generators do); ahead_ms() reports it.
// Fork: a generator refuses (errc::forked) in a child process until rebind() gives it a
// node ID of its own, because the parent keeps issuing with the old one.
// Fence: set_fence_unix_ms(F) makes it refuse (errc::fenced) every ID whose tick does not
// end by F: an issued ID's time is below F, and so was the clock when its stamp was claimed.
// The check reads the fence after the stamp is claimed, so once set_fence_unix_ms()
// returns, an ID still returned by a call in flight was claimed before, and last_unix_ms()
// read afterwards covers it (SharedSnowflakeGenerator only; see set_fence_unix_ms()).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <system_error>

#include "idforge/clock.hpp"
#include "idforge/detail/fork_guard.hpp"
#include "idforge/detail/generator_clock.hpp"
#include "idforge/detail/snowflake_fence.hpp"
#include "idforge/detail/snowflake_stamp.hpp"
#include "idforge/detail/stamp_cell.hpp"
#include "idforge/error.hpp"
#include "idforge/snowflake.hpp"
#include "idforge/snowflake_layout.hpp"
#include "idforge/snowflake_rule.hpp"

namespace idforge {

/// How a generator reacts to a clock behind its last tick and to bursts.
struct SnowflakePolicy {
  /// Clock behind the last tick by up to this: wait. Beyond: ClockBackwardsError. 0 = refuse.
  /// 0..86'400'000 (a day).
  std::int64_t max_backward_wait_ms = 5;
  /// Opt-in: issue up to this many ms (rounded up to whole ticks) ahead of the clock instead
  /// of waiting. 0 = never. 0..86'400'000.
  std::int64_t max_borrow_ms = 0;
  /// Sequence of a tick used up: wait for the next tick when it begins within this many ms;
  /// beyond, Error(errc::counter_exhausted) naming the wait, and nothing issued. The default
  /// (a day, the longest tick) always waits; a caller that must stay responsive (an
  /// interpreter waiting for Ctrl-C, a request with a deadline) sets less. 0..86'400'000.
  std::int64_t max_sequence_wait_ms = 86'400'000;
  /// High-water mark of an earlier holder of this node ID (Unix ms): its whole tick counts
  /// as used, so the first ID is in the tick after it. If the clock is behind it at start,
  /// the backward-clock rule above applies.
  std::int64_t issued_up_to_unix_ms = kNoUnixMs;
};

/// Counters of the slow paths, for metrics. Read with relaxed loads; approximate under races.
struct SnowflakeStats {
  std::uint64_t exhausted_waits = 0;    ///< waits because the sequence ran out in a tick
  std::uint64_t backward_waits = 0;     ///< waits because the clock was behind
  std::uint64_t backward_refusals = 0;  ///< ClockBackwardsError thrown
  std::int64_t max_ahead_ms = 0;        ///< furthest ahead of the clock borrowing has run
};

namespace detail {
template <bool Shared>
struct SnowflakeCalls;  // the call path, in snowflake_generator.cpp
}  // namespace detail

/// The generator; use the names SnowflakeGenerator (one thread) and
/// SharedSnowflakeGenerator (any number of threads) at the end of this file.
template <bool Shared>
class BasicSnowflakeGenerator {
 public:
  /// Validates node against the layout (errc::node_out_of_range), the policy
  /// (errc::invalid_argument), the layout's epoch against the clock (errc::epoch_in_future)
  /// and the time field against the clock (errc::time_exhausted, naming the date it ran
  /// out). The clock must outlive the generator.
  BasicSnowflakeGenerator(const Layout& layout, std::uint64_t node, Clock& clock,
                          const SnowflakePolicy& policy = {});
  /// With the process-wide SystemClock.
  BasicSnowflakeGenerator(const Layout& layout, std::uint64_t node,
                          const SnowflakePolicy& policy = {});

  // A copy would issue the same IDs as the original: not copyable, not movable.
  BasicSnowflakeGenerator(const BasicSnowflakeGenerator&) = delete;
  BasicSnowflakeGenerator& operator=(const BasicSnowflakeGenerator&) = delete;

  /// The next ID. Lock-free and allocation-free; thread-safe in SharedSnowflakeGenerator only.
  /// May wait (bounded) as described above; throws ClockBackwardsError, or Error with
  /// errc::forked / fenced / clock_before_epoch / time_exhausted / counter_exhausted (the
  /// next tick is further than policy.max_sequence_wait_ms), and then issues nothing.
  Snowflake next();

  /// Fills out with consecutive IDs, reading the clock once per tick rather than per ID.
  /// Same errors as next(); on an error, IDs already written stay valid and are counted by
  /// the exception-free overload below.
  void next_batch(std::span<Snowflake> out);
  /// Fills out; returns how many were written before an error (stored in error) or out.size().
  std::size_t next_batch(std::span<Snowflake> out, std::error_code& error) noexcept;

  const Layout& layout() const noexcept { return layout_; }
  /// The node ID (changes only by rebind()).
  std::uint64_t node() const noexcept { return node_.load(std::memory_order_acquire); }
  const SnowflakePolicy& policy() const noexcept { return policy_; }
  /// Unix ms of the last claimed tick (the high-water mark to persist); kNoUnixMs
  /// (clock.hpp, = min()) if none yet.
  std::int64_t last_unix_ms() const noexcept;
  /// How far the last claimed tick is ahead of the clock now, in ms (0 if not ahead).
  std::int64_t ahead_ms() const noexcept;
  /// Slow-path counters.
  SnowflakeStats stats() const noexcept;

  /// From now on, refuse (errc::fenced) every ID whose tick does not end by unix_ms; max()
  /// lifts the fence, min() stops all issuing. Thread-safe. In SharedSnowflakeGenerator a call
  /// checks the fence after it claimed its stamp, so after this returns every ID a call in
  /// flight can still return lies below the new fence or is covered by last_unix_ms() read
  /// afterwards: fence, then read last_unix_ms(), and the mark read covers everything.
  void set_fence_unix_ms(std::int64_t unix_ms) noexcept;
  /// The fence last set (max(): none).
  std::int64_t fence_unix_ms() const noexcept { return fence_.unix_ms(); }

  /// From now on issue only above unix_ms (its whole tick counts as used), as
  /// SnowflakePolicy::issued_up_to_unix_ms does at construction: for a node ID taken again
  /// after another holder may have issued with it up to that mark. Never lowers the state.
  /// Thread-safe in both.
  void raise_floor_unix_ms(std::int64_t unix_ms) noexcept;

  /// Gives the generator a node ID of its own in a child process forked after it was
  /// created, and makes it issue only after issued_up_to_unix_ms there (the new node's
  /// high-water mark). Elsewhere it throws errc::invalid_argument: build a new generator
  /// instead. That makes a concurrent next() harmless: until rebind() returns, every call in
  /// the child refuses (errc::forked), and a call that sees the child as rebound sees the new
  /// node ID and floor in full. The fence is kept as it was.
  void rebind(std::uint64_t node, std::int64_t issued_up_to_unix_ms = kNoUnixMs);

 private:
  friend struct detail::SnowflakeCalls<Shared>;

  // Read on every call; kept together at the front.
  detail::GeneratorClock<Shared> clock_;
  SnowflakeRule::Limits limits_;
  detail::SnowflakeTicks ticks_;
  detail::SnowflakeBits bits_;
  std::atomic<std::uint64_t> node_bits_;  // bits_.node_bits(node), or'ed into every ID
  detail::ForkGuard fork_;
  detail::SnowflakeFence fence_;
  // Read on slow paths only.
  std::atomic<std::uint64_t> node_;
  Layout layout_;
  SnowflakePolicy policy_;
  std::int64_t time_runs_out_ms_;
  alignas(64) detail::StampCell<std::uint64_t, Shared> stamp_;
  alignas(64) std::atomic<std::uint64_t> exhausted_waits_{0}, backward_waits_{0},
      backward_refusals_{0};
  std::atomic<std::int64_t> max_ahead_ticks_{0};
};

/// For one thread at a time (or behind the caller's own lock): no locked instructions. A
/// fence set from another thread takes effect at its next call; the in-flight guarantee of
/// set_fence_unix_ms() needs SharedSnowflakeGenerator.
using SnowflakeGenerator = BasicSnowflakeGenerator<false>;
/// Shared by any number of threads: one atomic word, lock-free.
using SharedSnowflakeGenerator = BasicSnowflakeGenerator<true>;

extern template class BasicSnowflakeGenerator<true>;
extern template class BasicSnowflakeGenerator<false>;

}  // namespace idforge
