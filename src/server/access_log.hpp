// One line per answered request: time, client, request line, status, bytes, duration.
// Private to the server target.
#pragma once

#include <mutex>
#include <string>

namespace idforge::server::detail {

class AccessLog {
 public:
  /// target: "-" = stderr, "off" = nothing, otherwise a file opened for appending.
  explicit AccessLog(const std::string& target);
  ~AccessLog();
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;
  bool enabled() const noexcept { return fd_ >= 0; }
  /// Writes line (which ends in '\n') with one write(2), so lines from threads never mix.
  void write(const std::string& line) noexcept;

 private:
  int fd_ = -1;
  bool owned_ = false;
};

}  // namespace idforge::server::detail
