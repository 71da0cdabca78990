// Locking for resize: ALTER SEQUENCE takes a SHARE ROW EXCLUSIVE lock on the sequence, which
// conflicts with the ROW EXCLUSIVE lock nextval() needs, and holds it to the end of the
// transaction. So "BEGIN; ALTER SEQUENCE s NO CYCLE" pauses every client of s on this
// server until COMMIT, and the sequence's state read meanwhile is final. ALTER SEQUENCE is
// transactional since PostgreSQL 10, so ROLLBACK undoes a half-done resize.
#include "pg_ticket_server.hpp"

#include <string>

#include "idforge/ticket/sequence_name.hpp"

namespace idforge::ticket::detail {
namespace {

std::string seq_of(std::string_view name) {
  return "idforge_ticket_" + std::string(check_sequence_name(name));
}

}  // namespace

void PgTicketServer::install(std::string_view name, std::int64_t first, std::int64_t increment) {
  const std::string seq = seq_of(name);
  try {
    db_.run("CREATE SEQUENCE " + seq + " INCREMENT BY " + std::to_string(increment) +
            " MINVALUE 1 START WITH " + std::to_string(first) + " NO CYCLE");
  } catch (const PgError& e) {
    if (e.code() == errc::already_exists)
      throw Error(errc::already_exists,
                  "ticket set '" + std::string(name) + "' already exists on " + describe());
    throw;
  }
}

std::int64_t PgTicketServer::next(std::string_view name) {
  const std::string seq = seq_of(name);
  try {
    return db_.exec("SELECT nextval($1::regclass)", {seq}).int64(0, 0);
  } catch (const PgError& e) {
    // Dropped by a resize while we waited on its lock: "could not open relation" (XX000).
    if (e.code() == errc::not_found || e.sqlstate() == "XX000")
      throw Error(errc::not_found, "ticket set '" + std::string(name) + "' does not exist on " +
                                       describe() +
                                       " (never created here, or retired by a resize)");
    throw;
  }
}

std::optional<TicketState> PgTicketServer::lock_for_resize(std::string_view name) {
  const std::string seq = seq_of(name);
  db_.run("BEGIN");
  in_tx_ = true;
  try {
    if (db_.exec("SELECT to_regclass($1) IS NULL", {seq}).text(0, 0) == "t") return std::nullopt;
    db_.run("ALTER SEQUENCE " + seq + " NO CYCLE");  // takes the lock that pauses nextval()
    const PgResult r = db_.exec("SELECT s.last_value, s.is_called, p.seqincrement FROM " + seq +
                                    " s, pg_sequence p WHERE p.seqrelid = $1::regclass",
                                {seq});
    const std::int64_t last = r.int64(0, 0);
    const std::int64_t inc = r.int64(0, 2);
    // Before the first nextval(), last_value is the start and nothing was handed out.
    return TicketState{inc, r.text(0, 1) == "t" ? last : last - inc};
  } catch (...) {
    abort();
    throw;
  }
}

void PgTicketServer::reconfigure(std::string_view name, std::int64_t first,
                                 std::int64_t increment) {
  const std::string seq = seq_of(name);
  if (!in_tx_) {
    db_.run("BEGIN");
    in_tx_ = true;
  }
  if (db_.exec("SELECT to_regclass($1) IS NULL", {seq}).text(0, 0) == "t") {
    db_.run("CREATE SEQUENCE " + seq + " INCREMENT BY " + std::to_string(increment) +
            " MINVALUE 1 START WITH " + std::to_string(first) + " NO CYCLE");
  } else {
    db_.run("ALTER SEQUENCE " + seq + " INCREMENT BY " + std::to_string(increment) +
            " MINVALUE 1 RESTART WITH " + std::to_string(first));
  }
}

void PgTicketServer::retire(std::string_view name) {
  if (!in_tx_) {
    db_.run("BEGIN");
    in_tx_ = true;
  }
  db_.run("DROP SEQUENCE IF EXISTS " + seq_of(name));
}

void PgTicketServer::commit() {
  if (!in_tx_) return;
  in_tx_ = false;
  db_.run("COMMIT");
}

void PgTicketServer::abort() noexcept {
  if (!in_tx_) return;
  in_tx_ = false;
  try {
    db_.run("ROLLBACK");
  } catch (...) {
    // A broken connection rolls back on its own when the server notices.
  }
}

}  // namespace idforge::ticket::detail
