// A private PostgreSQL 15 server a test can stop and start: initdb into a temporary folder
// (owned by the postgres user, as initdb refuses root), on a free loopback port.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace idforge::test {

/// Sends sig to pid and to all its descendants (processes a test started itself).
void signal_tree(pid_t pid, int sig);

class PgInstance {
 public:
  /// Why a private instance cannot run here (binaries missing, not root), or nullopt.
  static std::optional<std::string> unavailable_reason();
  /// initdb + start; throws std::runtime_error with the log on failure.
  PgInstance();
  /// Stops the server and removes its folder.
  ~PgInstance();
  PgInstance(const PgInstance&) = delete;
  PgInstance& operator=(const PgInstance&) = delete;
  /// pg_ctl stop -m fast (waits until it is down).
  void stop();
  /// pg_ctl start (waits until it accepts connections).
  void start();
  /// SIGSTOP the server and every process of it (a frozen machine: connections stay open,
  /// nothing answers). thaw() sends SIGCONT. The destructor thaws before stopping.
  void freeze();
  void thaw();
  /// postgres://postgres@127.0.0.1:PORT/postgres
  std::string url() const;

 private:
  std::string dir_;
  int port_ = 0;
  bool frozen_ = false;
};

}  // namespace idforge::test
