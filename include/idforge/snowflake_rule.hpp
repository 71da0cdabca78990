// SnowflakeRule: what the next Snowflake stamp is, given the last one and the clock's tick,
// as one pure function. The generator (snowflake_generator.hpp), the C ABI's stateless rule
// (idforge_snowflake_step_next, what PostgreSQL steps with) and the tests share it; the
// generator adds only reading the clock, claiming the stamp and the fence around it.
#pragma once

#include <cstdint>

namespace idforge {

struct SnowflakeRule {
  /// The outcome of one step (see advance()).
  struct Step {
    enum class Kind : std::uint8_t { issue, wait, refuse_backwards, time_exhausted, before_epoch };
    Kind kind;
    std::uint64_t stamp;      ///< issue: the new stamp
    std::int64_t until_tick;  ///< wait: the tick the clock must reach
    std::int64_t behind;  ///< wait / refuse: ticks the clock is behind the last tick (<=0: none)
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
  /// refuse. Refuses (time_exhausted) rather than go past the last stamp the layout holds,
  /// and checks now against max_tick before any shift.
  static constexpr Step advance(std::uint64_t last, std::int64_t now_tick,
                                const Limits& lim) noexcept {
    using K = Step::Kind;
    const int S = lim.sequence_bits;
    // One unsigned compare rejects both a negative tick and one past the time field, before
    // the shift below could wrap.
    if (static_cast<std::uint64_t>(now_tick) > lim.max_tick)
      return {now_tick < 0 ? K::before_epoch : K::time_exhausted, 0, 0, 0};
    const std::uint64_t floor = static_cast<std::uint64_t>(now_tick) << S;
    const auto last_tick = static_cast<std::int64_t>(last >> S);
    std::uint64_t cand = floor;
    if (last >= floor) {
      // last + 1 wraps only from the very last stamp (time + sequence = 64 bits), and from
      // the last stamp of the field the next one would be a tick the field does not hold.
      if (last == ((lim.max_tick << S) | ((std::uint64_t{1} << S) - 1)))
        return {K::time_exhausted, 0, 0, last_tick - now_tick};
      cand = last + 1;
    }
    const auto cand_tick = static_cast<std::int64_t>(cand >> S);
    if (cand_tick - now_tick <= lim.borrow_ticks) return {K::issue, cand, 0, 0};
    const std::int64_t behind = last_tick - now_tick;
    if (behind > lim.borrow_ticks && behind - lim.borrow_ticks > lim.backward_wait_ticks)
      return {K::refuse_backwards, 0, 0, behind};
    return {K::wait, 0, cand_tick - lim.borrow_ticks, behind};
  }
};

}  // namespace idforge
