// Ticket servers (Flickr, 2010): K databases each hand out every K-th value, member i
// (0-based) the values first+i, first+i+K, ... One database call per ID; losing a server
// loses only its share, and a client fails over to the others.
//
// A ticket "set" is named (check_sequence_name) so several can share servers. On each
// server it is two things:
//   the values  PostgreSQL: a sequence idforge_ticket_NAME (INCREMENT BY K).
//               MariaDB: Flickr's table idforge_tickets_NAME (auto-increment id, unique stub)
//               and `REPLACE INTO ... (stub)` + LAST_INSERT_ID(); each connection sets
//               auto_increment_increment / _offset from the set's record.
//   the record  one row of idforge_ticket_members: the set's configuration as this member
//               knows it (epoch, first value, the members of that epoch in order, K), its
//               state (active, fenced, retired), and, while a resize runs, the highest value
//               it handed out and the configuration prepared for it. Every member keeps the
//               whole membership, so a resize can account for every member, including ones
//               that do not answer.
//
// States (see docs/SEQUENCES.md for the protocol that moves between them):
//   active   hands out values of its configuration's epoch.
//   fenced   hands out nothing (PostgreSQL: the sequence is pinned at its highest value;
//            MariaDB: the REPLACE inserts only for an active record) until a resize
//            activates its prepared configuration.
//   retired  left the set; hands out nothing ever again (until a resize brings it back).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/error.hpp"
#include "idforge/ticket/db_timeouts.hpp"
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::ticket {

/// A value and the configuration epoch of the member that handed it out.
struct TicketValue {
  std::int64_t value = 0;
  std::int64_t epoch = 0;
};

/// A member as recorded: its identity (the database it is, whatever URL reaches it) and the
/// URL it was reached at (password hidden), for messages.
struct MemberRef {
  std::string id;
  std::string url;
  friend bool operator==(const MemberRef&, const MemberRef&) = default;
};

/// A configuration of a set. Member i hands out first + i, first + i + K, ... (K = members).
struct TicketConfig {
  std::int64_t epoch = 0;          ///< 1 for init, +1 for each resize
  std::int64_t first = 0;          ///< member 0's first value; all older values lie below
  std::vector<MemberRef> members;  ///< in offset order; K = members.size()
  std::vector<MemberRef> dropped;  ///< members of the previous epoch left out unfenced
  std::int64_t gap = 0;            ///< values skipped above the highest known for them
  std::int64_t k() const noexcept { return static_cast<std::int64_t>(members.size()); }
  friend bool operator==(const TicketConfig&, const TicketConfig&) = default;
};

/// A member's state (see the file comment).
enum class MemberState { active, fenced, retired };

/// "active", "fenced" or "retired".
std::string_view to_string(MemberState s) noexcept;

/// One server's record of a set.
struct MemberRecord {
  MemberState state = MemberState::active;
  /// active: the live configuration; fenced: the one it was fenced in (epoch 0 and no members
  /// for a server joining the set); retired: the configuration it left the set at.
  TicketConfig config;
  /// Position in config.members, or -1 when it is not among them.
  std::int64_t index = -1;
  /// The init or resize that last changed the record (it also names the fence).
  std::string token;
  /// fenced: the highest value it handed out (nullopt: none, it never was active).
  std::optional<std::int64_t> highest;
  /// fenced: the configuration a resize prepared for it; the server leaves the set when it
  /// is not among next->members.
  std::optional<TicketConfig> next;
  /// Bumped by every change; fence() and prepare() are conditional on it.
  std::int64_t version = 0;
};

/// A record changed between reading it and changing it: another resize or init runs at the
/// same time (or ran in between). Nothing was changed by the call that throws it.
class ConcurrentChange : public Error {
 public:
  explicit ConcurrentChange(const std::string& message)
      : Error(ticket_errc::already_exists, message) {}
};

/// One ticket server. Holds one connection; not thread-safe (TicketClient serialises use).
/// Each call that changes the record is one transaction on this server alone: it happens
/// wholly or not at all, whatever fails.
class TicketServer {
 public:
  /// Called with each statement's text before it is sent (tracing, fault injection).
  using StatementHook = std::function<void(std::string_view sql)>;

  virtual ~TicketServer() = default;
  /// The server's URL with any password hidden.
  virtual std::string describe() const = 0;
  /// What database this is, whatever URL reaches it: PostgreSQL "pg:" + system identifier +
  /// "/" + database; MariaDB "mariadb:" + a UUID kept in the database + "/" + database.
  /// Two URLs with the same identity are one server.
  virtual std::string identity() = 0;

  /// The set's next value: one round trip. ticket_errc::not_found if this server holds no such set
  /// (never created, or retired by a resize), errc::fenced while a resize has it fenced,
  /// errc::counter_exhausted at 2^63-1, ticket_errc::store_unreachable if it does not answer in
  /// time.
  virtual TicketValue next(std::string_view name) = 0;

  /// The set's record here, or nullopt. Reads only.
  virtual std::optional<MemberRecord> read(std::string_view name) = 0;
  /// Fences the member if active (stops its values and records the highest one it handed out,
  /// in one transaction that waits for calls in flight) or takes over a fence another token
  /// left (clearing its prepared configuration). Conditional on version (ConcurrentChange).
  virtual MemberRecord fence(std::string_view name, std::int64_t version,
                             const std::string& token) = 0;
  /// Records next as the configuration this member takes when activated. On a member fenced
  /// by token; or, where the server holds no record (version nullopt) or a retired one
  /// (its version), creates a fenced record for a joining member.
  virtual void prepare(std::string_view name, std::optional<std::int64_t> version,
                       const std::string& token, const TicketConfig& next) = 0;
  /// Applies the prepared configuration of a member fenced by token: it hands out its new
  /// values, or retires. A record token already activated is left as it is (a rerun).
  virtual MemberRecord activate(std::string_view name, const std::string& token) = 0;
  /// Removes a record token created and never activated (an init that gives up).
  virtual void discard(std::string_view name, const std::string& token) = 0;

  /// Sets the hook called before every statement (empty: none).
  virtual void set_statement_hook(StatementHook hook) = 0;
};

/// A server from its URL: postgres://... or mysql://... / mariadb://... It connects on first
/// use (so a client can start while one server is down) and reconnects after a lost
/// connection; on MariaDB the database in the path is created if missing. Every wait is
/// bounded by timeouts.
std::unique_ptr<TicketServer> open_ticket_server(std::string_view url, DbTimeouts timeouts = {});

/// Largest K: MariaDB's auto_increment_increment stops at 65535.
inline constexpr std::int64_t kMaxTicketServers = 65535;

}  // namespace idforge::ticket
