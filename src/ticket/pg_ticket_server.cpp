// Fencing on PostgreSQL: ALTER SEQUENCE takes a SHARE ROW EXCLUSIVE lock on the sequence,
// which conflicts with the ROW EXCLUSIVE lock nextval() takes, and holds it to the end of
// the transaction. nextval() reads the sequence's bounds only once it holds its lock. So a
// transaction that locks the sequence, reads how far it got (h) and pins it there (MAXVALUE
// h, last value h) leaves no nextval() a value past h: calls in flight finish before the
// read, calls waiting on the lock find the sequence pinned ("reached maximum value"). The
// hot path pays nothing for the fence. The record's change commits in the same transaction.
//
// The epoch comes back with each value from the same statement; its snapshot is taken
// before nextval() runs, so a value is never labelled with an epoch newer than its own
// (only, around an activation, with the epoch before it: a client may then refuse a good
// value, which is a gap, never a duplicate).
#include "pg_ticket_server.hpp"

#include <string>

#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "member_record.hpp"

namespace idforge::ticket::detail {
namespace {

std::string seq_of(std::string_view name) {
  return "idforge_ticket_" + std::string(check_sequence_name(name));
}

std::string opt_num(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : std::string();
}

[[noreturn]] void changed(std::string_view name, const std::string& where, const std::string& why) {
  throw ConcurrentChange("ticket set '" + std::string(name) + "' on " + where +
                         " changed meanwhile (" + why +
                         "): another resize or init ran at the same time");
}

}  // namespace

template <class F>
auto PgTicketServer::in_transaction(F&& body) {
  db_.run("BEGIN");
  try {
    auto out = body();
    db_.run("COMMIT");
    return out;
  } catch (...) {
    // ROLLBACK is best effort: a broken or closed connection rolls back on its own. The
    // connection is dropped when ROLLBACK fails, so no half transaction is reused.
    try {
      db_.run("ROLLBACK");
    } catch (...) {
      db_.close();
    }
    throw;
  }
}

void PgTicketServer::ensure_schema() {
  if (schema_ready_) return;
  try {
    db_.run(
        "CREATE TABLE IF NOT EXISTS idforge_ticket_members ("
        " name text PRIMARY KEY,"
        " state text NOT NULL CHECK (state IN ('active', 'fenced', 'retired')),"
        " epoch bigint NOT NULL, first_value bigint NOT NULL,"
        " members text NOT NULL, dropped text NOT NULL, gap bigint NOT NULL,"
        " member_index bigint NOT NULL, step bigint NOT NULL, residue bigint NOT NULL,"
        " token text NOT NULL, highest bigint,"
        " next_epoch bigint, next_first bigint, next_members text, next_dropped text,"
        " next_gap bigint,"
        " version bigint NOT NULL, changed_at timestamptz NOT NULL DEFAULT now())");
  } catch (const PgError& e) {
    // Two sessions creating the table at once: the loser sees a duplicate type; it exists.
    if (e.code() != ticket_errc::already_exists) throw;
  }
  schema_ready_ = true;
}

std::string PgTicketServer::identity() {
  if (identity_.empty()) {
    ensure_schema();
    const PgResult r = db_.exec(
        "SELECT system_identifier::text || '/' || current_database() FROM pg_control_system()");
    identity_ = "pg:" + std::string(r.text(0, 0));
  }
  return identity_;
}

std::optional<MemberRecord> PgTicketServer::read_row(std::string_view name, bool for_update) {
  ensure_schema();
  const PgResult r = db_.exec("SELECT " + std::string(kRecordColumns) +
                                  " FROM idforge_ticket_members WHERE name = $1" +
                                  (for_update ? " FOR UPDATE" : ""),
                              {check_sequence_name(name)});
  if (r.rows() == 0) return std::nullopt;
  return parse_record(
      [&](int c) -> std::optional<std::string_view> {
        if (r.is_null(0, c)) return std::nullopt;
        return r.text(0, c);
      },
      describe());
}

std::optional<MemberRecord> PgTicketServer::read(std::string_view name) {
  return read_row(name, false);
}

TicketValue PgTicketServer::next(std::string_view name) {
  // A fence pins the sequence, so a nextval() that waited for a fence fails as if exhausted;
  // when the record then reads active, the resize has moved on: ask again, once.
  for (int attempt = 0;; ++attempt) {
    try {
      return next_once(name, attempt > 0);
    } catch (const FenceEnded&) {
    }
  }
}

TicketValue PgTicketServer::next_once(std::string_view name, bool retried) {
  const std::string seq = seq_of(name);
  try {
    const PgResult r = db_.exec(
        "SELECT nextval($1::regclass), (SELECT epoch FROM idforge_ticket_members WHERE name = $2)",
        {seq, name});
    if (r.is_null(0, 1))
      throw Error(ticket_errc::not_found,
                  "ticket set '" + std::string(name) + "' on " + describe() +
                      " has a sequence but no record: it was not created by "
                      "`idforge ticket init`");
    return {r.int64(0, 0), r.int64(0, 1)};
  } catch (const PgError& e) {
    // Why did nextval() fail? The record says; one more round trip on a path that is rare.
    const bool pinned = e.sqlstate() == "2200H";
    // Dropped while we waited on its lock: "could not open relation" (XX000).
    const bool gone = e.code() == ticket_errc::not_found || e.sqlstate() == "XX000";
    if (!pinned && !gone) throw;
    std::optional<MemberRecord> rec;
    try {
      rec = read(name);
    } catch (const Error&) {
      throw e;
    }
    if (rec && rec->state == MemberState::fenced)
      throw Error(errc::fenced, "ticket set '" + std::string(name) + "' on " + describe() +
                                    " is fenced by resize " + rec->token +
                                    ": it hands out nothing until that resize finishes "
                                    "(`idforge ticket status` shows where it stands)");
    if (pinned && !retried && rec && rec->state == MemberState::active) throw FenceEnded{};
    if (pinned)
      throw Error(errc::counter_exhausted, "ticket set '" + std::string(name) + "' on " +
                                               describe() +
                                               " has handed out its last value below 2^63-1");
    if (rec && rec->state == MemberState::retired)
      throw Error(ticket_errc::not_found, "ticket set '" + std::string(name) + "' on " +
                                              describe() + " was retired by the resize to epoch " +
                                              std::to_string(rec->config.epoch));
    throw Error(ticket_errc::not_found, "ticket set '" + std::string(name) +
                                            "' does not exist on " + describe() +
                                            " (never created here)");
  }
}

MemberRecord PgTicketServer::fence(std::string_view name, std::int64_t version,
                                   const std::string& token) {
  const std::string seq = seq_of(name);
  return in_transaction([&] {
    auto rec = read_row(name, true);
    if (!rec) changed(name, describe(), "its record is gone");
    if (rec->version != version)
      changed(name, describe(),
              "record version " + std::to_string(rec->version) + ", expected " +
                  std::to_string(version));
    if (rec->state == MemberState::retired)
      throw Error(errc::invalid_argument, "ticket set '" + std::string(name) + "' on " +
                                              describe() + " is retired: nothing to fence");
    if (rec->state == MemberState::active) {
      db_.run("ALTER SEQUENCE " + seq + " NO CYCLE");  // waits for nextval() calls in flight
      const PgResult s = db_.exec("SELECT s.last_value, s.is_called, p.seqincrement FROM " + seq +
                                      " s, pg_sequence p WHERE p.seqrelid = $1::regclass",
                                  {seq});
      const std::int64_t last = s.int64(0, 0);
      // Before the first nextval() of a configuration, last_value is its start.
      const std::int64_t h = s.text(0, 1) == "t" ? last : last - s.int64(0, 2);
      db_.run("ALTER SEQUENCE " + seq + " MINVALUE " + std::to_string(h - 1) + " MAXVALUE " +
              std::to_string(h) + " START WITH " + std::to_string(h) + " RESTART WITH " +
              std::to_string(h));
      db_.exec("SELECT setval($1::regclass, $2, true)", {seq, std::to_string(h)});
      rec->highest = h;
    }
    db_.exec(
        "UPDATE idforge_ticket_members SET state = 'fenced', token = $2, highest = NULLIF($3, "
        "'')::bigint,"
        " next_epoch = NULL, next_first = NULL, next_members = NULL, next_dropped = NULL,"
        " next_gap = NULL, version = version + 1, changed_at = now() WHERE name = $1",
        {name, token, opt_num(rec->highest)});
    rec->state = MemberState::fenced;
    rec->token = token;
    rec->next.reset();
    ++rec->version;
    return *rec;
  });
}

void PgTicketServer::prepare(std::string_view name, std::optional<std::int64_t> version,
                             const std::string& token, const TicketConfig& next) {
  ensure_schema();
  const std::string epoch = std::to_string(next.epoch), first = std::to_string(next.first),
                    members = encode_members(next.members), dropped = encode_members(next.dropped),
                    gap = std::to_string(next.gap);
  if (!version) {
    const PgResult r = db_.exec(
        "INSERT INTO idforge_ticket_members (name, state, epoch, first_value, members, dropped,"
        " gap, member_index, step, residue, token, highest, next_epoch, next_first,"
        " next_members, next_dropped, next_gap, version)"
        " VALUES ($1, 'fenced', 0, 0, '', '', 0, -1, 0, 0, $2, NULL, $3, $4, $5, $6, $7, 1)"
        " ON CONFLICT (name) DO NOTHING",
        {check_sequence_name(name), token, epoch, first, members, dropped, gap});
    if (r.affected() != 1) changed(name, describe(), "a record appeared");
    return;
  }
  const PgResult r = db_.exec(
      "UPDATE idforge_ticket_members SET highest = CASE WHEN state = 'retired' THEN NULL ELSE "
      "highest END, state = 'fenced', token = $2, next_epoch = $3, next_first = $4,"
      " next_members = $5, next_dropped = $6, next_gap = $7, version = version + 1,"
      " changed_at = now() WHERE name = $1 AND ((state = 'fenced' AND token = $2) OR"
      " (state = 'retired' AND version = $8))",
      {name, token, epoch, first, members, dropped, gap, std::to_string(*version)});
  if (r.affected() != 1) changed(name, describe(), "its fence or version moved");
}

MemberRecord PgTicketServer::activate(std::string_view name, const std::string& token) {
  const std::string seq = seq_of(name);
  const std::string self = identity();
  return in_transaction([&] {
    auto rec = read_row(name, true);
    if (!rec) changed(name, describe(), "its record is gone");
    if (rec->token == token && rec->state != MemberState::fenced) return *rec;  // done before
    if (rec->state != MemberState::fenced || rec->token != token)
      changed(name, describe(), "fenced by " + rec->token + " now");
    if (!rec->next)
      throw Error(errc::invalid_argument, "ticket set '" + std::string(name) + "' on " +
                                              describe() + ": resize " + token +
                                              " prepared no configuration here");
    const TicketConfig& n = *rec->next;
    const std::int64_t idx = index_of(n, self);
    if (idx < 0) {
      db_.run("DROP SEQUENCE IF EXISTS " + seq);
      db_.exec(
          "UPDATE idforge_ticket_members SET state = 'retired', epoch = next_epoch,"
          " first_value = next_first, members = next_members, dropped = next_dropped,"
          " gap = next_gap, member_index = -1, step = 0, residue = 0, highest = NULL,"
          " next_epoch = NULL, next_first = NULL, next_members = NULL, next_dropped = NULL,"
          " next_gap = NULL, version = version + 1, changed_at = now() WHERE name = $1",
          {name});
    } else {
      const MemberValues v = values_of(n, idx);
      const bool exists = db_.exec("SELECT to_regclass($1) IS NOT NULL", {seq}).text(0, 0) == "t";
      if (exists) {
        // ALTER, not DROP + CREATE: calls waiting on the lock hold the sequence's OID and
        // simply continue with the new values.
        db_.run("ALTER SEQUENCE " + seq + " INCREMENT BY " + std::to_string(v.step) +
                " MINVALUE 1 MAXVALUE 9223372036854775807 START WITH " + std::to_string(v.first) +
                " RESTART WITH " + std::to_string(v.first));
      } else {
        db_.run("CREATE SEQUENCE " + seq + " INCREMENT BY " + std::to_string(v.step) +
                " MINVALUE 1 START WITH " + std::to_string(v.first) + " NO CYCLE");
      }
      db_.exec(
          "UPDATE idforge_ticket_members SET state = 'active', epoch = next_epoch,"
          " first_value = next_first, members = next_members, dropped = next_dropped,"
          " gap = next_gap, member_index = $2, step = $3, residue = $4, highest = NULL,"
          " next_epoch = NULL, next_first = NULL, next_members = NULL, next_dropped = NULL,"
          " next_gap = NULL, version = version + 1, changed_at = now() WHERE name = $1",
          {name, std::to_string(idx), std::to_string(v.step), std::to_string(v.residue)});
    }
    auto after = read_row(name, false);
    return *after;
  });
}

void PgTicketServer::discard(std::string_view name, const std::string& token) {
  ensure_schema();
  db_.exec(
      "DELETE FROM idforge_ticket_members WHERE name = $1 AND state = 'fenced' AND token = $2"
      " AND epoch = 0 AND highest IS NULL",
      {check_sequence_name(name), token});
}

}  // namespace idforge::ticket::detail
