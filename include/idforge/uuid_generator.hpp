// UUID generators: version 4 (random) and version 7 (time-ordered, monotonic).
//
// v4: 122 bits from the calling thread's CSPRNG (random.hpp); stateless, thread-safe.
//
// v7 monotonicity: RFC 9562 §6.2 Method 1, a fixed-length dedicated counter of 42 bits, the
// longest the RFC suggests, placed right after the timestamp:
//
//   unix_ts_ms 48 | ver 4 | rand_a 12 = counter[41:30] | var 2 | counter[29:0] 30 | random 32
//
//  - A new millisecond seeds the counter with 41 random bits (top bit clear: the §6.2
//    "counter rollover guard"), so at least 2^41 IDs fit in every millisecond.
//  - Inside a millisecond, and whenever the clock reads earlier than the last ID (a step
//    back), the counter is incremented: the generator keeps its last time, never goes back.
//  - If the counter runs out anyway, the carry goes into the timestamp: the generator
//    borrows the next millisecond (the "increment the timestamp" of §6.2). IDs stay unique
//    and ordered; the timestamp runs ahead of the clock until the clock catches up.
//  - The low 32 bits are fresh CSPRNG bits in every ID (§6.9), so IDs stay unguessable.
// Why 42 and not 12 bits: a 12-bit counter holds 2048 IDs per ms once its guard bit is
// clear, while one thread makes about 50 000 per ms; a 12-bit generator would run its
// timestamps tens of times ahead of the clock in any burst. 42 bits never borrow in practice.
// The whole state is the 90-bit stamp (ms << 42 | counter); UuidV7Stamp holds the rule as
// pure functions, and MonotonicGenerator (detail/monotonic_generator.hpp, the engine the
// ULID generators share) runs it.
//
// Which generator: UuidV7Generator is for one thread (no atomics, fastest; make one per
// thread). SharedUuidV7Generator may be shared by any number of threads: its stamp is one
// 128-bit word advanced by compare-and-swap, lock-free on x86-64. Every ID either returns
// is strictly greater than every ID it returned before. Both read the clock the same way:
// on the system clock, one rdtsc inside a millisecond the calling thread already read
// (detail/generator_clock.hpp).
// Fork: a child process never repeats its parent's IDs. The CSPRNG reseeds in the child, and
// a generator inherited through fork() moves its next ID to a later millisecond with a fresh
// counter seed, so parent and child never walk the same counter sequence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "idforge/clock.hpp"
#include "idforge/detail/atomic_u128.hpp"
#include "idforge/detail/monotonic_generator.hpp"
#include "idforge/random.hpp"
#include "idforge/uuid.hpp"
#include "idforge/uuid_fields.hpp"

namespace idforge {

// Free functions follow one rule across the families: new_<id>() makes a fresh ID from the
// clock and/or the CSPRNG (new_uuid_v4, new_ksuid), compose_<...>() builds one from given
// fields and draws nothing (compose_v4, compose_v7, compose_ksuid), parse_<id>() reads text.

/// A version 4 UUID: 122 bits from the calling thread's CSPRNG. Thread-safe, fork-safe.
inline Uuid new_uuid_v4() noexcept {
  std::uint64_t r[2];
  random_fill(r, sizeof r);
  return compose_v4(r[0], r[1]);
}

/// Fills out with version 4 UUIDs (one CSPRNG read for the whole span).
void new_uuid_v4_batch(std::span<Uuid> out) noexcept;

/// The v7 counter rule as pure functions of (last stamp, clock): see the header comment.
struct UuidV7Stamp {
  using u128 = detail::u128;
  using Id = Uuid;
  using Bits = std::uint64_t;  ///< the counter's seed when a new millisecond starts
  static constexpr int kCounterBits = 42;
  static constexpr int kCounterInRandB = 30;  // counter bits below rand_a
  static constexpr std::uint64_t kSeedMask = (std::uint64_t{1} << (kCounterBits - 1)) - 1;

  /// Stamps first..last (inclusive) for a request of n IDs; exhausted when last would not
  /// fit the 48-bit millisecond field (after year 10889).
  struct Reservation {
    u128 first;
    u128 last;
    bool exhausted;
  };

  /// Milliseconds of a stamp.
  static constexpr std::uint64_t unix_ms(u128 stamp) noexcept {
    return static_cast<std::uint64_t>(stamp >> kCounterBits);
  }
  /// What last_unix_ms() reports for a stamp: its milliseconds, or kNoUnixMs for stamp 0
  /// ("nothing issued").
  static constexpr std::int64_t last_unix_ms(u128 stamp) noexcept {
    return stamp == 0 ? kNoUnixMs : static_cast<std::int64_t>(unix_ms(stamp));
  }
  /// Whether the next stamp starts a new millisecond (and so needs a fresh random seed).
  /// fresh: the state was inherited through fork(). last == 0: nothing issued yet.
  static constexpr bool starts_new_ms(u128 last, std::uint64_t now_ms, bool fresh) noexcept {
    return now_ms > unix_ms(last) || fresh || last == 0;
  }
  /// The next n stamps after last, given the clock in Unix ms (negative reads count as 0)
  /// and 41+ random bits in seed (used when a new millisecond starts).
  static constexpr Reservation reserve(u128 last, std::int64_t now_ms, std::uint64_t seed,
                                       std::uint64_t n, bool fresh) noexcept {
    const std::uint64_t now = now_ms < 0 ? 0 : static_cast<std::uint64_t>(now_ms);
    const std::uint64_t last_ms = unix_ms(last);
    u128 first;
    if (now > last_ms || last == 0) {
      first = (static_cast<u128>(now) << kCounterBits) | (seed & kSeedMask);
      first += first == 0;  // stamp 0 stands for "nothing issued": never issue it
    } else if (fresh) {
      first = (static_cast<u128>(last_ms + 1) << kCounterBits) | (seed & kSeedMask);
    } else {
      first = last + 1;  // same ms or clock behind: count on; a full counter carries into ms
    }
    const u128 end = first + (n - 1);
    return {first, end, unix_ms(end) > kMaxUnixMs48};
  }
  /// Whether a reservation may be issued.
  static constexpr bool ok(const Reservation& r) noexcept { return !r.exhausted; }
  /// Packs a stamp and 32 random bits into a v7 UUID.
  static constexpr Uuid compose(u128 stamp, std::uint32_t random) noexcept {
    const auto counter =
        static_cast<std::uint64_t>(stamp) & ((std::uint64_t{1} << kCounterBits) - 1);
    const auto rand_a = static_cast<std::uint16_t>(counter >> kCounterInRandB);
    const std::uint64_t rand_b =
        ((counter & ((std::uint64_t{1} << kCounterInRandB) - 1)) << 32) | random;
    return compose_v7(unix_ms(stamp), rand_a, rand_b);
  }
  /// The stamp a v7 UUID made by this scheme carries (inverse of compose, minus the random).
  static constexpr u128 stamp_of(const Uuid& u) noexcept {
    const UuidV7Fields f = decompose_v7(u);
    const std::uint64_t counter = (static_cast<std::uint64_t>(f.rand_a) << kCounterInRandB) |
                                  ((f.rand_b >> 32) & ((1u << kCounterInRandB) - 1));
    return (static_cast<u128>(f.unix_ms) << kCounterBits) | counter;
  }

  // What MonotonicGenerator needs beyond the pure rule (uuid_generator.cpp).
  /// 64 CSPRNG bits to seed a new millisecond's counter.
  static Bits draw() noexcept { return random_u64(); }
  /// Throws Error(errc::time_exhausted): past the 48-bit millisecond field.
  [[noreturn]] static void refuse(const Reservation& r, u128 last, std::uint64_t n);
  /// The UUID of a stamp, with 32 fresh CSPRNG bits.
  static Uuid make(u128 stamp) noexcept {
    std::uint32_t tail;
    random_fill(&tail, sizeof tail);
    return compose(stamp, tail);
  }
  /// The UUIDs of stamps first, first + 1, ..., each with 32 fresh CSPRNG bits (one CSPRNG
  /// read for up to 256).
  static void emit(std::span<Uuid> out, u128 first) noexcept;
  /// The stamp of a v7 to resume after; refuses any other UUID (another version, a non-RFC
  /// variant, nil, max) with Error(errc::invalid_argument) naming it: its bits are not a
  /// time, and taking them as one would move the generator to a random date, up to the year
  /// 10889 where every later next() fails. A v7 far ahead of the clock moves the generator
  /// there too, as resume_after() says: resume only after IDs this scheme made.
  static u128 resume_stamp(const Uuid& id);
};

/// UUIDv7 for one thread: fastest, not thread-safe (make one per thread, or share a
/// SharedUuidV7Generator). next() throws Error(errc::time_exhausted) only past the 48-bit
/// millisecond field (year 10889); resume_after() refuses anything but a v7 (see
/// UuidV7Stamp::resume_stamp).
using UuidV7Generator = MonotonicGenerator<UuidV7Stamp, false>;
/// UUIDv7 shared by any number of threads: one 128-bit state word advanced by
/// compare-and-swap (lock-free on x86-64). Same rules as UuidV7Generator.
using SharedUuidV7Generator = MonotonicGenerator<UuidV7Stamp, true>;

extern template class MonotonicGenerator<UuidV7Stamp, false>;
extern template class MonotonicGenerator<UuidV7Stamp, true>;

}  // namespace idforge
