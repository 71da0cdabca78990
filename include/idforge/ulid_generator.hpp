// ULID generators, monotonic as the ULID spec describes: the first ID of a millisecond
// takes 80 fresh CSPRNG bits; every further ID in the same millisecond is the previous one
// plus 1 in the random part. The state is the last ULID itself (128 bits).
//
// Clock going back: the generator keeps its last time and goes on incrementing the random
// part there; it never issues an earlier time than it already did.
// Overflow: if the random part would pass 2^80 - 1 inside one millisecond, next() throws
// Error(errc::counter_exhausted) and issues nothing (the spec: "generation will fail"); it
// never wraps. With a random start that takes about 2^79 IDs; the next millisecond works.
// Fork: a generator inherited through fork() moves its next ID to a later millisecond with
// fresh random bits, so parent and child never continue the same increment sequence.
//
// UlidGenerator is for one thread (fastest); SharedUlidGenerator may be shared by any number
// of threads (one 128-bit word advanced by compare-and-swap, lock-free on x86-64). UlidStamp
// holds the rule as pure functions; MonotonicGenerator (detail/monotonic_generator.hpp, the
// engine the UUIDv7 generators share) runs it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "idforge/clock.hpp"
#include "idforge/detail/atomic_u128.hpp"
#include "idforge/detail/monotonic_generator.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid_fields.hpp"

namespace idforge {

/// The ULID monotonic rule as pure functions of (last ULID, clock).
struct UlidStamp {
  using u128 = detail::u128;
  using Id = Ulid;
  using Bits = u128;  ///< the 80 random bits a new millisecond starts from
  static constexpr u128 kRandomMask = (static_cast<u128>(1) << 80) - 1;

  /// What a request for IDs gets.
  enum class Outcome : std::uint8_t {
    ok,
    counter_exhausted,  ///< the random part would overflow inside the millisecond
    time_exhausted,     ///< past the 48-bit millisecond field (year 10889)
  };
  /// ULIDs first..last (inclusive), valid when outcome is ok.
  struct Reservation {
    u128 first;
    u128 last;
    Outcome outcome;
  };

  /// Milliseconds of a ULID's value.
  static constexpr std::uint64_t unix_ms(u128 v) noexcept {
    return static_cast<std::uint64_t>(v >> 80);
  }
  /// What last_unix_ms() reports for a value: its milliseconds, or kNoUnixMs for value 0
  /// ("nothing issued").
  static constexpr std::int64_t last_unix_ms(u128 v) noexcept {
    return v == 0 ? kNoUnixMs : static_cast<std::int64_t>(unix_ms(v));
  }
  /// Whether the next ULID starts a new millisecond (and so needs fresh random bits).
  static constexpr bool starts_new_ms(u128 last, std::uint64_t now_ms, bool fresh) noexcept {
    return now_ms > unix_ms(last) || fresh || last == 0;
  }
  /// The next n ULIDs after last, given the clock in Unix ms (negative reads count as 0)
  /// and 80 random bits (used when a new millisecond starts). fresh: inherited via fork().
  static constexpr Reservation reserve(u128 last, std::int64_t now_ms, u128 random, std::uint64_t n,
                                       bool fresh) noexcept {
    const std::uint64_t now = now_ms < 0 ? 0 : static_cast<std::uint64_t>(now_ms);
    const std::uint64_t last_ms = unix_ms(last);
    u128 first;
    if (now > last_ms || last == 0) {
      if (now > kMaxUnixMs48) return {0, 0, Outcome::time_exhausted};
      first = (static_cast<u128>(now) << 80) | (random & kRandomMask);
      first += first == 0;  // value 0 stands for "nothing issued": never issue it
    } else if (fresh) {
      if (last_ms >= kMaxUnixMs48) return {0, 0, Outcome::time_exhausted};
      first = (static_cast<u128>(last_ms + 1) << 80) | (random & kRandomMask);
    } else {
      if ((last & kRandomMask) == kRandomMask) return {0, 0, Outcome::counter_exhausted};
      first = last + 1;
    }
    const u128 end = first + (n - 1);
    if (unix_ms(end) != unix_ms(first)) return {0, 0, Outcome::counter_exhausted};
    return {first, end, Outcome::ok};
  }
  /// Whether a reservation may be issued.
  static constexpr bool ok(const Reservation& r) noexcept { return r.outcome == Outcome::ok; }
  /// The ULID of a value.
  static constexpr Ulid to_ulid(u128 v) noexcept {
    return Ulid::from_u64(static_cast<std::uint64_t>(v >> 64), static_cast<std::uint64_t>(v));
  }
  /// The value of a ULID.
  static constexpr u128 value_of(const Ulid& u) noexcept {
    return (static_cast<u128>(u.high()) << 64) | u.low();
  }

  // What MonotonicGenerator needs beyond the pure rule (ulid_generator.cpp).
  /// 80 CSPRNG bits for a new millisecond.
  static Bits draw() noexcept;
  /// Throws Error(errc::counter_exhausted) or Error(errc::time_exhausted) for r.outcome.
  [[noreturn]] static void refuse(const Reservation& r, u128 last, std::uint64_t n);
  /// The ULID of a value.
  static Ulid make(u128 v) noexcept { return to_ulid(v); }
  /// The ULIDs of values first, first + 1, ...
  static void emit(std::span<Ulid> out, u128 first) noexcept {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = to_ulid(first + i);
  }
  /// Every ULID is a time and a counter, so none is refused; one far ahead of the clock (a
  /// typo, a forged one) moves the generator there for good: resume only after IDs this
  /// scheme made.
  static u128 resume_stamp(const Ulid& id) noexcept { return value_of(id); }
};

/// Monotonic ULIDs for one thread: fastest, not thread-safe. next() throws
/// Error(errc::counter_exhausted) or Error(errc::time_exhausted), issuing nothing.
using UlidGenerator = MonotonicGenerator<UlidStamp, false>;
/// Monotonic ULIDs shared by any number of threads (compare-and-swap on the last ULID).
using SharedUlidGenerator = MonotonicGenerator<UlidStamp, true>;

extern template class MonotonicGenerator<UlidStamp, false>;
extern template class MonotonicGenerator<UlidStamp, true>;

}  // namespace idforge
