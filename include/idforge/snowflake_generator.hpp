// SnowflakeGenerator: a lock-free, thread-safe Snowflake generator, and
// LocalSnowflakeGenerator, the same generator for one thread (no atomic instructions).
//
// State is one 64-bit word, the "stamp" = tick << S | sequence (S = sequence bits). Every
// ID comes from a stamp that one call alone claimed (an atomic add or compare-and-swap in
// the shared generator), and the stamp only moves up, so no two calls on any thread get the
// same stamp, and stamp order is ID order. What the next stamp is, given the last one and
// the clock, is the pure function advance(); next() adds the clock and the claim.
//
// Clock going back: the generator keeps its last tick. If the clock reads behind it by at
// most policy.max_backward_wait_ms, it waits for the clock to catch up; beyond that it
// throws ClockBackwardsError with how far behind it is, and issues nothing.
// Sequence exhausted in a tick: it waits for the next tick. The sequence is never reset on
// a repeated tick, and never wraps into a value already used.
// Borrowing (opt-in, policy.max_borrow_ms > 0): instead of waiting, it may issue up to that
// many ms ahead of the clock (as Hazelcast's and Baidu's generators do); ahead_ms() reports it.
// Fork: a generator refuses (errc::forked) in a child process until rebind() gives it a node
// ID of its own, because the parent keeps issuing with the old one.
// Fence: set_fence_unix_ms(t) makes it refuse (errc::fenced) once the clock reaches t; a
// lease sets it to its deadline minus a safety margin.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <system_error>

#include "idforge/clock.hpp"
#include "idforge/snowflake.hpp"
#include "idforge/snowflake_layout.hpp"

namespace idforge {

/// How a generator reacts to a clock behind its last tick and to bursts.
struct SnowflakePolicy {
  /// Clock behind the last tick by up to this: wait. Beyond: ClockBackwardsError. 0 = refuse.
  std::int64_t max_backward_wait_ms = 5;
  /// Opt-in: issue up to this many ms ahead of the clock instead of waiting. 0 = never.
  std::int64_t max_borrow_ms = 0;
  /// High-water mark of an earlier holder of this node ID (Unix ms): issue only after it.
  /// If the clock is behind it at start, the backward-clock rule above applies.
  std::int64_t issued_up_to_unix_ms = std::numeric_limits<std::int64_t>::min();
};

/// Counters of the slow paths, for metrics. Read with relaxed loads; approximate under races.
struct SnowflakeStats {
  std::uint64_t exhausted_waits = 0;  ///< waits because the sequence ran out in a tick
  std::uint64_t backward_waits = 0;   ///< waits because the clock was behind
  std::uint64_t backward_refusals = 0;///< ClockBackwardsError thrown
  std::int64_t max_ahead_ms = 0;      ///< furthest ahead of the clock borrowing has run
};

namespace detail {
// The stamp word: atomic for the shared generator, a plain integer for the local one.
template <bool Shared>
struct StampCell {
  std::atomic<std::uint64_t> v{0};
  std::uint64_t load() const noexcept { return v.load(std::memory_order_relaxed); }
  void store(std::uint64_t x) noexcept { v.store(x, std::memory_order_relaxed); }
  std::uint64_t fetch_add_one() noexcept { return v.fetch_add(1, std::memory_order_relaxed); }
  bool cas_weak(std::uint64_t& expected, std::uint64_t desired) noexcept {
    return v.compare_exchange_weak(expected, desired, std::memory_order_relaxed);
  }
  bool cas_strong(std::uint64_t& expected, std::uint64_t desired) noexcept {
    return v.compare_exchange_strong(expected, desired, std::memory_order_relaxed);
  }
};
template <>
struct StampCell<false> {
  std::uint64_t v = 0;
  std::uint64_t load() const noexcept { return v; }
  void store(std::uint64_t x) noexcept { v = x; }
  std::uint64_t fetch_add_one() noexcept { return v++; }
  bool cas_weak(std::uint64_t& expected, std::uint64_t desired) noexcept { return cas_strong(expected, desired); }
  bool cas_strong(std::uint64_t& expected, std::uint64_t desired) noexcept {
    if (v != expected) return expected = v, false;
    v = desired;
    return true;
  }
};
}  // namespace detail

/// The generator; use the aliases SnowflakeGenerator (shared by threads) and
/// LocalSnowflakeGenerator (one thread only, about 5 ns cheaper per ID).
template <bool Shared>
class BasicSnowflakeGenerator {
 public:
  /// The outcome of one step of the state machine (see advance()).
  struct Step {
    enum class Kind : std::uint8_t { issue, wait, refuse_backwards, time_exhausted };
    Kind kind;
    std::uint64_t stamp;      ///< issue: the new stamp
    std::int64_t until_tick;  ///< wait: the tick the clock must reach
    std::int64_t behind;      ///< wait / refuse: ticks the clock is behind the last tick (<=0: none)
  };
  /// Limits advance() works within, in ticks; derived from layout and policy.
  struct Limits {
    int sequence_bits;
    std::uint64_t max_tick;
    std::int64_t borrow_ticks;
    std::int64_t backward_wait_ticks;
  };

  /// The whole "what comes next" rule: given the last stamp and the clock's tick, the next
  /// stamp is max(last + 1, now << S) if its tick is at most now + borrow; otherwise wait or
  /// refuse. Pure; the generator and its tests share it.
  static constexpr Step advance(std::uint64_t last, std::int64_t now_tick,
                                const Limits& lim) noexcept;

  /// Validates node against the layout (errc::node_out_of_range) and the layout's epoch
  /// against the clock (errc::epoch_in_future). The clock must outlive the generator.
  BasicSnowflakeGenerator(const Layout& layout, std::uint64_t node, Clock& clock,
                     const SnowflakePolicy& policy = {});
  /// With the process-wide SystemClock.
  BasicSnowflakeGenerator(const Layout& layout, std::uint64_t node, const SnowflakePolicy& policy = {});

  // A copy would issue the same IDs as the original: not copyable, not movable.
  BasicSnowflakeGenerator(const BasicSnowflakeGenerator&) = delete;
  BasicSnowflakeGenerator& operator=(const BasicSnowflakeGenerator&) = delete;

  /// The next ID. Lock-free and allocation-free; thread-safe in SnowflakeGenerator only. May wait (bounded) as described
  /// above; throws ClockBackwardsError, or Error with errc::forked / fenced /
  /// clock_before_epoch / time_exhausted, and then issues nothing.
  Snowflake next();

  /// Fills out with consecutive IDs, reading the clock once per tick rather than per ID.
  /// Same errors as next(); on an error, IDs already written stay valid and are counted by
  /// the exception-free overload below.
  void next_batch(std::span<Snowflake> out);
  /// Fills out; returns how many were written before an error (stored in error) or out.size().
  std::size_t next_batch(std::span<Snowflake> out, std::error_code& error) noexcept;

  const Layout& layout() const noexcept { return layout_; }
  std::uint64_t node() const noexcept { return node_; }
  const SnowflakePolicy& policy() const noexcept { return policy_; }
  /// Unix ms of the last issued tick (the high-water mark to persist); min() if none yet.
  std::int64_t last_unix_ms() const noexcept;
  /// How far the last issued tick is ahead of the clock now, in ms (0 if not ahead).
  std::int64_t ahead_ms() const noexcept;
  /// Slow-path counters.
  SnowflakeStats stats() const noexcept;

  /// Refuse with errc::fenced once the clock reaches unix_ms; max() lifts the fence.
  void set_fence_unix_ms(std::int64_t unix_ms) noexcept {
    fence_ns_.store(unix_ms == std::numeric_limits<std::int64_t>::max()
                        ? std::numeric_limits<std::int64_t>::max()
                        : unix_ms * 1'000'000,
                    std::memory_order_release);
  }
  /// Gives the generator a new node ID (after fork, or after a new lease) and accepts the
  /// current process as its owner. IDs stay above everything issued so far.
  void rebind(std::uint64_t node);

 private:
  std::int64_t tick_of(std::int64_t unix_ns) const noexcept;
  std::int64_t read_clock() const noexcept { return clock_.now_ns(); }
  std::int64_t ns_of_tick(std::int64_t tick) const noexcept;
  struct Refusal {
    Step step{};
    std::int64_t now_ns = 0;
  };
  std::uint64_t id_of(std::uint64_t stamp) const noexcept {
    const int S = limits_.sequence_bits;
    return ((stamp >> S) << layout_.time_shift()) | node_bits_shifted_ |
           ((stamp & ((std::uint64_t{1} << S) - 1)) << layout_.sequence_shift());
  }
  Snowflake next_by_cas();
  std::size_t fill(std::span<Snowflake> out, std::error_code& error, Refusal& refusal) noexcept;
  // Waits if the step says so and returns true; false for a refusal.
  bool wait_for(const Step& step) noexcept;
  // Counts a refusal and returns its code.
  std::error_code refusal_code(const Step& step) noexcept;
  [[noreturn]] void throw_refusal(const Step& step, std::int64_t now_ns) const;
  void note_ahead(std::uint64_t stamp, std::int64_t now_tick) noexcept;
  bool must_check(std::int64_t now_ns) const noexcept;
  Step recheck(std::uint64_t last, std::int64_t& now_ns, std::int64_t& now_tick) const noexcept;
  std::error_code check_process_and_fence(std::int64_t now_ns) const noexcept;
  [[noreturn]] void throw_code(std::error_code ec, std::int64_t now_ns) const;

  Layout layout_;
  SnowflakePolicy policy_;
  ClockRef clock_;
  bool claim_by_add_;
  Limits limits_;
  std::uint64_t node_;
  std::uint64_t node_bits_shifted_;  // node << node_shift, or'ed into every ID
  std::int64_t epoch_ns_;
  std::int64_t tick_ns_;
  double inv_tick_ns_;  // 1 / tick_ns_: a multiply instead of a 64-bit divide (see tick_of)
  std::uint64_t fork_epoch_;
  std::atomic<std::int64_t> fence_ns_{std::numeric_limits<std::int64_t>::max()};
  alignas(64) detail::StampCell<Shared> stamp_;
  alignas(64) mutable std::atomic<std::uint64_t> exhausted_waits_{0}, backward_waits_{0},
      backward_refusals_{0};
  mutable std::atomic<std::int64_t> max_ahead_ticks_{0};
};

// ---------------------------------------------------------------------------------------
// The pure transition

template <bool Shared>
constexpr typename BasicSnowflakeGenerator<Shared>::Step BasicSnowflakeGenerator<Shared>::advance(
    std::uint64_t last, std::int64_t now_tick, const Limits& lim) noexcept {
  using Kind = typename Step::Kind;
  const int S = lim.sequence_bits;
  const auto last_tick = static_cast<std::int64_t>(last >> S);
  const std::uint64_t floor = static_cast<std::uint64_t>(now_tick) << S;
  const std::uint64_t cand = last + 1 > floor ? last + 1 : floor;
  const auto cand_tick = static_cast<std::int64_t>(cand >> S);
  if (static_cast<std::uint64_t>(cand_tick) > lim.max_tick || cand < last)
    return {Kind::time_exhausted, 0, 0, last_tick - now_tick};
  if (cand_tick <= now_tick + lim.borrow_ticks) return {Kind::issue, cand, 0, 0};
  const std::int64_t behind = last_tick - now_tick;
  if (behind > lim.borrow_ticks && behind - lim.borrow_ticks > lim.backward_wait_ticks)
    return {Kind::refuse_backwards, 0, 0, behind};
  return {Kind::wait, 0, cand_tick - lim.borrow_ticks, behind};
}

/// Shared by any number of threads: one atomic word, lock-free.
using SnowflakeGenerator = BasicSnowflakeGenerator<true>;
/// For one thread at a time (or behind the caller's own lock): no atomic instructions.
using LocalSnowflakeGenerator = BasicSnowflakeGenerator<false>;

extern template class BasicSnowflakeGenerator<true>;
extern template class BasicSnowflakeGenerator<false>;

}  // namespace idforge
