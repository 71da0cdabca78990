// Raw HTTP for black-box tests: `idforge serve` as a child process, and exchanges of exact
// bytes over a socket with the answers taken apart, so a test sees what a client would.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "process.hpp"

namespace idforge::test {

/// `idforge serve --port 0 ARGS...` (the binary under test, IDFORGE_BINARY, or the one
/// named by IDFORGE_SERVE_BINARY to run the same probes against another build), started
/// and waited for until it prints its URL, with a data folder of its own unless args give
/// --data. The destructor stops it with SIGTERM.
class ServeProcess {
 public:
  explicit ServeProcess(const std::vector<std::string>& args);
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;
  /// The port from the URL line; 0 when the process did not start.
  int port() const noexcept { return port_; }
  pid_t pid() const noexcept { return process_ ? process_->pid() : -1; }
  /// The first line it printed on stdout.
  const std::string& first_line() const noexcept { return line_; }
  /// True while the process runs.
  bool alive();
  /// Sends signal and waits up to timeout_s for the exit; the exit code, 128+signal, or -1
  /// on timeout (then it is killed).
  int stop(int signal, int timeout_s = 10);

 private:
  std::unique_ptr<Process> process_;
  int port_ = 0;
  std::string line_;
  int exit_ = -2;     // -2 while running (or never started), then its exit code
  std::string data_;  // its own data folder (removed at the end), unless args name one
};

/// The path of the idforge binary the black-box tests run.
std::string serve_binary();
/// Runs the binary with args to its end (at most timeout_s); its exit code and stderr.
std::pair<int, std::string> run_binary(const std::vector<std::string>& args, int timeout_s = 20);

/// One response taken from raw bytes.
struct RawResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string header(std::string_view name) const;  ///< first value, "" when absent
  bool has(std::string_view name) const;
};

/// What a raw exchange brought back.
struct RawExchange {
  std::vector<RawResponse> responses;
  std::string raw;       ///< every byte received
  bool closed = false;   ///< the server closed the connection
  bool garbage = false;  ///< bytes after the last response that are not one
};

/// Connects to 127.0.0.1:port, sends parts (pause_ms between them; the sends stop when the
/// server closes), reads until `expect` responses have arrived and then, if wait_close,
/// until the server closes (at most timeout_ms in all). head_only[i]: response i answers
/// HEAD (no body). 1xx answers count as responses.
RawExchange exchange(int port, const std::vector<std::string>& parts, std::size_t expect,
                     bool wait_close, int pause_ms = 0, int timeout_ms = 5000,
                     const std::vector<bool>& head_only = {});

/// GET /healthz on a fresh connection; the status (0 when nothing came).
int health_status(int port);

}  // namespace idforge::test
