// Clocks are parameters: every generator reads time through a Clock, so tests, demos and
// fault injection use a ManualClock while production uses SystemClock. Nothing in idforge
// reads the system clock behind the caller's back.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <limits>

namespace idforge {

/// The Unix-ms value that means "none", the same for every generator family: what
/// last_unix_ms() returns before a generator issued anything, and the default of
/// SnowflakePolicy::issued_up_to_unix_ms. It lies below every real time, so
/// std::max(mark, kNoUnixMs) == mark: marks read from several generators combine with std::max.
inline constexpr std::int64_t kNoUnixMs = std::numeric_limits<std::int64_t>::min();

/// CLOCK_REALTIME in Unix nanoseconds, inline so generators on the system clock pay for
/// the vDSO read alone (no virtual call).
inline std::int64_t realtime_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// CLOCK_REALTIME in Unix milliseconds (floored). Straight from the timespec: a 32-bit
/// divide of the nanoseconds by a constant instead of a 64-bit one of their total, which
/// is on the latency path of every Snowflake (measured: 4 ns of a 38 ns ID).
inline std::int64_t realtime_ms() noexcept {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 +
         static_cast<std::uint32_t>(ts.tv_nsec) / 1'000'000u;
}

/// A source of Unix time in nanoseconds that can also wait until a given time.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Unix time in nanoseconds.
  virtual std::int64_t now_ns() noexcept = 0;
  /// Returns once now_ns() >= unix_ns (or immediately if it already is), or early, after
  /// as long as the wait was when it began, if the clock is stepped back meanwhile: callers
  /// read the clock again after every wait.
  virtual void wait_until_ns(std::int64_t unix_ns) noexcept = 0;
  /// As wait_until_ns, and never longer than max_wait_ns: a caller that decided to wait on
  /// an earlier reading bounds the wait by what that reading said, so a step back between
  /// the reading and the wait cannot stretch it to the size of the step. The default waits
  /// as wait_until_ns does (right for clocks nobody steps, such as ManualClock).
  virtual void wait_until_ns_at_most(std::int64_t unix_ns, std::int64_t max_wait_ns) noexcept {
    (void)max_wait_ns;
    wait_until_ns(unix_ns);
  }
};

/// How SystemClock waits: spinning hits the next tick within a few hundred ns but burns
/// a core; sleeping frees the core but the kernel wakes us 50-100 us late.
enum class WaitMode {
  spin,    ///< read the clock in a loop (with a pause instruction)
  sleep,   ///< clock_nanosleep to the target
  hybrid,  ///< sleep until 100 us before the target, then spin (default)
};

/// CLOCK_REALTIME through the vDSO. Stateless apart from its wait mode; share one freely.
class SystemClock final : public Clock {
 public:
  explicit SystemClock(WaitMode mode = WaitMode::hybrid) noexcept : mode_(mode) {}
  std::int64_t now_ns() noexcept override;
  void wait_until_ns(std::int64_t unix_ns) noexcept override;
  void wait_until_ns_at_most(std::int64_t unix_ns, std::int64_t max_wait_ns) noexcept override;
  WaitMode mode() const noexcept { return mode_; }
  /// A process-wide instance in hybrid mode.
  static SystemClock& instance() noexcept;

 private:
  WaitMode mode_;
};

/// A reference to a Clock for generators: when the clock is a SystemClock, now_ns() reads
/// CLOCK_REALTIME inline instead of through the virtual call (measured: 2-5 ns of a
/// 30 ns ID). Cheap to copy; the clock must outlive it.
class ClockRef {
 public:
  ClockRef(Clock& clock) noexcept  // NOLINT(google-explicit-constructor): a reference, by design
      : clock_(&clock), system_(dynamic_cast<SystemClock*>(&clock) != nullptr) {}
  /// Unix time in nanoseconds.
  std::int64_t now_ns() const noexcept { return system_ ? realtime_ns() : clock_->now_ns(); }
  /// Unix time in milliseconds, floored (also before 1970).
  std::int64_t now_ms() const noexcept {
    if (system_) return realtime_ms();
    const std::int64_t ns = clock_->now_ns();
    return ns / 1'000'000 - (ns % 1'000'000 < 0 ? 1 : 0);
  }
  /// Returns once the clock reads at least unix_ns (or early after a step back; see Clock).
  void wait_until_ns(std::int64_t unix_ns) const noexcept { clock_->wait_until_ns(unix_ns); }
  /// Returns once the clock reads at least unix_ns, or after max_wait_ns (see Clock).
  void wait_until_ns_at_most(std::int64_t unix_ns, std::int64_t max_wait_ns) const noexcept {
    clock_->wait_until_ns_at_most(unix_ns, max_wait_ns);
  }
  /// Whether the clock is a SystemClock (CLOCK_REALTIME, read inline).
  bool is_system() const noexcept { return system_; }

 private:
  Clock* clock_;
  bool system_;
};

/// A clock that only moves when told to. Waiting on it jumps it forward to the target and
/// adds the jump to waited_ns(), so a test sees "waited 1 ms" without sleeping.
/// Thread-safe: readers and writers may race. Time moves only by set_*() and advance_*(), and
/// a negative advance moves it back (as tests of a clock stepping back want).
class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t start_unix_ns = 0) noexcept : now_(start_unix_ns) {}
  std::int64_t now_ns() noexcept override { return now_.load(std::memory_order_acquire); }
  void wait_until_ns(std::int64_t unix_ns) noexcept override;

  /// Sets the time; may move it backwards (that is the point: fault injection).
  void set_ns(std::int64_t unix_ns) noexcept { now_.store(unix_ns, std::memory_order_release); }
  /// Sets the time in Unix milliseconds.
  void set_ms(std::int64_t unix_ms) noexcept { set_ns(unix_ms * 1'000'000); }
  /// Moves the time by delta (negative steps it back).
  void advance_ns(std::int64_t delta_ns) noexcept {
    now_.fetch_add(delta_ns, std::memory_order_acq_rel);
  }
  /// Moves the time by delta milliseconds.
  void advance_ms(std::int64_t delta_ms) noexcept { advance_ns(delta_ms * 1'000'000); }
  /// Total time that waits on this clock skipped forward.
  std::int64_t waited_ns() const noexcept { return waited_.load(std::memory_order_relaxed); }
  /// Forgets the waited total.
  void reset_waited() noexcept { waited_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> now_;
  std::atomic<std::int64_t> waited_{0};
};

}  // namespace idforge
