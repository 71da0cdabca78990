// Segments on PostgreSQL: one UPDATE ... RETURNING per block. The row lock it takes makes
// concurrent takers queue, and each sees the value the previous one left: no two blocks overlap.
#include "pg_segment_store.hpp"

#include <limits>
#include <string>

#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::ticket::detail {

PgSegmentStore::PgSegmentStore(std::string url, DbTimeouts timeouts)
    : db_(std::move(url), timeouts) {
  try {
    db_.run(
        "CREATE TABLE IF NOT EXISTS idforge_segments ("
        " name text PRIMARY KEY,"
        " next_value bigint NOT NULL,"
        " step bigint NOT NULL CHECK (step > 0),"
        " blocks bigint NOT NULL DEFAULT 0,"
        " abandoned bigint NOT NULL DEFAULT 0)");
  } catch (const PgError& e) {
    // Two processes creating the table at once: the loser sees a duplicate type; the table exists.
    if (e.code() != ticket_errc::already_exists) throw;
  }
}

void PgSegmentStore::create(std::string_view name, std::int64_t start, std::int64_t step) {
  check_sequence_name(name);
  check_segment_args(name, start, step);
  try {
    db_.exec("INSERT INTO idforge_segments (name, next_value, step) VALUES ($1, $2, $3)",
             {name, std::to_string(start), std::to_string(step)});
  } catch (const PgError& e) {
    if (e.code() == ticket_errc::already_exists)
      throw Error(ticket_errc::already_exists,
                  "sequence '" + std::string(name) + "' already exists in " + describe());
    throw;
  }
}

SegmentBlock PgSegmentStore::take(std::string_view name, std::int64_t count) {
  check_take_count(name, count);
  // The last block ends at 2^63-1 (shorter when fewer values are left) and leaves next_value
  // at kSegmentExhausted, since it cannot hold 2^63.
  const std::string max = std::to_string(std::numeric_limits<std::int64_t>::max());
  const PgResult r = db_.exec(
      "WITH cur AS (SELECT name, next_value AS first, COALESCE(NULLIF($2::bigint, 0), step) AS n"
      " FROM idforge_segments WHERE name = $1 AND next_value >= 0 FOR UPDATE)"
      " UPDATE idforge_segments s SET blocks = s.blocks + 1, next_value = CASE WHEN cur.first > " +
          max + " - cur.n THEN " + std::to_string(kSegmentExhausted) +
          " ELSE cur.first + cur.n END FROM cur WHERE s.name = cur.name"
          " RETURNING cur.first, CASE WHEN cur.first > " +
          max + " - cur.n THEN " + max + " - cur.first + 1 ELSE cur.n END",
      {name, std::to_string(count)});
  if (r.rows() == 1) return {r.int64(0, 0), r.int64(0, 1)};
  const PgResult e = db_.exec("SELECT 1 FROM idforge_segments WHERE name = $1", {name});
  if (e.rows() == 0) throw_missing(name, describe());
  throw Error(errc::counter_exhausted, "sequence '" + std::string(name) + "' in " + describe() +
                                           " has handed out every value up to 2^63-1");
}

void PgSegmentStore::report_abandoned(std::string_view name, std::int64_t lost) {
  db_.exec("UPDATE idforge_segments SET abandoned = abandoned + $2 WHERE name = $1",
           {name, std::to_string(lost)});
}

std::vector<SegmentRow> PgSegmentStore::stats() {
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
