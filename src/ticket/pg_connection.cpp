#include "pg_connection.hpp"

#include <charconv>
#include <string>
#include <vector>

#include "idforge/ticket/store_url.hpp"

namespace idforge::ticket::detail {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// SQLSTATE classes that mean "the server or the link went away", not "your SQL is wrong".
bool is_connection_state(std::string_view state) {
  return state.substr(0, 2) == "08" || state == "57P01" || state == "57P02" || state == "57P03";
}

errc code_of(std::string_view state) {
  if (is_connection_state(state)) return errc::store_unreachable;
  if (state == "42P01" || state == "42704") return errc::not_found;  // undefined table / object
  if (state == "23505" || state == "42P07") return errc::already_exists;
  if (state == "22003" || state == "2200H")
    return errc::counter_exhausted;  // out of range / seq limit
  return errc::invalid_argument;
}

}  // namespace

std::int64_t PgResult::int64(int row, int col) const {
  const std::string_view t = text(row, col);
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size())
    throw Error(errc::invalid_argument,
                "PostgreSQL returned '" + std::string(t) + "' where an integer was expected");
  return v;
}

PgConnection::PgConnection(std::string url, bool connect_now)
    : url_(std::move(url)), where_(redact_url(url_)) {
  if (connect_now) connect();
}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

void PgConnection::connect() {
  if (conn_) PQfinish(conn_);
  const char* keys[] = {"dbname", "connect_timeout", "application_name", nullptr};
  const char* vals[] = {url_.c_str(), "5", "idforge", nullptr};
  // expand_dbname = 1: the URL fills in everything; later keys apply only if it left them out.
  conn_ = PQconnectdbParams(keys, vals, 1);
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string msg = trim(PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    throw Error(errc::store_unreachable, "PostgreSQL at " + where_ + " is unreachable: " + msg);
  }
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
}

void PgConnection::fail(PGresult* r, std::string_view sql) {
  std::string state;
  std::string msg;
  if (r) {
    const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    if (s) state = s;
    msg = trim(PQresultErrorMessage(r));
    PQclear(r);
  }
  if (msg.empty()) msg = trim(PQerrorMessage(conn_));
  if (PQstatus(conn_) != CONNECTION_OK || is_connection_state(state)) {
    // Reconnect on the next call; this one reports the loss.
    PQfinish(conn_);
    conn_ = nullptr;
    throw PgError(errc::store_unreachable, "PostgreSQL at " + where_ + " is unreachable: " + msg,
                  state);
  }
  (void)sql;
  throw PgError(code_of(state), "PostgreSQL at " + where_ + ": " + msg, state);
}

PgResult PgConnection::exec(std::string_view sql, std::initializer_list<std::string_view> params) {
  if (!conn_) connect();
  const std::string q(sql);
  std::vector<std::string> owned(params.begin(), params.end());
  std::vector<const char*> vals;
  for (auto& p : owned) vals.push_back(p.c_str());
  PGresult* r = PQexecParams(conn_, q.c_str(), static_cast<int>(vals.size()), nullptr, vals.data(),
                             nullptr, nullptr, 0);
  const auto st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) fail(r, sql);
  return PgResult(r);
}

void PgConnection::run(std::string_view sql) {
  if (!conn_) connect();
  const std::string q(sql);
  PGresult* r = PQexec(conn_, q.c_str());
  const auto st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) fail(r, sql);
  PQclear(r);
}

}  // namespace idforge::ticket::detail
