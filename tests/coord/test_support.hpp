// Shared pieces of the lease tests: server URLs from the service scripts' variables, a
// scratch directory, unique key prefixes, a private redis-server, and reading ID files.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "process.hpp"
#include "services.hpp"

namespace idforge::test {

/// A child of the lease tests: stdin a pipe (holders release when it closes), stdout a
/// pipe read line by line, stderr inherited.
class Child : public Process {
 public:
  explicit Child(const std::vector<std::string>& argv) : Process(argv, options()) {}

 private:
  static SpawnOptions options() {
    SpawnOptions o;
    o.stdin_pipe = true;
    return o;
  }
};

/// A fresh directory under /tmp, removed with its content at destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

/// A name no other test run uses: test name + pid + counter (for key prefixes).
std::string unique_name();

/// Appends ?/& and "key=value" pairs to a URL.
std::string with_params(const std::string& url, const std::string& params);

/// Decimal IDs, one a line, from a file (missing file: none).
std::vector<std::uint64_t> read_ids(const std::string& path);

/// GET path from 127.0.0.1:port with "Accept: text/plain" (libcurl, 10 s timeout): the
/// status (0: no answer) and the body.
std::pair<long, std::string> http_get(int port, const std::string& path);

/// A listening TCP socket on 127.0.0.1 at a port the kernel picks (set into port); the
/// caller closes it. For servers a test plays itself (silent, or answering one line).
int listen_on_loopback(int& port);

/// A free TCP port on 127.0.0.1 (bound and released; good enough for a test server).
int free_port();

/// A redis-server of the test's own on a free port, so a test may stop, freeze or kill it
/// without disturbing the shared one. Skips (or fails under IDFORGE_REQUIRE_SERVICES) if
/// redis-server is not installed.
class PrivateRedis {
 public:
  PrivateRedis();
  ~PrivateRedis();
  /// Starts it and waits (at most 10 s) until it answers PING; false if it did not.
  bool start();
  const std::string& url() const noexcept { return url_; }
  pid_t pid() const noexcept;
  /// Sends sig (SIGSTOP, SIGCONT, SIGKILL) to the server.
  void signal(int sig);

 private:
  ScratchDir dir_;
  int port_;
  std::string url_;
  std::unique_ptr<Child> child_;
};

}  // namespace idforge::test
