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
// of threads (one 128-bit word advanced by compare-and-swap, lock-free on x86-64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "idforge/clock.hpp"
#include "idforge/detail/atomic_u128.hpp"
#include "idforge/detail/ms_reader.hpp"
#include "idforge/ulid.hpp"
#include "idforge/uuid_fields.hpp"

namespace idforge {

/// The ULID monotonic rule as pure functions of (last ULID, clock).
struct UlidStamp {
  using u128 = detail::u128;
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
  /// The ULID of a value.
  static constexpr Ulid to_ulid(u128 v) noexcept {
    return Ulid::from_u64(static_cast<std::uint64_t>(v >> 64), static_cast<std::uint64_t>(v));
  }
  /// The value of a ULID.
  static constexpr u128 value_of(const Ulid& u) noexcept {
    return (static_cast<u128>(u.high()) << 64) | u.low();
  }
};

/// Monotonic ULIDs for one thread: fastest, not thread-safe.
class UlidGenerator {
 public:
  /// Reads time from clock, which must outlive the generator.
  explicit UlidGenerator(Clock& clock = SystemClock::instance()) noexcept;
  UlidGenerator(const UlidGenerator&) = delete;
  UlidGenerator& operator=(const UlidGenerator&) = delete;

  /// The next ULID, greater than every one this generator made before. Allocation-free.
  /// Throws Error(errc::counter_exhausted) or Error(errc::time_exhausted), issuing nothing.
  Ulid next();
  /// Fills out with increasing ULIDs, reading the clock once per 256. On an error, nothing
  /// of the failing chunk is issued; earlier chunks stay valid.
  void next_batch(std::span<Ulid> out);
  /// Continue strictly after id (e.g. the last one persisted before a restart). Every ULID is
  /// a time and a counter, so none is refused; one far ahead of the clock (a typo, a forged
  /// one) moves the generator there for good: resume only after IDs this scheme made.
  void resume_after(const Ulid& id) noexcept;
  /// Unix ms of the last issued ULID (or of the one resumed after); kNoUnixMs (clock.hpp) if
  /// none.
  std::int64_t last_unix_ms() const noexcept { return UlidStamp::last_unix_ms(last_); }

 private:
  UlidStamp::Reservation take(std::uint64_t n);

  detail::MsReader clock_;  // rdtsc inside a known millisecond (detail/ms_reader.hpp)
  detail::u128 last_ = 0;
  std::uint64_t fork_epoch_;
};

/// Monotonic ULIDs shared by any number of threads (compare-and-swap on the last ULID).
class SharedUlidGenerator {
 public:
  /// Reads time from clock, which must outlive the generator.
  explicit SharedUlidGenerator(Clock& clock = SystemClock::instance()) noexcept;
  SharedUlidGenerator(const SharedUlidGenerator&) = delete;
  SharedUlidGenerator& operator=(const SharedUlidGenerator&) = delete;

  /// The next ULID, greater than every one this generator returned before on any thread.
  Ulid next();
  /// Fills out with increasing ULIDs: one compare-and-swap and one clock read per 256.
  void next_batch(std::span<Ulid> out);
  /// Continue strictly after id.
  void resume_after(const Ulid& id) noexcept;
  /// Unix ms of the last issued ULID; kNoUnixMs (clock.hpp) if none.
  std::int64_t last_unix_ms() const noexcept { return UlidStamp::last_unix_ms(last_.load()); }

 private:
  UlidStamp::Reservation take(std::uint64_t n);

  ClockRef clock_;
  std::atomic<std::uint64_t> fork_epoch_;
  alignas(64) detail::AtomicU128 last_;
};

}  // namespace idforge
