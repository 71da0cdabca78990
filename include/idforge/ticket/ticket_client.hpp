// TicketClient: spreads next() calls round-robin over a set's servers and fails over when
// one does not answer in time, is fenced by a resize, or no longer holds the set: that
// server is skipped for retry_after_ns on the Clock, then tried again. While a resize has
// every server fenced, next() waits (bounded) for it to finish instead of failing. A server busy
// with another thread's call (maybe one that waits for a frozen server's timeout) is passed over
// while another is free. Only when every server fails does next() throw, with each reason.
//
// Epochs: every value comes with the configuration epoch of the member that handed it out.
// The client remembers the newest epoch it has seen and refuses a value from an older one:
// such a member was dropped by a resize while it could not be reached and may, given time,
// reach values of the new configuration. (A client that has only ever talked to that member
// cannot know; the resize's gap keeps its values apart until it is retired.)
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "idforge/clock.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "idforge/ticket/ticket_server.hpp"

namespace idforge::ticket {

/// How a client fails over. Both >= 0.
struct TicketClientOptions {
  /// How long a failed server is skipped (on the Clock), doubled for each further failure
  /// in a row up to 32 times (a frozen server costs a timeout per attempt). Default 1 s. A
  /// server fenced by a resize is skipped for at most 10 ms: it comes back as soon as the
  /// resize activates it.
  std::int64_t retry_after_ns = 1'000'000'000;
  /// When no server gives a value and one of them is fenced by a resize (the short moment
  /// between a resize's last fence and its first activation), next() waits this long for the
  /// resize, asking again every few ms, before it fails. Real time: it waits on other
  /// processes. 0 = do not wait. Default 2 s.
  std::int64_t fenced_wait_ns = 2'000'000'000;
  /// The newest epoch known before the first call (e.g. read_ticket_set()'s epoch): values
  /// from an older epoch are refused from the start. >= 0; 0 = learn it from the answers.
  std::int64_t min_epoch = 0;
};

/// Per-server counters.
struct TicketServerStats {
  std::string server;         ///< URL, password hidden
  std::int64_t served = 0;    ///< values it handed out
  std::int64_t failures = 0;  ///< calls that failed (or whose value was refused)
  std::int64_t epoch = 0;     ///< epoch of its latest answer (0: none yet)
  std::string last_error;     ///< the latest failure's message
};

/// Values from a ticket set's servers, round-robin with failover and epoch checks (file
/// comment).
class TicketClient {
 public:
  /// Uses servers (at least one) for set name. errc::invalid_argument for a bad name or an
  /// empty list. The clock must outlive the client.
  TicketClient(std::vector<std::unique_ptr<TicketServer>> servers, std::string name,
               TicketClientOptions options = {}, Clock& clock = SystemClock::instance());
  /// The next value from one of the servers. Thread-safe (one call per server at a time).
  /// ticket_errc::store_unreachable (or the servers' common error) when none answers.
  std::int64_t next();
  /// Counters per server, in list order.
  std::vector<TicketServerStats> stats() const;
  /// The newest configuration epoch any server answered with.
  std::int64_t epoch() const noexcept { return epoch_.load(std::memory_order_acquire); }
  /// The servers, in list order.
  const std::vector<std::unique_ptr<TicketServer>>& servers() const noexcept { return servers_; }

 private:
  struct Slot {
    std::mutex mu;  // one call at a time on the server's connection; guards the counters
    std::atomic<std::int64_t> down_until_ns{0};
    std::int64_t served = 0;
    std::int64_t failures = 0;
    std::int64_t epoch = 0;
    bool stale = false;  // its latest answer came from an older epoch
    int failing = 0;     // failures in a row
    std::string last_error;
  };

  /// Takes a value from server i (its slot locked); throws its error.
  std::int64_t take(std::size_t i);
  /// One round over the servers: a value, or the error of all; *any_fenced says whether
  /// a server answered that a resize has it fenced.
  std::int64_t round(bool* any_fenced);

  std::vector<std::unique_ptr<TicketServer>> servers_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::string name_;
  TicketClientOptions options_;
  Clock& clock_;
  std::atomic<std::uint64_t> rr_{0};
  std::atomic<std::int64_t> epoch_{0};
};

}  // namespace idforge::ticket
