#include "pg_connection.hpp"

#include <poll.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "idforge/ticket/store_url.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "one_line.hpp"

namespace idforge::ticket::detail {
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// SQLSTATE classes that mean "the server or the link went away", not "your SQL is wrong".
bool is_connection_state(std::string_view state) {
  return state.substr(0, 2) == "08" || state == "57P01" || state == "57P02" || state == "57P03";
}

std::error_code code_of(std::string_view state) {
  if (is_connection_state(state)) return ticket_errc::store_unreachable;
  // Lock or statement timeout: the server is alive but did not get to it in time.
  if (state == "55P03" || state == "57014") return ticket_errc::store_unreachable;
  if (state == "42P01" || state == "42704")
    return ticket_errc::not_found;  // undefined table / object
  if (state == "23505" || state == "42P07") return ticket_errc::already_exists;
  if (state == "22003" || state == "2200H")
    return errc::counter_exhausted;  // out of range / seq limit
  return errc::invalid_argument;
}

// The server's words without libpq's layout: primary message, then detail and hint.
std::string message_of(const PGresult* r) {
  const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
  if (!primary) return one_line(PQresultErrorMessage(r));
  std::string msg = primary;
  if (const char* d = PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL))
    msg += std::string(" (") + d + ")";
  if (const char* h = PQresultErrorField(r, PG_DIAG_MESSAGE_HINT))
    msg += std::string("; hint: ") + h;
  return one_line(msg);
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

std::int64_t PgResult::affected() const {
  const char* n = PQcmdTuples(r_.get());
  std::int64_t v = 0;
  if (n && *n) std::from_chars(n, n + std::char_traits<char>::length(n), v);
  return v;
}

PgConnection::PgConnection(std::string url, DbTimeouts timeouts, bool connect_now)
    : url_(std::move(url)), where_(redact_url(url_)), timeouts_(timeouts) {
  check_timeouts(timeouts_);
  if (connect_now) connect();
}

PgConnection::~PgConnection() {
  close();
}

void PgConnection::close() noexcept {
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
}

void PgConnection::lost(const std::string& why) {
  close();
  throw PgError(ticket_errc::store_unreachable,
                "PostgreSQL at " + where_ + " is unreachable: " + scrub_password(why, url_), "");
}

void PgConnection::wait_socket(short events, std::int64_t deadline_ns, std::string_view doing) {
  for (;;) {
    const std::int64_t left_ns = deadline_ns - steady_ns();
    if (left_ns <= 0) {
      const std::int64_t ms = doing == "connecting" ? timeouts_.connect_ms : timeouts_.statement_ms;
      close();
      throw PgError(ticket_errc::store_unreachable,
                    "PostgreSQL at " + where_ + " did not answer within " + std::to_string(ms) +
                        " ms while " + std::string(doing) +
                        " (server down, frozen or overloaded); the connection was closed",
                    "");
    }
    pollfd p{PQsocket(conn_), events, 0};
    const int ms = static_cast<int>((left_ns + 999'999) / 1'000'000);
    const int rc = ::poll(&p, 1, ms);
    if (rc > 0) return;
    if (rc < 0 && errno != EINTR) lost(std::string("poll failed: ") + std::strerror(errno));
  }
}

void PgConnection::connect() {
  close();
  const std::string secs = std::to_string((timeouts_.connect_ms + 999) / 1000);
  // Server-side bounds as well: a statement stuck on a live server (a lock another session
  // holds) ends there, and a session that froze inside a transaction releases its locks.
  const std::string options =
      "-c statement_timeout=" + std::to_string(timeouts_.statement_ms) +
      " -c lock_timeout=" + std::to_string(timeouts_.lock_ms) +
      " -c idle_in_transaction_session_timeout=" + std::to_string(10 * timeouts_.statement_ms);
  // Keys before dbname are defaults the URL may override (libpq applies them in order).
  const char* keys[] = {"connect_timeout", "application_name", "options", "dbname", nullptr};
  const char* vals[] = {secs.c_str(), "idforge", options.c_str(), url_.c_str(), nullptr};
  const std::int64_t deadline = steady_ns() + timeouts_.connect_ms * 1'000'000;
  conn_ = PQconnectStartParams(keys, vals, 1);
  if (!conn_)
    throw Error(ticket_errc::store_unreachable, "PostgreSQL at " + where_ + ": out of memory");
  if (PQstatus(conn_) == CONNECTION_BAD) lost(one_line(PQerrorMessage(conn_)));
  for (PostgresPollingStatusType st = PGRES_POLLING_WRITING; st != PGRES_POLLING_OK;) {
    if (st == PGRES_POLLING_FAILED) {
      const std::string msg = one_line(PQerrorMessage(conn_));
      // The server's own refusal of this login (a wrong password, an unknown role or
      // database): it runs, so it is not unreachable, and a resize must not drop it as gone.
      // (A server starting up or shutting down stays "unreachable": it will answer or stop.)
      // libpq gives no SQLSTATE for a failed connection, only the server's message.
      const bool refused = msg.find("FATAL:") != std::string::npos &&
                           (msg.find("authentication failed") != std::string::npos ||
                            msg.find("no pg_hba.conf entry") != std::string::npos ||
                            msg.find("does not exist") != std::string::npos);
      if (refused) {
        close();
        throw PgError(
            errc::invalid_argument,
            "PostgreSQL at " + where_ + " refused the connection: " + scrub_password(msg, url_),
            "");
      }
      lost(msg);
    }
    wait_socket(st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline, "connecting");
    st = PQconnectPoll(conn_);
  }
  PQsetnonblocking(conn_, 1);
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
}

void PgConnection::fail(PGresult* r) {
  std::string state;
  std::string msg;
  if (r) {
    if (const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE)) state = s;
    msg = message_of(r);
    PQclear(r);
  }
  if (msg.empty()) msg = one_line(PQerrorMessage(conn_));
  msg = scrub_password(std::move(msg), url_);
  if (PQstatus(conn_) != CONNECTION_OK || is_connection_state(state)) {
    // Reconnect on the next call; this one reports the loss.
    close();
    throw PgError(ticket_errc::store_unreachable,
                  "PostgreSQL at " + where_ + " is unreachable: " + msg, state);
  }
  throw PgError(code_of(state), "PostgreSQL at " + where_ + ": " + msg, state);
}

PgResult PgConnection::exec(std::string_view sql, std::initializer_list<std::string_view> params) {
  if (hook_) hook_(sql);
  if (!conn_) connect();
  const std::string q(sql);
  std::vector<std::string> owned(params.begin(), params.end());
  std::vector<const char*> vals;
  for (auto& p : owned) vals.push_back(p.c_str());
  const std::int64_t deadline = steady_ns() + timeouts_.statement_ms * 1'000'000;
  if (!PQsendQueryParams(conn_, q.c_str(), static_cast<int>(vals.size()), nullptr, vals.data(),
                         nullptr, nullptr, 0))
    fail(nullptr);
  for (int rc; (rc = PQflush(conn_)) != 0;) {
    if (rc < 0) fail(nullptr);
    wait_socket(POLLOUT | POLLIN, deadline, "sending a statement");
    if (!PQconsumeInput(conn_)) fail(nullptr);
  }
  // One statement gives one result; the first error result wins over any other.
  std::unique_ptr<PGresult, void (*)(PGresult*)> keep(nullptr, &PQclear);
  bool keep_bad = false;
  for (;;) {
    while (PQisBusy(conn_)) {
      wait_socket(POLLIN, deadline, "waiting for a statement's answer");
      if (!PQconsumeInput(conn_)) fail(nullptr);
    }
    PGresult* r = PQgetResult(conn_);
    if (!r) break;
    const auto st = PQresultStatus(r);
    if (keep && keep_bad) {
      PQclear(r);
      continue;
    }
    keep.reset(r);
    keep_bad = st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK;
  }
  if (!keep) fail(nullptr);
  if (keep_bad) fail(keep.release());
  return PgResult(keep.release());
}

void PgConnection::run(std::string_view sql) {
  exec(sql);
}

}  // namespace idforge::ticket::detail
