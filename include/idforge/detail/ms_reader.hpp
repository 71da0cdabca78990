// MsReader: a generator's clock in whole Unix milliseconds, for one thread. A UUIDv7 or ULID
// needs the millisecond alone, and the millisecond changes once per million nanoseconds,
// while clock_gettime costs 20-30 ns on every call. So on the system clock, on x86-64
// where the kernel itself keeps time with the time-stamp counter, each clock read also opens
// a window of TSC values that certainly end before the millisecond does; a read inside the
// window costs one rdtsc and returns the millisecond already known.
//
// Why the window is safe (never a millisecond the clock has left): it is opened by a clock
// read of t ns that follows a TSC read of a; it spans (end of t's millisecond - t) x 0.25
// ticks, so it closes before the millisecond ends as long as the TSC runs at 0.25 ticks per
// clock nanosecond or faster. Windows open only when all of these hold:
//  - the CPU reports an invariant TSC (CPUID 0x80000007 EDX bit 8: one rate, in every
//    power state) and rdtsc is not disabled for the process (prctl PR_GET_TSC);
//  - the kernel's clocksource is "tsc": then CLOCK_REALTIME is itself the TSC scaled by the
//    kernel, which checked at boot that the CPUs' counters agree and watches them since, so
//    a read on another CPU (after a migration, in a forked child) sees the same counter the
//    clock would. Under kvm-clock, hpet, acpi_pm or xen no window opens. The clocksource is
//    read again every second, and a change closes the windows for good;
//  - the TSC rate, measured once against CLOCK_MONOTONIC_RAW (which no step or slew moves)
//    over at least 10 ms, is 0.5 ticks per ns or more. The TSC interval lies inside the
//    clock interval, so a preemption can only make the rate look lower. Twice the rate the
//    window assumes leaves room for NTP's frequency and tick adjustments (at most 10%).
// Real invariant TSCs run at 1-5 GHz. A clock step (settimeofday, an NTP step) is seen when
// the window closes, less than the rest of the millisecond later (under 1 ms): until then
// reads give the millisecond from before the step, as a clock read made just before it
// would. The generator's monotonic rules (the counter, the clock stepping back) are applied
// above the reader, unchanged. IDFORGE_TSC_CLOCK=0 in the environment turns windows off.
//
// Any other clock (ManualClock in tests, a user's Clock) is read on every call, as before.
#pragma once

#include <cstdint>
#include <string_view>

#include "idforge/clock.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define IDFORGE_MS_READER_TSC 1
#else
#define IDFORGE_MS_READER_TSC 0
#endif

namespace idforge::detail {

/// The CPU's time-stamp counter (0 where MsReader does not use one).
inline std::uint64_t read_tsc() noexcept {
#if IDFORGE_MS_READER_TSC
  return __rdtsc();
#else
  return 0;
#endif
}

/// Unix milliseconds of a clock reading; readings before 1970 count as 0.
constexpr std::int64_t unix_ms_of(std::int64_t unix_ns) noexcept {
  return unix_ns <= 0 ? 0 : unix_ns / 1'000'000;
}

/// A range of TSC values [anchor, anchor + span) inside which the clock still reads ms.
/// The pure rule of MsReader, testable with made-up values.
struct MsWindow {
  /// Lowest TSC rate, in ticks per nanosecond, the window's length assumes (see above).
  static constexpr std::uint64_t kTicksPerNsDivisor = 4;  // 0.25 ticks per ns

  std::int64_t ms = 0;
  std::uint64_t anchor = 0;
  std::uint64_t span = 0;  // 0: the empty window

  /// The window a clock read of unix_ns opens when the TSC read just before it gave tsc.
  static constexpr MsWindow open(std::uint64_t tsc, std::int64_t unix_ns) noexcept {
    if (unix_ns <= 0) return {0, tsc, 0};
    const std::int64_t ms = unix_ns / 1'000'000;
    const auto left_ns = static_cast<std::uint64_t>((ms + 1) * 1'000'000 - unix_ns);
    return {ms, tsc, left_ns / kTicksPerNsDivisor};
  }
  /// Whether a TSC read of tsc is inside the window (one subtraction and compare: values
  /// before anchor wrap around to huge numbers and fall outside).
  constexpr bool contains(std::uint64_t tsc) const noexcept { return tsc - anchor < span; }
};

/// A generator's clock in Unix milliseconds (see the header comment). One thread at a time.
class MsReader {
 public:
  explicit MsReader(Clock& clock) noexcept;

  /// The clock's current Unix millisecond (0 before 1970).
  std::int64_t now_ms() noexcept {
    if (tsc_) {
      const std::uint64_t t = read_tsc();
      if (window_.contains(t)) [[likely]]
        return window_.ms;
      return read_clock(t);
    }
    return unix_ms_of(clock_.now_ns());
  }

  /// Whether windows are open: the system clock, a usable invariant TSC, its rate checked.
  bool uses_tsc_windows() const noexcept { return tsc_ && checked_; }

 private:
  // Reads the system clock after the TSC read t; checks the TSC rate once, then opens windows.
  std::int64_t read_clock(std::uint64_t t) noexcept;

  ClockRef clock_;
  MsWindow window_{};
  bool tsc_ = false;      // the system clock, on a CPU whose TSC may serve
  bool checked_ = false;  // the TSC rate was observed to be plausible
  std::uint64_t first_tsc_ = 0;
  std::int64_t first_raw_ns_ = 0;
  std::int64_t source_checked_ns_ = 0;  // when the clocksource was last seen to be "tsc"
};

/// Whether this process may use the TSC for MsReader: x86-64, an invariant TSC (CPUID
/// 0x80000007 EDX bit 8), rdtsc not disabled for the process (prctl PR_GET_TSC), the
/// kernel's clocksource "tsc", and IDFORGE_TSC_CLOCK not "0". Probed once per process.
bool tsc_windows_supported() noexcept;

/// Whether a clocksource name, as sysfs writes it (current_clocksource, with its newline),
/// is the TSC: the one clocksource whose time the TSC windows agree with on every CPU.
constexpr bool is_tsc_clocksource(std::string_view name) noexcept {
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.remove_suffix(1);
  return name == "tsc";
}

/// The rate check: ticks counted inside raw_ns of CLOCK_MONOTONIC_RAW time, at least 10 ms
/// of it, at 0.5 ticks per ns or more (twice what the windows assume).
constexpr bool tsc_rate_checked(std::uint64_t ticks, std::int64_t raw_ns) noexcept {
  return raw_ns >= 10'000'000 && ticks >= (static_cast<std::uint64_t>(raw_ns) + 1) / 2;
}

/// The kernel's current clocksource is "tsc" (read from sysfs; false if it cannot be read).
bool kernel_clocksource_is_tsc() noexcept;

}  // namespace idforge::detail
