// EventLog: the service's own events on stderr (lease acquired, renewal failed, fenced, lost,
// taken again, clock behind the mark), one line each, as text for a person or as JSON for a
// log collector (--log-format json). Rate-limited per event name: a store that stays down
// for an hour writes one "renewal failed" line every min_gap, each saying how many were
// left out since the last, not one per retry. Lines are whole write(2)s, so lines from
// threads never mix (the access log writes to the same stderr the same way).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "idforge/clock.hpp"

namespace idforge::server {

/// How events are written: "text" (time, "idforge serve:", event, message) or "json" (one
/// object per line: time, event, message, and suppressed when lines were left out).
enum class LogFormat { text, json };

/// "text" or "json"; throws Error(errc::invalid_argument) naming the value and the two.
LogFormat parse_log_format(std::string_view text);

class EventLog {
 public:
  /// Writes to fd (stderr by default; the caller keeps it open), times from clock; events of
  /// one name closer together than min_gap are counted, not written.
  explicit EventLog(LogFormat format, int fd = 2, Clock& clock = SystemClock::instance(),
                    std::chrono::milliseconds min_gap = std::chrono::seconds(10));
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  /// One line for event (a name such as "lease_lost") and message, unless another of the
  /// same name was written less than min_gap ago. Never throws.
  void write(std::string_view event, std::string_view message) noexcept;
  /// The same, whatever the gap: for events that happen once per cause (acquired, lost,
  /// taken again), which a reader must never miss.
  void write_always(std::string_view event, std::string_view message) noexcept;
  /// Lines written and lines left out so far (for tests and /metrics).
  std::uint64_t written() const;
  std::uint64_t suppressed() const;

 private:
  void emit(std::string_view event, std::string_view message, bool limited) noexcept;

  LogFormat format_;
  int fd_;
  Clock& clock_;
  std::chrono::milliseconds min_gap_;
  mutable std::mutex mu_;
  struct Last {
    std::int64_t at_ms = 0;
    std::uint64_t left_out = 0;
  };
  std::map<std::string, Last, std::less<>> last_;
  std::uint64_t written_ = 0;
  std::uint64_t suppressed_ = 0;
};

}  // namespace idforge::server
