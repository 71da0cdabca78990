// How long a ticket server or a segment store may keep a caller waiting. Every wait on a
// database is bounded: a server that is down, frozen (SIGSTOP, a stalled VM) or stuck behind
// a lock answers with ticket_errc::store_unreachable within these bounds, so a ticket client fails
// over and a segment client reports the error instead of hanging.
#pragma once

#include <cstdint>
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::ticket {

/// Bounds on the waits of one database connection. Each is >= 1 ms (errc::invalid_argument).
struct DbTimeouts {
  /// Connecting, the server's greeting included. Default 2 s.
  std::int64_t connect_ms = 2'000;
  /// One statement, from sending it to its last byte of answer, measured on the client: a
  /// frozen server cannot enforce its own statement_timeout. On expiry the connection is
  /// closed (the next call reconnects). Default 3 s.
  std::int64_t statement_ms = 3'000;
  /// Waiting for a lock another session holds (a resize waiting for a client's nextval(),
  /// or for another resize). Rounded up to whole seconds on MariaDB. Default 1 s.
  std::int64_t lock_ms = 1'000;
};

/// Throws errc::invalid_argument naming the field unless every bound is 1..3,600,000 ms.
void check_timeouts(const DbTimeouts& t);

}  // namespace idforge::ticket
