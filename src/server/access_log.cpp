#include "access_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "idforge/error.hpp"

namespace idforge::server::detail {

AccessLog::AccessLog(const std::string& target) {
  if (target == "off") return;
  if (target == "-") {
    fd_ = STDERR_FILENO;
    return;
  }
  fd_ = ::open(target.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error(errc::invalid_argument, "access-log='" + target + "': cannot be opened: " + std::strerror(errno));
  owned_ = true;
}

AccessLog::~AccessLog() {
  if (owned_) ::close(fd_);
}

void AccessLog::write(const std::string& line) noexcept {
  if (fd_ < 0) return;
  // O_APPEND (or a terminal/pipe) makes one write of a short line land whole.
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace idforge::server::detail
