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
  // O_NONBLOCK: opening a FIFO for writing otherwise waits for a reader, and the server
  // opens its log after SIGINT/SIGTERM are blocked, so nothing but SIGKILL would end that
  // wait. With it, a FIFO without a reader fails at once with ENXIO. The flag stays on: a
  // pipe whose reader falls behind loses lines rather than stalling an I/O thread (regular
  // files ignore it).
  fd_ = ::open(target.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd_ < 0) {
    const int e = errno;
    throw Error(errc::invalid_argument,
                "access-log='" + target + "': cannot be opened: " +
                    (e == ENXIO ? std::string("a FIFO with no reader") : std::strerror(e)));
  }
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
