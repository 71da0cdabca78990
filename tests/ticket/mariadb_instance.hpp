// A private MariaDB 10.11 a test can stop, start and freeze: mariadb-install-db into a
// temporary folder, small buffers, on a free loopback port.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>

#include "process.hpp"

namespace idforge::test {

class MariaDbInstance {
 public:
  /// Why a private instance cannot run here (binaries missing, not root), or nullopt.
  static std::optional<std::string> unavailable_reason();
  /// install + start; throws std::runtime_error with the log on failure.
  MariaDbInstance();
  /// Stops the server and removes its folder.
  ~MariaDbInstance();
  MariaDbInstance(const MariaDbInstance&) = delete;
  MariaDbInstance& operator=(const MariaDbInstance&) = delete;
  /// SIGTERM and wait until it is gone.
  void stop();
  /// Start and wait until it answers.
  void start();
  /// SIGSTOP / SIGCONT.
  void freeze();
  void thaw();
  /// mariadb://root@127.0.0.1:PORT/DB
  std::string url(const std::string& db = "idforge") const;

 private:
  std::string dir_;
  int port_ = 0;
  std::unique_ptr<Process> server_;  // mariadbd while started
  bool frozen_ = false;
};

}  // namespace idforge::test
