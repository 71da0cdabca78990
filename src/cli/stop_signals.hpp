// Stopping a long command by a signal without losing what it took: SIGTERM, SIGINT, SIGHUP and
// SIGQUIT set a flag the command's loop checks, so it can write (or report) what it holds first.
#pragma once

#include <csignal>
#include <cstddef>
#include <iterator>

namespace idforge::cli {

/// The first signal that asked the running command to stop, or 0.
extern volatile std::sig_atomic_t g_stop_signal;

/// Catches SIGTERM, SIGINT, SIGHUP and SIGQUIT (without SA_RESTART, so a blocked write returns) and
/// ignores SIGPIPE (a closed reader becomes a write error) for as long as it lives; resets
/// g_stop_signal to 0 when made.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
  struct sigaction old_[std::size(kSignals)]{};
  struct sigaction old_pipe_ {};
};

}  // namespace idforge::cli
