// The one way the tests start another program: posix_spawn with the standard streams the
// test names, every wait bounded, and the child killed and reaped if the test lets go of it.
// Process is a running child the test talks to; run() starts one and collects what it printed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace idforge::test {

/// Where one of the child's output streams goes.
enum class Sink {
  inherit,      ///< the test's own stream
  pipe,         ///< a pipe the test reads (Process::read_line, read_err, run's out/err)
  null,         ///< /dev/null
  file,         ///< the file named by out_file / err_file (created or truncated, 0600)
  dev_full,     ///< /dev/full: every write fails with ENOSPC
  closed_pipe,  ///< a pipe whose reader is already gone: the first write meets EPIPE/SIGPIPE
};

/// How SIGPIPE starts in the child (the test runner may run with it ignored).
enum class Sigpipe { inherit, default_action, ignored };

struct SpawnOptions {
  bool stdin_pipe = false;  ///< a pipe on stdin (Process::write_stdin, close_stdin); else inherited
  Sink out = Sink::pipe;
  Sink err = Sink::inherit;
  std::string out_file, err_file;      ///< for Sink::file
  std::vector<std::string> extra_env;  ///< "NAME=value", taking precedence over the test's own
  Sigpipe sigpipe = Sigpipe::inherit;
};

/// A child process. argv[0] is the program's path (no PATH search, no shell).
class Process {
 public:
  explicit Process(const std::vector<std::string>& argv, const SpawnOptions& options = {});
  ~Process();  ///< a child still running is continued, killed (SIGKILL) and reaped
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const noexcept { return pid_; }
  /// The next line of stdout (without the newline), or nullopt at EOF or after timeout.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  /// Everything left on stdout until EOF, waiting at most timeout in all.
  std::string read_rest(std::chrono::milliseconds timeout);
  /// Everything on stderr (Sink::pipe) until EOF, waiting at most timeout in all.
  std::string read_err(std::chrono::milliseconds timeout);
  /// The stdout pipe's read end, for tests that poll it themselves; -1 if there is none.
  int out_fd() const noexcept { return out_; }
  /// The stderr pipe's read end (Sink::pipe); -1 if there is none.
  int err_fd() const noexcept { return err_; }
  /// Writes to stdin (SpawnOptions::stdin_pipe); false if the child's end is closed.
  bool write_stdin(const std::string& data);
  /// Closes stdin, so a child reading it sees EOF.
  void close_stdin();
  /// Sends sig (once reaped, nothing: the pid may belong to someone else by then).
  void signal(int sig);
  /// True while the child has not exited (reaps it when it has).
  bool running();
  /// The exit code (128 + signal if a signal ended it), or nullopt if it did not end within
  /// timeout. Once it has ended, returns the same code again.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  /// Sends sig, waits up to timeout, then SIGKILL; returns the exit code as wait() does.
  int stop(int sig, std::chrono::milliseconds timeout);

 private:
  bool reap(int options);
  std::string drain(int& fd, std::string& pending, std::chrono::milliseconds timeout);

  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  bool reaped_ = false;
  int code_ = -1;
  std::string pending_out_, pending_err_;
};

/// What one finished run printed.
struct RunResult {
  int exit_code = -1;      ///< 128 + signal when a signal ended it; 137 when killed at the limit
  std::string out, err;    ///< stdout and stderr (when they were Sink::pipe)
  bool timed_out = false;  ///< still running at the limit: killed (SIGKILL)
  double seconds = 0;      ///< how long it ran
  /// stdout split into lines (without the newlines).
  std::vector<std::string> lines() const;
};

/// Runs argv to its end and returns what it printed. stdout and stderr default to pipes,
/// read at the same time so neither can fill up and stall the child. A child still running
/// after limit is killed (SIGKILL), so a program that should have refused cannot hang the test.
RunResult run(const std::vector<std::string>& argv, SpawnOptions options = {},
              std::chrono::milliseconds limit = std::chrono::seconds(120));

/// Runs a shell command line (sh -c) to its end; its exit code, or 128 + signal.
int run_shell(const std::string& command,
              std::chrono::milliseconds limit = std::chrono::seconds(120));

/// Path of a program on PATH, or "" if absent.
std::string find_program(const std::string& name);

}  // namespace idforge::test
