// Child processes for the lease tests: start one with pipes on stdin and stdout, read its
// lines with a deadline, signal it, and wait for it with a deadline. Every wait is bounded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace idforge::test {

class Child {
 public:
  /// Starts argv[0] (a path) with argv; stdin and stdout are pipes, stderr is inherited.
  explicit Child(const std::vector<std::string>& argv);
  ~Child();  ///< kills (SIGKILL) and reaps it if it still runs
  Child(Child&&) = delete;

  pid_t pid() const noexcept { return pid_; }
  /// The next line of stdout, or nullopt if none arrived within timeout (or EOF).
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  /// Everything left on stdout until EOF, at most timeout.
  std::string read_rest(std::chrono::milliseconds timeout);
  /// Closes its stdin (holders that wait on stdin release and exit).
  void close_stdin();
  /// Sends sig.
  void signal(int sig);
  /// Exit code (128 + signal if killed), or nullopt if it did not end within timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string pending_;
};

/// Runs a shell command line and returns its exit code (for etcd's member start scripts).
int run_shell(const std::string& command);

}  // namespace idforge::test
