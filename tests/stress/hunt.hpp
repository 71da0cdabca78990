// Shared pieces of the duplicate hunt: the fault clock, the report, the profile.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "idforge/clock.hpp"

namespace idforge::stress {

/// The real clock plus an offset that a fault thread steps (back or forward) while the
/// generators run. Waiting follows the shifted clock.
class FaultClock final : public Clock {
 public:
  std::int64_t now_ns() noexcept override {
    return realtime_ns() + offset_.load(std::memory_order_relaxed);
  }
  void wait_until_ns(std::int64_t t) noexcept override;
  /// Steps the clock by delta (negative: back).
  void step_ns(std::int64_t delta) noexcept { offset_.fetch_add(delta, std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> offset_{0};
};

/// Counts in the vocabulary of Jepsen's unique-ids checker.
struct HuntReport {
  std::string generator;
  std::uint64_t attempted = 0;         ///< calls made
  std::uint64_t acknowledged = 0;      ///< IDs returned
  std::uint64_t refused = 0;           ///< calls that threw (clock back, fenced, ...)
  std::uint64_t duplicated = 0;        ///< acknowledged IDs equal to an earlier acknowledged one
  std::uint64_t order_violations = 0;  ///< an ID not greater than its thread's previous one
  std::string to_line() const;
  HuntReport& operator+=(const HuntReport& o);
};

/// short (CI: seconds) or long (documented: at least 10^9 IDs).
struct Profile {
  bool long_run = false;
  std::uint64_t snowflake_ids_per_process;  ///< per process, all threads together
  int processes;
  int threads;
  std::uint64_t random_ids_per_thread;  ///< uuid7 / ulid / uuid4, per thread
  int rounds;                           ///< restarts of every process (with its mark)
};
/// From IDFORGE_STRESS_PROFILE (short by default).
Profile profile_from_env();

/// Appends a line to the file named by IDFORGE_HUNT_REPORT (if set) and prints it.
void publish(const HuntReport& r);

}  // namespace idforge::stress
