#include "stop_signals.hpp"

namespace idforge::cli {

volatile std::sig_atomic_t g_stop_signal = 0;

namespace {
// The first signal is the one that stopped the command: a second one while it stops (Ctrl-C
// then a supervisor's SIGTERM) changes neither the exit status nor the message.
extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal == 0) g_stop_signal = sig;
}
}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &sa, &old_[i]);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &old_pipe_);
}

StopSignals::~StopSignals() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  sigaction(SIGPIPE, &old_pipe_, nullptr);
}

}  // namespace idforge::cli
