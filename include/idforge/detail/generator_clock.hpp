// GeneratorClock: the clock a generator reads, in Unix milliseconds, shared by the Snowflake,
// UUIDv7, ULID and TypeID generators alike.
//
// On the system clock, where TSC windows serve (detail/ms_reader.hpp), a reading inside a
// window the thread already opened costs one rdtsc. A window is one thread's state, so:
//   Shared = false (a generator for one thread) keeps its own MsReader, a member: no
//     thread-local lookup on the hot path (measured: 8-10 ns more per UUIDv7 or ULID, as
//     the library is position-independent and a thread_local costs a __tls_get_addr call);
//   Shared = true (a generator any thread may call) reads through the calling thread's
//     MsReader, one per thread, shared by every such generator that thread calls.
// Any other clock (ManualClock in tests, a
// user's Clock) is read on every call. exact_ms() always asks the clock itself: for a
// reading a call acts on by waiting or refusing (snowflake_generator.cpp says why).
#pragma once

#include <cstdint>

#include "idforge/clock.hpp"
#include "idforge/detail/ms_reader.hpp"

namespace idforge::detail {

template <bool Shared>
class GeneratorClock {
 public:
  /// clock must outlive the generator.
  explicit GeneratorClock(Clock& clock) noexcept
      : clock_(clock), windows_(clock_.is_system() && tsc_windows_supported()), own_(clock) {}

  /// The current Unix ms, through a window where one serves.
  std::int64_t now_ms() const noexcept {
    if (!windows_) return clock_.now_ms();
    if constexpr (Shared) {
      return this_thread_reader().now_ms();
    } else {
      return own_.now_ms();
    }
  }
  /// The current Unix ms from the clock itself.
  std::int64_t exact_ms() const noexcept { return clock_.now_ms(); }
  /// The clock, for waits and nanosecond reads.
  const ClockRef& clock() const noexcept { return clock_; }

 private:
  static MsReader& this_thread_reader() noexcept {
    thread_local MsReader reader{SystemClock::instance()};
    return reader;
  }

  ClockRef clock_;
  bool windows_;
  mutable MsReader own_;  // Shared = false only: the generator's one thread's window
};

}  // namespace idforge::detail
