// Shared pieces of the lease tests: server URLs from the service scripts' variables, a
// scratch directory, unique key prefixes, a private redis-server, and reading ID files.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "process.hpp"

namespace idforge::test {

/// True when scripts/test.sh runs us: a missing server is then a failure, not a skip.
inline bool services_required() {
  const char* v = std::getenv("IDFORGE_REQUIRE_SERVICES");
  return v && std::string(v) == "1";
}

/// Sets url from environment variable var, or fails / skips the test (see above).
#define IDFORGE_SERVICE_URL(url, var)                                                          \
  std::string url;                                                                             \
  if (const char* value_ = std::getenv(var)) {                                                 \
    url = value_;                                                                              \
  } else if (::idforge::test::services_required()) {                                           \
    FAIL() << var << " is not set: start the servers with scripts/services.sh start";           \
  } else {                                                                                     \
    GTEST_SKIP() << var << " is not set (scripts/services.sh start provides it)";              \
  }

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

/// Path of a program on PATH, or "" if absent.
std::string find_program(const std::string& name);

}  // namespace idforge::test
