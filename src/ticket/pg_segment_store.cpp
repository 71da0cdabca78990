// Segments on PostgreSQL: one UPDATE ... RETURNING per block. The row lock it takes makes
// concurrent takers queue, and each sees the value the previous one left: no two blocks overlap.
// Each statement that writes carries the identity condition (segment_store.hpp): the store
// ID row and the table's OID, as this object first saw them.
#include "pg_segment_store.hpp"

#include <limits>
#include <optional>
#include <string>

#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "segment_checks.hpp"

namespace idforge::ticket::detail {

namespace {

// Holds for the store opened with store ID $A and table OID $B: one condition, written into
// each statement that writes, so the check and the write are one step. to_regclass() gives
// NULL (the condition fails) for a dropped table rather than an error.
std::string identity_holds(int a, int b) {
  return "(SELECT id FROM idforge_store WHERE one) = $" + std::to_string(a) +
         " AND to_regclass('idforge_segments')::oid = $" + std::to_string(b) + "::oid";
}

}  // namespace

PgSegmentStore::PgSegmentStore(std::string url, DbTimeouts timeouts)
    : db_(std::move(url), timeouts) {
  create_table(
      "CREATE TABLE IF NOT EXISTS idforge_segments ("
      " name text PRIMARY KEY,"
      " next_value bigint NOT NULL,"
      " step bigint NOT NULL CHECK (step > 0),"
      " blocks bigint NOT NULL DEFAULT 0,"
      " abandoned bigint NOT NULL DEFAULT 0)");
  // The store ID: one row, made by the first process that opens the store (also one made by
  // an older idforge). A row another process inserted first wins.
  create_table(
      "CREATE TABLE IF NOT EXISTS idforge_store ("
      " one boolean PRIMARY KEY DEFAULT true CHECK (one),"
      " id text NOT NULL)");
  db_.exec("INSERT INTO idforge_store (one, id) VALUES (true, $1) ON CONFLICT DO NOTHING",
           {new_store_id()});
  const PgResult r = db_.exec(
      "SELECT id, to_regclass('idforge_segments')::oid::bigint FROM idforge_store WHERE one");
  if (r.rows() != 1 || r.is_null(0, 1))
    throw Error(ticket_errc::store_unreachable,
                "segment store " + describe() +
                    " changed while it was being opened (its tables were dropped): try again");
  store_id_ = std::string(r.text(0, 0));
  table_oid_ = r.int64(0, 1);
}

void PgSegmentStore::create_table(std::string_view sql) {
  try {
    db_.run(sql);
  } catch (const PgError& e) {
    // Two processes creating the table at once: the loser sees a duplicate type; the table exists.
    if (e.code() != ticket_errc::already_exists) throw;
  }
}

void PgSegmentStore::check_identity(const PgError* pr) {
  if (gone_.empty()) {
    if (pr != nullptr) {
      // A table of the store dropped under this client (undefined table): it is not the store
      // opened, whatever is made in its place.
      if (pr->sqlstate() != "42P01") return;
      gone_ = "lost its tables while this client had it open (" + std::string(pr->what()) + ")";
    } else {
      PgResult r(nullptr);
      try {
        r = db_.exec(
            "SELECT (SELECT id FROM idforge_store WHERE one),"
            " to_regclass('idforge_segments')::oid::bigint");
      } catch (const PgError& e) {
        if (e.sqlstate() != "42P01") throw;
        gone_ = "lost its table idforge_store while this client had it open";
      }
      if (gone_.empty()) {
        if (r.is_null(0, 1))
          gone_ = "lost its table idforge_segments while this client had it open";
        else if (r.is_null(0, 0))
          gone_ = "holds no store ID now: its table idforge_store was emptied";
        else if (r.text(0, 0) != store_id_)
          gone_ = "holds store ID " + std::string(r.text(0, 0)) +
                  " now: it was dropped and made again (or restored from a copy) while this "
                  "client had it open";
        else if (r.int64(0, 1) != table_oid_)
          gone_ =
              "has another table idforge_segments now (dropped and made again while this "
              "client had it open)";
      }
    }
  }
  if (!gone_.empty()) throw_replaced(describe(), store_id_, gone_);
}

void PgSegmentStore::create(std::string_view name, std::int64_t start, std::int64_t step) {
  check_sequence_name(name);
  check_segment_args(name, start, step);
  check_identity();
  try {
    const PgResult r =
        db_.exec("INSERT INTO idforge_segments (name, next_value, step) SELECT $1, $2, $3 WHERE " +
                     identity_holds(4, 5),
                 {name, std::to_string(start), std::to_string(step), store_id_, table_oid_text()});
    if (r.affected() == 0) check_identity();
  } catch (const PgError& e) {
    check_identity(&e);
    if (e.code() == ticket_errc::already_exists)
      throw Error(ticket_errc::already_exists,
                  "sequence '" + std::string(name) + "' already exists in " + describe());
    throw;
  }
}

SegmentBlock PgSegmentStore::take(std::string_view name, std::int64_t count) {
  check_take_count(name, count);
  if (!gone_.empty()) check_identity();
  // The last block ends at 2^63-1 (shorter when fewer values are left) and leaves next_value
  // at kSegmentExhausted, since it cannot hold 2^63. The identity condition sits in the row
  // lock's query: a block is taken only from the store this object opened.
  const std::string max = std::to_string(std::numeric_limits<std::int64_t>::max());
  std::optional<PgResult> r;
  try {
    r.emplace(db_.exec(
        "WITH cur AS (SELECT name, next_value AS first, COALESCE(NULLIF($2::bigint, 0), step) AS n"
        " FROM idforge_segments WHERE name = $1 AND next_value >= 0 AND " +
            identity_holds(3, 4) +
            " FOR UPDATE)"
            " UPDATE idforge_segments s SET blocks = s.blocks + 1, next_value = CASE WHEN "
            "cur.first > " +
            max + " - cur.n THEN " + std::to_string(kSegmentExhausted) +
            " ELSE cur.first + cur.n END FROM cur WHERE s.name = cur.name"
            " RETURNING cur.first, CASE WHEN cur.first > " +
            max + " - cur.n THEN " + max + " - cur.first + 1 ELSE cur.n END",
        {name, std::to_string(count), store_id_, table_oid_text()}));
  } catch (const PgError& e) {
    check_identity(&e);
    throw;
  }
  if (r->rows() == 1) return {r->int64(0, 0), r->int64(0, 1)};
  check_identity();
  const PgResult e = db_.exec("SELECT 1 FROM idforge_segments WHERE name = $1", {name});
  if (e.rows() == 0) throw_missing(name, describe());
  throw Error(errc::counter_exhausted, "sequence '" + std::string(name) + "' in " + describe() +
                                           " has handed out every value up to 2^63-1");
}

void PgSegmentStore::report_abandoned(std::string_view name, std::int64_t lost) {
  if (!gone_.empty()) check_identity();
  try {
    const PgResult r =
        db_.exec("UPDATE idforge_segments SET abandoned = abandoned + $2 WHERE name = $1 AND " +
                     identity_holds(3, 4),
                 {name, std::to_string(lost), store_id_, table_oid_text()});
    if (r.affected() == 0) check_identity();
  } catch (const PgError& e) {
    check_identity(&e);
    throw;
  }
}

std::vector<SegmentRow> PgSegmentStore::stats() {
  check_identity();
  const PgResult r = db_.exec(
      "SELECT name, next_value, step, blocks, abandoned FROM idforge_segments ORDER BY name");
  std::vector<SegmentRow> rows;
  for (int i = 0; i < r.rows(); ++i)
    rows.push_back(
        {std::string(r.text(i, 0)), r.int64(i, 1), r.int64(i, 2), r.int64(i, 3), r.int64(i, 4)});
  return rows;
}

std::string PgSegmentStore::describe() const {
  return db_.where();
}

}  // namespace idforge::ticket::detail
