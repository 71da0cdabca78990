// MariaDB keeps the step and offset in session variables (auto_increment_increment and
// auto_increment_offset), read by each REPLACE. Several "servers" can therefore be
// databases of one MariaDB: each connection applies its set's values from the
// idforge_ticket_sets row when it first uses the set.
//
// Session variables go stale when a resize changes the row, and no outside action can
// refresh another session in time: KILL only flags a session, and one waiting on the
// resize's lock may be granted the table at UNLOCK before it sees the flag, then hand out
// a value of the old step (a duplicate of a new server's value). So the guard sits in the
// statement that takes the value: the REPLACE copies its row from a SELECT of the set's
// row that matches the session's step and offset. Both tables are opened and locked by
// that one statement, and the resize holds both (LOCK TABLES ... WRITE) from reading the
// highest value to its last change: a REPLACE runs wholly before the resize or wholly
// after it, and a stale session inserts nothing, re-reads the row and tries again.
//
// Resize: LOCK TABLES ... WRITE pauses every other session's REPLACE on the set; the
// highest value is MAX(id) (REPLACE keeps one row, the latest).
#include "mariadb_ticket_server.hpp"

#include <errmsg.h>
#include <mysqld_error.h>

#include <charconv>
#include <string>

#include "idforge/error.hpp"
#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/store_url.hpp"

namespace idforge::ticket::detail {
namespace {

std::string table_of(std::string_view name) {
  return "idforge_tickets_" + std::string(check_sequence_name(name));
}

bool connection_lost(unsigned err) {
  // Refused or lost connections, and sessions an administrator killed.
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

}  // namespace

MariaDbUrl parse_mariadb_url(std::string_view url) {
  MariaDbUrl u;
  const auto bad = [&](const std::string& why) {
    throw Error(errc::invalid_argument, "MariaDB URL '" + redact_url(url) + "' " + why +
                                            " (form: mysql://USER[:PASSWORD]@HOST[:PORT]/DB)");
  };
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) bad("has no scheme");
  std::string_view rest = url.substr(scheme + 3);
  const auto q = rest.find('?');
  if (q != std::string_view::npos) rest = rest.substr(0, q);
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos && slash + 1 < rest.size())
    u.database = std::string(rest.substr(slash + 1));
  const auto at = authority.rfind('@');
  if (at != std::string_view::npos) {
    std::string_view cred = authority.substr(0, at);
    authority = authority.substr(at + 1);
    const auto colon = cred.find(':');
    u.user = std::string(cred.substr(0, colon));
    if (colon != std::string_view::npos) u.password = std::string(cred.substr(colon + 1));
  }
  const auto colon = authority.rfind(':');
  if (colon != std::string_view::npos) {
    const std::string_view p = authority.substr(colon + 1);
    unsigned port = 0;
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (ec != std::errc() || end != p.data() + p.size() || port == 0 || port > 65535)
      bad("has port '" + std::string(p) + "', not 1..65535");
    u.port = port;
    authority = authority.substr(0, colon);
  }
  if (!authority.empty()) u.host = std::string(authority);
  for (const char c : u.database)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      bad("names database '" + u.database + "': use letters, digits and _");
  return u;
}

MariaDbTicketServer::MariaDbTicketServer(std::string url)
    : url_(std::move(url)), parts_(parse_mariadb_url(url_)) {}

MariaDbTicketServer::~MariaDbTicketServer() {
  if (locked_) abort();
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
  if (!db_) throw Error(errc::store_unreachable, "MariaDB at " + describe() + ": out of memory");
  const unsigned timeout = 5;
  mysql_options(db_, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  if (!mysql_real_connect(db_, parts_.host.c_str(), parts_.user.c_str(),
                          parts_.password.empty() ? nullptr : parts_.password.c_str(), nullptr,
                          parts_.port, nullptr, 0)) {
    const std::string msg = mysql_error(db_);
    disconnect();
    throw Error(errc::store_unreachable, "MariaDB at " + describe() + " is unreachable: " + msg);
  }
  query("CREATE DATABASE IF NOT EXISTS `" + parts_.database + "`");
  query("USE `" + parts_.database + "`");
  query(
      "CREATE TABLE IF NOT EXISTS idforge_ticket_sets ("
      " name VARCHAR(64) NOT NULL PRIMARY KEY,"
      " step BIGINT NOT NULL,"
      " residue BIGINT NOT NULL,"
      " first_value BIGINT NOT NULL) ENGINE=InnoDB");
}

void MariaDbTicketServer::fail(const std::string& doing) {
  const unsigned err = db_ ? mysql_errno(db_) : CR_SERVER_GONE_ERROR;
  const std::string msg = db_ ? mysql_error(db_) : "not connected";
  if (connection_lost(err)) {
    disconnect();
    throw Error(errc::store_unreachable, "MariaDB at " + describe() + " is unreachable: " + msg);
  }
  errc code = errc::invalid_argument;
  if (err == ER_NO_SUCH_TABLE) code = errc::not_found;
  if (err == ER_TABLE_EXISTS_ERROR || err == ER_DUP_ENTRY) code = errc::already_exists;
  throw Error(code, "MariaDB at " + describe() + ": " + doing + ": " + msg);
}

void MariaDbTicketServer::query(const std::string& sql) {
  if (!db_) connect();
  if (mysql_real_query(db_, sql.data(), sql.size()) != 0) fail(sql);
  if (MYSQL_RES* r = mysql_store_result(db_)) mysql_free_result(r);
}

std::optional<std::string> MariaDbTicketServer::scalar(const std::string& sql) {
  if (!db_) connect();
  if (mysql_real_query(db_, sql.data(), sql.size()) != 0) fail(sql);
  MYSQL_RES* r = mysql_store_result(db_);
  if (!r) fail(sql);
  std::optional<std::string> v;
  if (MYSQL_ROW row = mysql_fetch_row(r); row && row[0]) v = row[0];
  mysql_free_result(r);
  return v;
}

std::pair<std::int64_t, std::int64_t> MariaDbTicketServer::config_of(std::string_view name) {
  const std::string sql =
      "SELECT CONCAT(step, ' ', residue) FROM idforge_ticket_sets WHERE name = '" +
      std::string(check_sequence_name(name)) + "'";
  const auto v = scalar(sql);
  if (!v)
    throw Error(errc::not_found, "ticket set '" + std::string(name) + "' does not exist on " +
                                     describe() + " (never created here, or retired by a resize)");
  const auto space = v->find(' ');
  return {to_int64(v->substr(0, space)), to_int64(v->substr(space + 1))};
}

void MariaDbTicketServer::write_config(std::string_view name, std::int64_t first,
                                       std::int64_t increment) {
  // Values are first, first + increment, ...: MariaDB's offset is first's residue in 1..increment.
  const std::int64_t offset = (first - 1) % increment + 1;
  query("REPLACE INTO idforge_ticket_sets (name, step, residue, first_value) VALUES ('" +
        std::string(name) + "', " + std::to_string(increment) + ", " + std::to_string(offset) +
        ", " + std::to_string(first) + ")");
}

void MariaDbTicketServer::install(std::string_view name, std::int64_t first,
                                  std::int64_t increment) {
  const std::string table = table_of(name);
  if (increment < 1 || increment > kMaxTicketServers)
    throw Error(errc::invalid_argument, "ticket increment " + std::to_string(increment) +
                                            " is out of range: 1.." +
                                            std::to_string(kMaxTicketServers) + " on MariaDB");
  try {
    query("CREATE TABLE " + table +
          " (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,"
          " stub CHAR(1) NOT NULL DEFAULT '' UNIQUE) ENGINE=InnoDB AUTO_INCREMENT=" +
          std::to_string(first));
  } catch (const Error& e) {
    if (e.code() == errc::already_exists)
      throw Error(errc::already_exists,
                  "ticket set '" + std::string(name) + "' already exists on " + describe());
    throw;
  }
  write_config(name, first, increment);
}

std::int64_t MariaDbTicketServer::next(std::string_view name) {
  const std::string table = table_of(name);
  const std::string replace = "REPLACE INTO " + table +
                              " (stub) SELECT 'a' FROM idforge_ticket_sets WHERE name = '" +
                              std::string(name) +
                              "' AND step = @@SESSION.auto_increment_increment"
                              " AND residue = @@SESSION.auto_increment_offset";
  // A REPLACE repeated after a lost answer costs at most one value (a gap, never a
  // duplicate): one retry after a lost connection. A few more after finding the session's
  // step stale, since each such find means a resize finished in between.
  int lost = 0;
  int stale = 0;
  for (;;) {
    try {
      if (session_set_ != name) {
        const auto [inc, off] = config_of(name);
        query("SET SESSION auto_increment_increment = " + std::to_string(inc) +
              ", auto_increment_offset = " + std::to_string(off));
        session_set_ = std::string(name);
      }
      if (mysql_real_query(db_, replace.data(), replace.size()) != 0) {
        // The resize's lock and this statement's two tables can meet in a lock cycle;
        // MariaDB then rolls this statement back, before it took a value: run it again.
        if (mysql_errno(db_) == ER_LOCK_DEADLOCK && stale++ < kMaxStaleRetries) continue;
        fail("taking a ticket");
      }
      if (mysql_affected_rows(db_) > 0) return static_cast<std::int64_t>(mysql_insert_id(db_));
      // No row inserted: the set's row no longer matches this session's step and offset
      // (or is gone). Re-read it; config_of says not_found if the set was retired.
      session_set_.clear();
      if (stale++ >= kMaxStaleRetries)
        throw Error(errc::invalid_argument, "MariaDB at " + describe() + ": ticket set '" +
                                                std::string(name) + "' changed its step " +
                                                std::to_string(stale) +
                                                " times during one call (resizes in a row)");
    } catch (const Error& e) {
      if (e.code() != errc::store_unreachable || lost++ > 0) throw;
    }
  }
}

std::optional<TicketState> MariaDbTicketServer::lock_for_resize(std::string_view name) {
  const std::string table = table_of(name);
  if (!scalar("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND "
              "TABLE_NAME = '" +
              table + "'"))
    return std::nullopt;
  query("LOCK TABLES " + table + " WRITE, idforge_ticket_sets WRITE");
  locked_ = true;
  try {
    const auto [inc, off] = config_of(name);
    const auto max_id = scalar("SELECT MAX(id) FROM " + table);
    std::int64_t highest;
    if (max_id) {
      highest = to_int64(*max_id);
    } else {
      highest = to_int64(scalar("SELECT first_value FROM idforge_ticket_sets WHERE name = '" +
                                std::string(name) + "'")
                             .value_or("1")) -
                inc;
    }
    (void)off;
    return TicketState{inc, highest};
  } catch (...) {
    abort();
    throw;
  }
}

void MariaDbTicketServer::reconfigure(std::string_view name, std::int64_t first,
                                      std::int64_t increment) {
  if (!locked_) {  // a server joining the set: nobody uses it yet, nothing to pause
    install(name, first, increment);
    return;
  }
  if (increment < 1 || increment > kMaxTicketServers)
    throw Error(errc::invalid_argument, "ticket increment " + std::to_string(increment) +
                                            " is out of range: 1.." +
                                            std::to_string(kMaxTicketServers) + " on MariaDB");
  write_config(name, first, increment);
  query("ALTER TABLE " + table_of(name) + " AUTO_INCREMENT = " + std::to_string(first));
  session_set_.clear();
}

void MariaDbTicketServer::retire(std::string_view name) {
  query("DELETE FROM idforge_ticket_sets WHERE name = '" + std::string(check_sequence_name(name)) +
        "'");
  query("DROP TABLE IF EXISTS " + table_of(name));
  session_set_.clear();
}

void MariaDbTicketServer::commit() {
  if (!locked_) return;
  locked_ = false;
  query("UNLOCK TABLES");
}

void MariaDbTicketServer::abort() noexcept {
  if (!locked_) return;
  locked_ = false;
  try {
    query("UNLOCK TABLES");
  } catch (...) {
    // A closed connection releases its table locks.
  }
}

}  // namespace idforge::ticket::detail
