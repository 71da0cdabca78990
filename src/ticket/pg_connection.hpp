// A libpq connection that reconnects on the next call after it broke, bounds every wait
// (connecting, each statement, each lock) and turns every failure into an idforge::Error on
// one line: a lost, refused or silent connection is ticket_errc::store_unreachable, an SQL error
// carries its SQLSTATE.
//
// Why not plain PQexec: a server that is frozen (SIGSTOP, a stalled VM) keeps the TCP
// connection open and never answers, and its own statement_timeout cannot fire, so a
// blocking call would wait forever. Statements are sent with libpq's asynchronous calls and
// the answer is awaited with poll() up to a deadline on this side; past it the connection is
// closed. The server-side statement_timeout and lock_timeout are set too, so a statement
// stuck on a live server ends there as well.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "idforge/error.hpp"
#include "idforge/ticket/db_timeouts.hpp"
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::ticket::detail {

/// An SQL error from PostgreSQL, with its five-character SQLSTATE.
class PgError : public Error {
 public:
  PgError(std::error_code code, const std::string& message, std::string sqlstate)
      : Error(code, message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const noexcept { return sqlstate_; }

 private:
  std::string sqlstate_;
};

/// The rows of one statement.
class PgResult {
 public:
  explicit PgResult(PGresult* r) : r_(r, &PQclear) {}
  int rows() const { return PQntuples(r_.get()); }
  bool is_null(int row, int col) const { return PQgetisnull(r_.get(), row, col) != 0; }
  std::string_view text(int row, int col) const { return PQgetvalue(r_.get(), row, col); }
  std::int64_t int64(int row, int col) const;
  /// Rows an INSERT/UPDATE/DELETE changed.
  std::int64_t affected() const;

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> r_;
};

class PgConnection {
 public:
  /// Called with each statement's text before it is sent (tracing, fault injection).
  using Hook = std::function<void(std::string_view sql)>;

  /// Connects to url (a libpq URL; its own connect_timeout, options or application_name win
  /// over ours) now or, with connect_now = false, on the first exec().
  explicit PgConnection(std::string url, DbTimeouts timeouts = {}, bool connect_now = true);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  /// Runs one statement with text parameters; reconnects first if the last call broke
  /// the connection. Throws PgError (SQL error) or Error(store_unreachable).
  PgResult exec(std::string_view sql, std::initializer_list<std::string_view> params = {});
  /// Runs a statement that takes no parameters and returns nothing of interest.
  void run(std::string_view sql);
  /// Closes the connection (a transaction in progress rolls back); the next call reconnects.
  void close() noexcept;
  /// The URL with any password hidden.
  const std::string& where() const noexcept { return where_; }
  /// Sets the hook called before every statement (empty: none).
  void set_hook(Hook hook) { hook_ = std::move(hook); }

 private:
  void connect();
  /// Waits until the socket is ready for events or the deadline (steady ns) passes.
  void wait_socket(short events, std::int64_t deadline_ns, std::string_view doing);
  [[noreturn]] void lost(const std::string& why);
  [[noreturn]] void fail(PGresult* r);

  std::string url_;
  std::string where_;
  DbTimeouts timeouts_;
  PGconn* conn_ = nullptr;
  Hook hook_;
};

}  // namespace idforge::ticket::detail
