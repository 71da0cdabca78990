// Ticket servers (Flickr, 2010): K databases each hand out every K-th value, server i
// (0-based) the values first+i, first+i+K, ... One database call per ID; losing a server
// loses only its share, and a client fails over to the others.
//
// A ticket "set" is named (check_sequence_name) so several can share servers:
//   PostgreSQL: a sequence idforge_ticket_NAME with INCREMENT BY K, started at its offset.
//   MariaDB:    Flickr's table (idforge_tickets_NAME with an auto-increment id and a unique
//               stub) and `REPLACE INTO ... (stub) VALUES ('a')` + LAST_INSERT_ID(); each
//               connection sets auto_increment_increment / _offset from the set's row in
//               idforge_ticket_sets, since one MariaDB can hold several "servers" as databases,
//               and each REPLACE inserts only while they still match that row.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace idforge::ticket {

/// One server's part in a set, read while the set is locked on that server.
struct TicketState {
  std::int64_t increment = 0;  ///< its step (K)
  std::int64_t highest = 0;    ///< highest value it handed out (first - increment if none)
};

/// One ticket server. Holds one connection; not thread-safe (TicketClient serialises use).
class TicketServer {
 public:
  virtual ~TicketServer() = default;
  /// The server's URL with any password hidden.
  virtual std::string describe() const = 0;
  /// Creates set name here: values first, first + increment, ... errc::already_exists if present.
  virtual void install(std::string_view name, std::int64_t first, std::int64_t increment) = 0;
  /// The set's next value: one round trip. errc::not_found if this server holds no such set
  /// (never created, or retired by a resize), errc::store_unreachable if it does not answer.
  virtual std::int64_t next(std::string_view name) = 0;

  /// Resize, step 1: blocks next() on this server for the set (from every client) and
  /// returns its state, or nullopt (and locks nothing) when the server holds no such set.
  virtual std::optional<TicketState> lock_for_resize(std::string_view name) = 0;
  /// Resize, step 2: the set continues at first with the new increment (created if absent).
  virtual void reconfigure(std::string_view name, std::int64_t first, std::int64_t increment) = 0;
  /// Resize, step 2 for a server leaving the set: removes it; next() answers not_found.
  virtual void retire(std::string_view name) = 0;
  /// Resize, step 3: makes the changes visible and lets next() run again.
  virtual void commit() = 0;
  /// Gives up a resize: PostgreSQL rolls back; MariaDB only unlocks (its DDL is not
  /// transactional), so a MariaDB resize that fails half-way must be run again.
  virtual void abort() noexcept = 0;
};

/// A server from its URL: postgres://... or mysql://... / mariadb://... It connects on first
/// use (so a client can start while one server is down) and reconnects after a lost
/// connection; on MariaDB the database in the path is created if missing.
std::unique_ptr<TicketServer> open_ticket_server(std::string_view url);

/// Largest K: MariaDB's auto_increment_increment stops at 65535.
inline constexpr std::int64_t kMaxTicketServers = 65535;

}  // namespace idforge::ticket
