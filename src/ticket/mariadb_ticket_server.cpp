// MariaDB keeps the step and offset in session variables (auto_increment_increment and
// auto_increment_offset), read by each REPLACE. Several "servers" can therefore be
// databases of one MariaDB: each connection applies its set's values from the set's record
// when it first uses the set.
//
// Session variables go stale when a resize changes the record, and no outside action can
// refresh another session in time. So the guard sits in the statement that takes the value:
// the REPLACE copies its row from a SELECT of the set's record that is active, of the epoch
// the session applied, and matches the session's step and offset. A fence holds both tables
// (LOCK TABLES ... WRITE) from reading the highest value to marking the record fenced: a
// REPLACE runs wholly before the fence (and MAX(id) sees it) or wholly after it (and inserts
// nothing). A stale session inserts nothing, re-reads the record and tries again.
//
// The id column is a signed BIGINT: past 2^63-1 MariaDB refuses the insert (error 167)
// instead of handing out a value no signed 64-bit integer can hold.
#include "mariadb_ticket_server.hpp"

#include <errmsg.h>
#include <mysqld_error.h>

#include <charconv>
#include <chrono>
#include <string>

#include "idforge/error.hpp"
#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/store_url.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "member_record.hpp"
#include "one_line.hpp"

namespace idforge::ticket::detail {
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The storage engine's "auto-increment value out of range" (HA_ERR_AUTOINC_ERANGE).
constexpr unsigned kAutoIncRange = 167;

std::string table_of(std::string_view name) {
  return "idforge_tickets_" + std::string(check_sequence_name(name));
}

bool connection_lost(unsigned err) {
  // Refused, lost or silent (read timeout) connections, and sessions an administrator killed.
  return err == CR_SERVER_GONE_ERROR || err == CR_SERVER_LOST || err == CR_CONNECTION_ERROR ||
         err == CR_CONN_HOST_ERROR || err == ER_CONNECTION_KILLED || err == ER_QUERY_INTERRUPTED ||
         err == CR_SERVER_LOST_EXTENDED;
}

std::int64_t to_int64(const std::string& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    throw Error(errc::invalid_argument,
                "MariaDB returned '" + s + "' where an integer was expected");
  return v;
}

[[noreturn]] void changed(std::string_view name, const std::string& where, const std::string& why) {
  throw ConcurrentChange("ticket set '" + std::string(name) + "' on " + where +
                         " changed meanwhile (" + why +
                         "): another resize or init ran at the same time");
}

// The URL's parts (core's parser); a URL without a database uses the ticket default.
MariaDbUrl ticket_url_parts(std::string_view url) {
  MariaDbUrl u = parse_mariadb_url(url);
  if (u.database.empty()) u.database = kDefaultTicketDatabase;
  return u;
}

}  // namespace

MariaDbTicketServer::MariaDbTicketServer(std::string url, DbTimeouts timeouts)
    : url_(std::move(url)), parts_(ticket_url_parts(url_)), timeouts_(timeouts) {
  check_timeouts(timeouts_);
}

MariaDbTicketServer::~MariaDbTicketServer() {
  disconnect();
}

std::string MariaDbTicketServer::describe() const {
  return redact_url(url_);
}

void MariaDbTicketServer::disconnect() noexcept {
  if (db_) mysql_close(db_);
  db_ = nullptr;
  session_set_.clear();
}

void MariaDbTicketServer::connect() {
  disconnect();
  db_ = mysql_init(nullptr);
  if (!db_)
    throw Error(ticket_errc::store_unreachable, "MariaDB at " + describe() + ": out of memory");
  // The client library counts in whole seconds; round up so no bound is shorter than asked.
  const auto secs = [](std::int64_t ms) { return static_cast<unsigned>((ms + 999) / 1000); };
  const unsigned connect_s = secs(timeouts_.connect_ms), statement_s = secs(timeouts_.statement_ms);
  mysql_options(db_, MYSQL_OPT_CONNECT_TIMEOUT, &connect_s);
  mysql_options(db_, MYSQL_OPT_READ_TIMEOUT, &statement_s);
  mysql_options(db_, MYSQL_OPT_WRITE_TIMEOUT, &statement_s);
  // Into the database at once: CREATE DATABASE IF NOT EXISTS would wait for anyone's
  // LOCK TABLES in it (a resize's fence) even when the database exists.
  const auto open = [&](const char* db) {
    return mysql_real_connect(db_, parts_.host.c_str(), parts_.user.c_str(),
                              parts_.password.empty() ? nullptr : parts_.password.c_str(), db,
                              parts_.port, nullptr, 0) != nullptr;
  };
  bool missing_db = false;
  const std::int64_t started = steady_ns();
  if (!open(parts_.database.c_str())) {
    missing_db = mysql_errno(db_) == ER_BAD_DB_ERROR;
    if (missing_db) {
      mysql_close(db_);
      db_ = mysql_init(nullptr);
      if (!db_)
        throw Error(ticket_errc::store_unreachable, "MariaDB at " + describe() + ": out of memory");
      mysql_options(db_, MYSQL_OPT_CONNECT_TIMEOUT, &connect_s);
      mysql_options(db_, MYSQL_OPT_READ_TIMEOUT, &statement_s);
      mysql_options(db_, MYSQL_OPT_WRITE_TIMEOUT, &statement_s);
    }
    if (!missing_db || !open(nullptr)) {
      const std::string msg = one_line(mysql_error(db_));
      // The server's own refusal of this login (access denied): it runs, so it is not
      // unreachable, and a resize must not drop it as gone.
      const unsigned code = mysql_errno(db_);
      const bool answered = code == ER_ACCESS_DENIED_ERROR || code == ER_DBACCESS_DENIED_ERROR ||
                            code == ER_HOST_NOT_PRIVILEGED ||
                            code == ER_ACCESS_DENIED_NO_PASSWORD_ERROR;
      disconnect();
      if (answered)
        throw Error(errc::invalid_argument,
                    "MariaDB at " + describe() + " refused the connection: " + msg);
      const std::int64_t bound_ms = (timeouts_.connect_ms + 999) / 1000 * 1000;
      const bool slow = steady_ns() - started >= bound_ms * 1'000'000 * 9 / 10;
      throw Error(ticket_errc::store_unreachable,
                  "MariaDB at " + describe() +
                      (slow ? " did not answer within " + std::to_string(bound_ms) +
                                  " ms while connecting (server down, frozen or overloaded): "
                            : " is unreachable: ") +
                      msg);
    }
  }
  // Server-side bounds: lock waits (a fence waiting for REPLACEs, or for another resize) and
  // any one statement.
  query("SET SESSION lock_wait_timeout = " + std::to_string(secs(timeouts_.lock_ms)) +
        ", innodb_lock_wait_timeout = " + std::to_string(secs(timeouts_.lock_ms)) +
        ", max_statement_time = " +
        std::to_string(static_cast<double>(timeouts_.statement_ms) / 1000.0));
  if (missing_db) {
    query("CREATE DATABASE IF NOT EXISTS `" + parts_.database + "`");
    query("USE `" + parts_.database + "`");
  }
  query(
      "CREATE TABLE IF NOT EXISTS idforge_ticket_members ("
      " name VARCHAR(64) NOT NULL PRIMARY KEY,"
      " state VARCHAR(8) NOT NULL, epoch BIGINT NOT NULL, first_value BIGINT NOT NULL,"
      " members TEXT NOT NULL, dropped TEXT NOT NULL, gap BIGINT NOT NULL,"
      " member_index BIGINT NOT NULL, step BIGINT NOT NULL, residue BIGINT NOT NULL,"
      " token VARCHAR(40) NOT NULL, highest BIGINT NULL,"
      " next_epoch BIGINT NULL, next_first BIGINT NULL, next_members TEXT NULL,"
      " next_dropped TEXT NULL, next_gap BIGINT NULL,"
      " version BIGINT NOT NULL,"
      " changed_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB");
}

void MariaDbTicketServer::fail(const std::string& doing) {
  const unsigned err = db_ ? mysql_errno(db_) : CR_SERVER_GONE_ERROR;
  const std::string msg = one_line(db_ ? mysql_error(db_) : "not connected");
  if (connection_lost(err)) {
    disconnect();
    throw Error(ticket_errc::store_unreachable,
                "MariaDB at " + describe() + timed_out(sent_at_ns_) + msg);
  }
  std::error_code code = errc::invalid_argument;
  if (err == ER_NO_SUCH_TABLE) code = ticket_errc::not_found;
  if (err == ER_TABLE_EXISTS_ERROR || err == ER_DUP_ENTRY) code = ticket_errc::already_exists;
  if (err == ER_LOCK_WAIT_TIMEOUT || err == ER_STATEMENT_TIMEOUT)
    code = ticket_errc::store_unreachable;
  if (err == kAutoIncRange || err == ER_WARN_DATA_OUT_OF_RANGE || err == ER_AUTOINC_READ_FAILED)
    code = errc::counter_exhausted;
  throw Error(code, "MariaDB at " + describe() + ": " + doing + ": " + msg);
}

std::string MariaDbTicketServer::timed_out(std::int64_t since_ns) const {
  // The client library reports a read timeout as a lost connection ("system error: 110"):
  // say which it was when the wait reached the bound (whole seconds on MariaDB).
  const std::int64_t bound_ms = (timeouts_.statement_ms + 999) / 1000 * 1000;
  if (since_ns == 0 || steady_ns() - since_ns < bound_ms * 1'000'000 * 9 / 10)
    return " is unreachable: ";
  return " did not answer within " + std::to_string(bound_ms) +
         " ms (server down, frozen or overloaded); the connection was closed: ";
}

void MariaDbTicketServer::send(const std::string& sql) {
  if (hook_) hook_(sql);
  if (!db_) connect();
  sent_at_ns_ = steady_ns();
  if (mysql_real_query(db_, sql.data(), sql.size()) != 0) fail(sql.substr(0, 60));
}

void MariaDbTicketServer::query(const std::string& sql) {
  send(sql);
  if (MYSQL_RES* r = mysql_store_result(db_)) mysql_free_result(r);
}

std::int64_t MariaDbTicketServer::change(const std::string& sql) {
  send(sql);
  return static_cast<std::int64_t>(mysql_affected_rows(db_));
}

std::optional<std::string> MariaDbTicketServer::scalar(const std::string& sql) {
  send(sql);
  MYSQL_RES* r = mysql_store_result(db_);
  if (!r) fail(sql.substr(0, 60));
  std::optional<std::string> v;
  if (MYSQL_ROW row = mysql_fetch_row(r); row && row[0]) v = row[0];
  mysql_free_result(r);
  return v;
}

void MariaDbTicketServer::unlock() noexcept {
  try {
    if (db_) query("UNLOCK TABLES");
  } catch (...) {
    disconnect();  // a closed connection drops its table locks
  }
}

std::string MariaDbTicketServer::identity() {
  if (identity_.empty()) {
    // MariaDB has no system identifier: each database keeps a UUID of its own, made once.
    query(
        "CREATE TABLE IF NOT EXISTS idforge_ticket_node (k TINYINT NOT NULL PRIMARY KEY,"
        " node_id VARCHAR(64) NOT NULL) ENGINE=InnoDB");
    // The UUID travels with a dump or a copied data folder, so the instance that made it is
    // kept beside it: a copy restored on another instance (which would hand out the
    // original's values again) then has an identity of its own, and no record names it.
    query("ALTER TABLE idforge_ticket_node ADD COLUMN IF NOT EXISTS instance VARCHAR(300) NULL");
    query(
        "INSERT IGNORE INTO idforge_ticket_node (k, node_id, instance) VALUES (1, UUID(), "
        "CONCAT(@@hostname, ':', @@port))");
    query(
        "UPDATE idforge_ticket_node SET instance = CONCAT(@@hostname, ':', @@port) WHERE k = 1 "
        "AND instance IS NULL");
    const std::string uuid =
        scalar("SELECT node_id FROM idforge_ticket_node WHERE k = 1").value_or("?");
    const std::string here = scalar("SELECT CONCAT(@@hostname, ':', @@port)").value_or("?");
    const std::string made_on =
        scalar("SELECT instance FROM idforge_ticket_node WHERE k = 1").value_or("");
    identity_ = "mariadb:" + uuid + (made_on == here ? "" : "@" + here) + "/" + parts_.database;
  }
  return identity_;
}

std::optional<MemberRecord> MariaDbTicketServer::read(std::string_view name) {
  const std::string sql = "SELECT " + std::string(kRecordColumns) +
                          " FROM idforge_ticket_members WHERE name = '" +
                          std::string(check_sequence_name(name)) + "'";
  send(sql);
  MYSQL_RES* r = mysql_store_result(db_);
  if (!r) fail("reading the record");
  MYSQL_ROW row = mysql_fetch_row(r);
  if (!row) {
    mysql_free_result(r);
    return std::nullopt;
  }
  try {
    MemberRecord rec = parse_record(
        [&](int c) -> std::optional<std::string_view> {
          if (!row[c]) return std::nullopt;
          return std::string_view(row[c]);
        },
        describe());
    mysql_free_result(r);
    return rec;
  } catch (...) {
    mysql_free_result(r);
    throw;
  }
}

TicketValue MariaDbTicketServer::next(std::string_view name) {
  const std::string table = table_of(name);
  int stale = 0;
  for (;;) {
    if (session_set_ != name) {
      const auto rec = read(name);
      if (!rec)
        throw Error(ticket_errc::not_found, "ticket set '" + std::string(name) +
                                                "' does not exist on " + describe() +
                                                " (never created here)");
      if (rec->state == MemberState::fenced)
        throw Error(errc::fenced, "ticket set '" + std::string(name) + "' on " + describe() +
                                      " is fenced by resize " + rec->token +
                                      ": it hands out nothing until that resize finishes "
                                      "(`idforge ticket status` shows where it stands)");
      if (rec->state == MemberState::retired)
        throw Error(ticket_errc::not_found,
                    "ticket set '" + std::string(name) + "' on " + describe() +
                        " was retired by the resize to epoch " + std::to_string(rec->config.epoch));
      const MemberValues v = values_of(rec->config, rec->index);
      query("SET SESSION auto_increment_increment = " + std::to_string(v.step) +
            ", auto_increment_offset = " + std::to_string(v.residue));
      session_set_ = std::string(name);
      session_epoch_ = rec->config.epoch;
    }
    const std::string replace =
        "REPLACE INTO " + table + " (stub) SELECT 'a' FROM idforge_ticket_members WHERE name = '" +
        std::string(name) + "' AND state = 'active' AND epoch = " + std::to_string(session_epoch_) +
        " AND step = @@SESSION.auto_increment_increment"
        " AND residue = @@SESSION.auto_increment_offset";
    if (hook_) hook_(replace);
    if (mysql_real_query(db_, replace.data(), replace.size()) != 0) {
      // The fence's lock and this statement's two tables can meet in a lock cycle; MariaDB
      // then rolls this statement back, before it took a value: run it again.
      const unsigned err = mysql_errno(db_);
      if (err == ER_LOCK_DEADLOCK && stale++ < kMaxStaleRetries) continue;
      if (err == kAutoIncRange || err == ER_WARN_DATA_OUT_OF_RANGE || err == ER_AUTOINC_READ_FAILED)
        throw Error(errc::counter_exhausted,
                    "ticket set '" + std::string(name) + "' on " + describe() +
                        " has handed out its last value below 2^63-1 (MariaDB: " +
                        one_line(mysql_error(db_)) + ")");
      fail("taking a ticket of set '" + std::string(name) + "'");
    }
    if (mysql_affected_rows(db_) > 0)
      return {static_cast<std::int64_t>(mysql_insert_id(db_)), session_epoch_};
    // No row inserted: the record no longer matches this session (a resize fenced or
    // changed it). Re-read it; the checks above say fenced or retired.
    session_set_.clear();
    if (stale++ >= kMaxStaleRetries)
      throw Error(ticket_errc::store_unreachable,
                  "MariaDB at " + describe() + ": ticket set '" + std::string(name) +
                      "' changed its configuration " + std::to_string(stale) +
                      " times during one call (resizes in a row)");
  }
}

MemberRecord MariaDbTicketServer::fence(std::string_view name, std::int64_t version,
                                        const std::string& token) {
  const std::string n(check_sequence_name(name));
  auto rec = read(name);
  if (!rec) changed(name, describe(), "its record is gone");
  if (rec->state == MemberState::retired)
    throw Error(errc::invalid_argument,
                "ticket set '" + n + "' on " + describe() + " is retired: nothing to fence");
  const std::string clear_next =
      " next_epoch = NULL, next_first = NULL, next_members = NULL, next_dropped = NULL,"
      " next_gap = NULL, version = version + 1, changed_at = CURRENT_TIMESTAMP(6)";
  if (rec->state == MemberState::fenced) {
    // Taking over a fence: the values are stopped already; only the token moves.
    if (change("UPDATE idforge_ticket_members SET token = '" + token + "'," + clear_next +
               " WHERE name = '" + n + "' AND version = " + std::to_string(version)) != 1)
      changed(name, describe(), "record version moved from " + std::to_string(version));
  } else {
    query("LOCK TABLES " + table_of(name) + " WRITE, idforge_ticket_members WRITE");
    try {
      rec = read(name);
      if (!rec || rec->version != version)
        changed(name, describe(), "record version moved from " + std::to_string(version));
      const auto max_id = scalar("SELECT MAX(id) FROM " + table_of(name));
      const MemberValues v = values_of(rec->config, rec->index);
      std::int64_t h = v.first - v.step;  // nothing handed out in this configuration
      if (max_id) h = std::max(h, to_int64(*max_id));
      query("UPDATE idforge_ticket_members SET state = 'fenced', token = '" + token +
            "', highest = " + std::to_string(h) + "," + clear_next + " WHERE name = '" + n + "'");
      rec->highest = h;
    } catch (...) {
      unlock();
      throw;
    }
    unlock();
  }
  rec->state = MemberState::fenced;
  rec->token = token;
  rec->next.reset();
  ++rec->version;
  return *rec;
}

void MariaDbTicketServer::prepare(std::string_view name, std::optional<std::int64_t> version,
                                  const std::string& token, const TicketConfig& next) {
  const std::string n(check_sequence_name(name));
  if (!db_) connect();
  const auto text = [&](const std::string& s) {
    std::string out(s.size() * 2 + 1, '\0');
    out.resize(mysql_real_escape_string(db_, out.data(), s.data(), s.size()));
    return "'" + out + "'";
  };
  const std::string epoch = std::to_string(next.epoch), first = std::to_string(next.first),
                    members = text(encode_members(next.members)),
                    dropped = text(encode_members(next.dropped)), gap = std::to_string(next.gap);
  if (!version) {
    if (change("INSERT IGNORE INTO idforge_ticket_members (name, state, epoch, first_value,"
               " members, dropped, gap, member_index, step, residue, token, highest, next_epoch,"
               " next_first, next_members, next_dropped, next_gap, version) VALUES ('" +
               n + "', 'fenced', 0, 0, '', '', 0, -1, 0, 0, '" + token + "', NULL, " + epoch +
               ", " + first + ", " + members + ", " + dropped + ", " + gap + ", 1)") != 1)
      changed(name, describe(), "a record appeared");
    return;
  }
  // MariaDB assigns left to right, each seeing the columns already set: highest first.
  if (change("UPDATE idforge_ticket_members SET highest = IF(state = 'retired', NULL, highest),"
             " state = 'fenced', token = '" +
             token + "', next_epoch = " + epoch + ", next_first = " + first +
             ", next_members = " + members + ", next_dropped = " + dropped + ", next_gap = " + gap +
             ", version = version + 1, changed_at = CURRENT_TIMESTAMP(6) WHERE name = '" + n +
             "' AND ((state = 'fenced' AND token = '" + token +
             "') OR (state = 'retired' AND version = " + std::to_string(*version) + "))") != 1)
    changed(name, describe(), "its fence or version moved");
}

MemberRecord MariaDbTicketServer::activate(std::string_view name, const std::string& token) {
  const std::string n(check_sequence_name(name));
  const std::string self = identity();
  auto rec = read(name);
  if (!rec) changed(name, describe(), "its record is gone");
  if (rec->token == token && rec->state != MemberState::fenced) return *rec;  // done before
  if (rec->state != MemberState::fenced || rec->token != token)
    changed(name, describe(), "fenced by " + rec->token + " now");
  if (!rec->next)
    throw Error(errc::invalid_argument, "ticket set '" + n + "' on " + describe() + ": resize " +
                                            token + " prepared no configuration here");
  const TicketConfig& nx = *rec->next;
  const std::int64_t idx = index_of(nx, self);
  const std::string apply =
      " epoch = next_epoch, first_value = next_first, members = next_members,"
      " dropped = next_dropped, gap = next_gap, highest = NULL, next_epoch = NULL,"
      " next_first = NULL, next_members = NULL, next_dropped = NULL, next_gap = NULL,"
      " version = version + 1, changed_at = CURRENT_TIMESTAMP(6) WHERE name = '" +
      n + "' AND state = 'fenced' AND token = '" + token + "'";
  if (idx < 0) {
    // The record first: once it says retired, a leftover table hands out nothing.
    if (change("UPDATE idforge_ticket_members SET state = 'retired', member_index = -1,"
               " step = 0, residue = 0," +
               apply) != 1)
      changed(name, describe(), "its fence moved");
    query("DROP TABLE IF EXISTS " + table_of(name));
  } else {
    // While the record says fenced no REPLACE inserts, so the counter can be set first and
    // the record switched after: each statement is atomic, and every state between is safe.
    const MemberValues v = values_of(nx, idx);
    if (!rec->highest) {
      // A server joining the set: a table left from an earlier membership is replaced.
      query("DROP TABLE IF EXISTS " + table_of(name));
      query("CREATE TABLE " + table_of(name) +
            " (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
            " stub CHAR(1) NOT NULL DEFAULT '' UNIQUE) ENGINE=InnoDB AUTO_INCREMENT=" +
            std::to_string(v.first));
    } else {
      query("ALTER TABLE " + table_of(name) + " AUTO_INCREMENT = " + std::to_string(v.first));
    }
    if (change("UPDATE idforge_ticket_members SET state = 'active', member_index = " +
               std::to_string(idx) + ", step = " + std::to_string(v.step) +
               ", residue = " + std::to_string(v.residue) + "," + apply) != 1)
      changed(name, describe(), "its fence moved");
  }
  session_set_.clear();
  return *read(name);
}

void MariaDbTicketServer::discard(std::string_view name, const std::string& token) {
  query("DELETE FROM idforge_ticket_members WHERE name = '" +
        std::string(check_sequence_name(name)) + "' AND state = 'fenced' AND token = '" + token +
        "' AND epoch = 0 AND highest IS NULL");
}

}  // namespace idforge::ticket::detail
