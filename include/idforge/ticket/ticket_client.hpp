// TicketClient: spreads next() calls round-robin over a set's servers and fails over when
// one does not answer (or no longer holds the set): that server is skipped for
// retry_after_ns on the Clock, then tried again. Only when every server fails does next()
// throw, with each server's reason.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/ticket/ticket_server.hpp"

namespace idforge::ticket {

/// How long a failed server is skipped. Default 1 s; >= 0.
struct TicketClientOptions {
  std::int64_t retry_after_ns = 1'000'000'000;
};

/// Per-server counters.
struct TicketServerStats {
  std::string server;         ///< URL, password hidden
  std::int64_t served = 0;    ///< values it handed out
  std::int64_t failures = 0;  ///< calls that failed
  std::string last_error;     ///< the latest failure's message
};

class TicketClient {
 public:
  /// Uses servers (at least one) for set name. errc::invalid_argument for a bad name or an
  /// empty list. The clock must outlive the client.
  TicketClient(std::vector<std::unique_ptr<TicketServer>> servers, std::string name,
               TicketClientOptions options = {}, Clock& clock = SystemClock::instance());
  /// The next value from one of the servers. Thread-safe (one call per server at a time).
  /// errc::store_unreachable (or the servers' common error) when none answers.
  std::int64_t next();
  /// Counters per server, in list order.
  std::vector<TicketServerStats> stats() const;
  /// The servers, in list order (for init and resize).
  const std::vector<std::unique_ptr<TicketServer>>& servers() const noexcept { return servers_; }

 private:
  struct Slot {
    std::mutex mu;
    std::int64_t down_until_ns = 0;  // guarded by mu
    std::int64_t served = 0;
    std::int64_t failures = 0;
    std::string last_error;
  };

  std::vector<std::unique_ptr<TicketServer>> servers_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::string name_;
  TicketClientOptions options_;
  Clock& clock_;
  std::atomic<std::uint64_t> rr_{0};
};

}  // namespace idforge::ticket
