#include "standard_fds.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace idforge::cli {

bool guard_standard_fds() noexcept {
  // gnulib's stdopen() does the same; it is not packaged as a library in Debian, and it is a
  // few lines. Descriptors below fd are open by now, so open() returns fd itself.
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int got = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (got != fd) {
      if (got >= 0) ::close(got);
      return false;
    }
  }
  return true;
}

}  // namespace idforge::cli
