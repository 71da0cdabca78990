// MonotonicGenerator<Rule, Shared>: the one engine behind UuidV7Generator, UlidGenerator and
// their Shared... forms (and so the TypeID generators). A family supplies its Rule: a pure
// reserve() deciding the next stamps from (last stamp, clock, fresh random bits), and how a
// stamp becomes an ID; the engine supplies what every family does the same way, with the
// parts the Snowflake generator uses too:
//   detail::GeneratorClock   the clock, one rdtsc inside a known millisecond;
//   detail::ForkGuard        a child inherits the state: move to a fresh millisecond;
//   detail::StampCell        the 128-bit state, claimed by compare-and-swap when Shared.
// A call reads the clock and the fork guard, draws random bits only when a new millisecond
// starts, runs the rule on the state's first guess, and claims the result; a lost race (or
// a torn first guess of the shared cell) runs the rule again on the newer state with the
// same reading. A refusal is decided on the exact state only, never on a guess.
//
// A Rule provides (see UuidV7Stamp, UlidStamp):
//   using Id; using Bits;                       the ID type; the random bits a new ms takes
//   static Bits draw() noexcept;                fresh random bits from the CSPRNG
//   static bool starts_new_ms(u128, uint64_t, bool fresh);
//   static Reservation reserve(u128 last, int64_t now_ms, Bits, uint64_t n, bool fresh);
//   static bool ok(const Reservation&);
//   [[noreturn]] static void refuse(const Reservation&, u128 last, uint64_t n);
//   static Id make(u128 stamp);                 the ID of one stamp
//   static void emit(std::span<Id> out, u128 first);   IDs of stamps first, first + 1, ...
//   static u128 resume_stamp(const Id&);        the stamp resume_after() continues after
//   static int64_t last_unix_ms(u128);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "idforge/clock.hpp"
#include "idforge/detail/atomic_u128.hpp"
#include "idforge/detail/fork_guard.hpp"
#include "idforge/detail/generator_clock.hpp"
#include "idforge/detail/stamp_cell.hpp"

namespace idforge {

template <class Rule, bool Shared>
class MonotonicGenerator {
 public:
  using Id = typename Rule::Id;

  /// Reads time from clock, which must outlive the generator.
  explicit MonotonicGenerator(Clock& clock = SystemClock::instance()) noexcept : clock_(clock) {}
  // A copy would walk the same stamp sequence as the original: neither copy nor move.
  MonotonicGenerator(const MonotonicGenerator&) = delete;
  MonotonicGenerator& operator=(const MonotonicGenerator&) = delete;

  /// The next ID, greater than every one this generator returned before (on any thread, if
  /// Shared). Allocation-free. Throws as the family's rule refuses, issuing nothing.
  Id next();
  /// Fills out with increasing IDs: one clock read (and, if Shared, one compare-and-swap)
  /// per 256. On an error, nothing of the failing chunk is issued; earlier chunks stay valid.
  void next_batch(std::span<Id> out);
  /// Continue strictly after id (e.g. the last one persisted before a restart); no effect if
  /// the generator is already past it. The family's rule says which IDs it refuses.
  void resume_after(const Id& id) noexcept(noexcept(Rule::resume_stamp(id))) {
    cell_.raise_to(Rule::resume_stamp(id));
  }
  /// Unix ms of the last issued ID (or of the one resumed after); kNoUnixMs (clock.hpp) if
  /// none.
  std::int64_t last_unix_ms() const noexcept { return Rule::last_unix_ms(cell_.load()); }

 private:
  // IDs a batch takes per clock read and per claim: large enough to amortise both, small
  // enough that random tails fit on the stack and the time stays current.
  static constexpr std::size_t kChunk = 256;

  detail::u128 take(std::uint64_t n);

  detail::GeneratorClock<Shared> clock_;
  detail::ForkGuard fork_;
  alignas(64) detail::StampCell<detail::u128, Shared> cell_;
};

}  // namespace idforge
