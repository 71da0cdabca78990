#include "idforge/server/event_log.hpp"

#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>

#include "idforge/detail/printable.hpp"
#include "idforge/error.hpp"
#include "idforge/time_format.hpp"

namespace idforge::server {

LogFormat parse_log_format(std::string_view text) {
  if (text == "text") return LogFormat::text;
  if (text == "json") return LogFormat::json;
  throw Error(errc::invalid_argument,
              "log-format '" + detail::printable(text) + "': expected 'text' or 'json'");
}

EventLog::EventLog(LogFormat format, int fd, Clock& clock, std::chrono::milliseconds min_gap)
    : format_(format), fd_(fd), clock_(clock), min_gap_(min_gap) {}

void EventLog::write(std::string_view event, std::string_view message) noexcept {
  emit(event, message, true);
}

void EventLog::write_always(std::string_view event, std::string_view message) noexcept {
  emit(event, message, false);
}

std::uint64_t EventLog::written() const {
  std::lock_guard lock(mu_);
  return written_;
}

std::uint64_t EventLog::suppressed() const {
  std::lock_guard lock(mu_);
  return suppressed_;
}

void EventLog::emit(std::string_view event, std::string_view message, bool limited) noexcept {
  try {
    const std::int64_t now_ms = clock_.now_ns() / 1'000'000;
    std::uint64_t left_out = 0;
    {
      std::lock_guard lock(mu_);
      auto it = last_.find(event);
      if (it == last_.end()) it = last_.emplace(std::string(event), Last{}).first;
      Last& l = it->second;
      if (limited && l.at_ms != 0 && now_ms - l.at_ms < min_gap_.count()) {
        ++l.left_out;
        ++suppressed_;
        return;
      }
      left_out = l.left_out;
      l = Last{now_ms, 0};
      ++written_;
    }
    std::string line;
    // The message may quote what a store or a user sent: printable() escapes control bytes
    // and bytes that are not UTF-8, so one event is one line.
    if (format_ == LogFormat::json) {
      nlohmann::json j = {{"time", format_iso8601_ms(now_ms)},
                          {"event", std::string(event)},
                          {"message", detail::printable(message)}};
      if (left_out) j["suppressed"] = left_out;
      line = j.dump() + "\n";
    } else {
      line = format_iso8601_ms(now_ms) + " idforge serve: " + std::string(event) + ": " +
             detail::printable(message);
      if (left_out)
        line += " (" + std::to_string(left_out) + " more like it left out since the last)";
      line += "\n";
    }
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // a closed stderr: the events still show in /readyz and /metrics
      done += static_cast<std::size_t>(n);
    }
  } catch (...) {  // out of memory: an event line is not worth failing a request or a renewal
  }
}

}  // namespace idforge::server
