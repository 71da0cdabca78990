// Standard descriptors a command was started without (`idforge ... >&-`).
#pragma once

namespace idforge::cli {

/// Opens /dev/null on each of fd 0, 1 and 2 that is closed, in the mode that makes it unusable
/// (stdin write-only, stdout and stderr read-only), so no later open() or socket() takes its
/// number: a database socket opened as fd 1 would receive the command's output. Writing to
/// such a stdout then fails with EBADF and is reported as any write error. Returns false when
/// /dev/null cannot be opened (the caller stops: nothing safe can be done).
bool guard_standard_fds() noexcept;

}  // namespace idforge::cli
