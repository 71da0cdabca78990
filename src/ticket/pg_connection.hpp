// A libpq connection that reconnects on the next call after it broke, and turns every
// failure into an idforge::Error: a lost or refused connection is errc::store_unreachable,
// an SQL error carries its SQLSTATE.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "idforge/error.hpp"

namespace idforge::ticket::detail {

/// An SQL error from PostgreSQL, with its five-character SQLSTATE.
class PgError : public Error {
 public:
  PgError(errc code, const std::string& message, std::string sqlstate)
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

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> r_;
};

class PgConnection {
 public:
  /// Connects to url (libpq URL; a 5 s connect timeout unless the URL sets one), now or,
  /// with connect_now = false, on the first exec().
  explicit PgConnection(std::string url, bool connect_now = true);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  /// Runs one statement with text parameters; reconnects first if the last call broke
  /// the connection. Throws PgError (SQL error) or Error(store_unreachable).
  PgResult exec(std::string_view sql, std::initializer_list<std::string_view> params = {});
  /// Runs statements that take no parameters and return nothing of interest.
  void run(std::string_view sql);
  /// The URL with any password hidden.
  const std::string& where() const noexcept { return where_; }

 private:
  void connect();
  [[noreturn]] void fail(PGresult* r, std::string_view sql);

  std::string url_;
  std::string where_;
  PGconn* conn_ = nullptr;
};

}  // namespace idforge::ticket::detail
