// A Snowflake stamp (tick << S | sequence, S = the layout's sequence bits) and the pure
// arithmetic around it: Unix ms to ticks and back, the last stamp of a tick, and the ID
// bits of a stamp. The generator, the C ABI's stateless rule (which PostgreSQL steps with)
// and the tests all use these, so a tick is computed and an ID packed in one place.
// Everything saturates: no value wraps for any layout Layout::make accepts (time + sequence
// bits <= 64, tick 1 ms..1 day, epoch >= 0) and any clock reading.
#pragma once

#include <cstdint>
#include <limits>

namespace idforge::detail {

/// The Unix ns at which millisecond ms begins, saturated far out: a reading of ms was taken
/// at or after it, so a wait decided on that reading needs at most until_ns minus this.
constexpr std::int64_t ns_of_ms(std::int64_t ms) noexcept {
  constexpr std::int64_t kMaxMs = std::numeric_limits<std::int64_t>::max() / 1'000'000 - 1;
  return ms >= kMaxMs ? std::numeric_limits<std::int64_t>::max() : ms * 1'000'000;
}

/// Whole ms from the start of millisecond from_ms until until_ns (0 if passed): the longest
/// a wait decided on a reading of from_ms can take.
constexpr std::int64_t ms_until(std::int64_t until_ns, std::int64_t from_ms) noexcept {
  const std::int64_t from_ns = from_ms > std::numeric_limits<std::int64_t>::max() / 1'000'000
                                   ? until_ns
                                   : from_ms * 1'000'000;
  return until_ns > from_ns ? (until_ns - from_ns + 999'999) / 1'000'000 : 0;
}

/// A layout's time arithmetic: ticks of tick_ms since epoch_ms, stamps of sequence_bits.
struct SnowflakeTicks {
  std::int64_t epoch_ms = 0;
  std::int64_t tick_ms = 1;
  double inv_tick_ms = 1.0;  // 1 / tick_ms: a multiply in place of a 64-bit divide
  int sequence_bits = 0;
  std::uint64_t max_tick = 0;   // the last tick the time field holds
  std::uint64_t max_stamp = 0;  // the last stamp it holds

  static constexpr SnowflakeTicks of(std::int64_t epoch_ms, std::int64_t tick_ms, int sequence_bits,
                                     std::uint64_t max_tick) noexcept {
    return {epoch_ms,
            tick_ms,
            1.0 / static_cast<double>(tick_ms),
            sequence_bits,
            max_tick,
            (max_tick << sequence_bits) | ((std::uint64_t{1} << sequence_bits) - 1)};
  }

  /// The tick of a reading at or after the epoch. A 64-bit integer divide costs 25-90
  /// cycles on x86 and sits on the latency path after the clock read: the common 1 ms tick
  /// needs none, others use a double multiply and one exact correction (the double's 53-bit
  /// mantissa keeps the estimate within 1 of the quotient for any reading in range).
  constexpr std::int64_t tick_of(std::int64_t unix_ms) const noexcept {
    const std::int64_t d = unix_ms - epoch_ms;
    if (tick_ms == 1) [[likely]]
      return d;
    auto q = static_cast<std::int64_t>(static_cast<double>(d) * inv_tick_ms);
    const std::int64_t r = d - q * tick_ms;
    if (r < 0)
      --q;
    else if (r >= tick_ms)
      ++q;
    return q;
  }
  /// The Unix ns at which tick begins, saturated (ticks beyond the year 2262 are never
  /// reached).
  constexpr std::int64_t ns_of_tick(std::int64_t tick) const noexcept {
    constexpr std::int64_t kMaxMs = std::numeric_limits<std::int64_t>::max() / 1'000'000;
    if (tick > (kMaxMs - epoch_ms) / tick_ms) return std::numeric_limits<std::int64_t>::max();
    return (epoch_ms + tick * tick_ms) * 1'000'000;
  }
  /// The tick of a stamp.
  constexpr std::uint64_t tick_of_stamp(std::uint64_t stamp) const noexcept {
    return stamp >> sequence_bits;
  }
  /// The last stamp of tick (of the time field, past its end).
  constexpr std::uint64_t end_of_tick(std::uint64_t tick) const noexcept {
    return tick >= max_tick ? max_stamp : ((tick + 1) << sequence_bits) - 1;
  }
  /// The stamp meaning "everything up to and including the tick of unix_ms is used" (0
  /// before the epoch): a high-water mark as a floor.
  constexpr std::uint64_t used_through(std::int64_t unix_ms) const noexcept {
    if (unix_ms < epoch_ms) return 0;
    return end_of_tick(static_cast<std::uint64_t>(unix_ms - epoch_ms) /
                       static_cast<std::uint64_t>(tick_ms));
  }
  /// The last stamp whose tick ends by unix_ms (a fence): ticks 0..n-1 end by it, so the
  /// last stamp of tick n-1; 0 when no tick does; every stamp for max().
  constexpr std::uint64_t last_ending_by(std::int64_t unix_ms) const noexcept {
    if (unix_ms == std::numeric_limits<std::int64_t>::max()) return ~std::uint64_t{0};
    const std::uint64_t ticks =
        unix_ms <= epoch_ms
            ? 0
            : static_cast<std::uint64_t>(unix_ms - epoch_ms) / static_cast<std::uint64_t>(tick_ms);
    return ticks == 0 ? 0 : end_of_tick(ticks - 1);
  }
  /// The Unix ms at which a stamp's tick begins (saturated at max()).
  constexpr std::int64_t unix_ms_of_stamp(std::uint64_t stamp) const noexcept {
    const std::uint64_t tick = tick_of_stamp(stamp);
    const auto room =
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() - epoch_ms) /
        static_cast<std::uint64_t>(tick_ms);
    if (tick > room) return std::numeric_limits<std::int64_t>::max();
    return epoch_ms + static_cast<std::int64_t>(tick) * tick_ms;
  }
};

/// Where a stamp's tick and sequence, and a node, go in the ID.
struct SnowflakeBits {
  int sequence_bits = 0;
  int time_shift = 0;
  int node_shift = 0;
  int sequence_shift = 0;
  std::uint64_t sequence_mask = 0;  // kept, not derived: one AND on the hot path

  static constexpr SnowflakeBits of(int sequence_bits, int time_shift, int node_shift,
                                    int sequence_shift) noexcept {
    return {sequence_bits, time_shift, node_shift, sequence_shift,
            (std::uint64_t{1} << sequence_bits) - 1};
  }

  /// The node's bits, or'ed into every ID of that node.
  constexpr std::uint64_t node_bits(std::uint64_t node) const noexcept {
    return node << node_shift;
  }
  /// The ID of a stamp on a node whose bits are node_bits (node_bits(node)).
  constexpr std::uint64_t id_of(std::uint64_t stamp, std::uint64_t node_bits) const noexcept {
    return ((stamp >> sequence_bits) << time_shift) | node_bits |
           ((stamp & sequence_mask) << sequence_shift);
  }
};

}  // namespace idforge::detail
