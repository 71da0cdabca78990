// Segments on PostgreSQL: one UPDATE ... RETURNING per block. The row lock it takes makes
// concurrent takers queue, and each sees the value the previous one left: no two blocks overlap.
#include "pg_segment_store.hpp"

#include <string>

#include "idforge/ticket/sequence_name.hpp"

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
    if (e.code() != errc::already_exists) throw;
  }
}

void PgSegmentStore::create(std::string_view name, std::int64_t start, std::int64_t step) {
  check_sequence_name(name);
  check_segment_args(name, start, step);
  try {
    db_.exec("INSERT INTO idforge_segments (name, next_value, step) VALUES ($1, $2, $3)",
             {name, std::to_string(start), std::to_string(step)});
  } catch (const PgError& e) {
    if (e.code() == errc::already_exists)
      throw Error(errc::already_exists,
                  "sequence '" + std::string(name) + "' already exists in " + describe());
    throw;
  }
}

SegmentBlock PgSegmentStore::take(std::string_view name, std::int64_t count) {
  check_take_count(name, count);
  try {
    const PgResult r = db_.exec(
        "UPDATE idforge_segments SET next_value = next_value + COALESCE(NULLIF($2::bigint, 0), "
        "step),"
        " blocks = blocks + 1 WHERE name = $1"
        " RETURNING next_value - COALESCE(NULLIF($2::bigint, 0), step), "
        "COALESCE(NULLIF($2::bigint, 0), step)",
        {name, std::to_string(count)});
    if (r.rows() != 1) throw_missing(name, describe());
    return {r.int64(0, 0), r.int64(0, 1)};
  } catch (const PgError& e) {
    if (e.code() == errc::counter_exhausted)
      throw Error(errc::counter_exhausted,
                  "sequence '" + std::string(name) + "' in " + describe() +
                      " cannot grow by another block without passing 2^63-1");
    throw;
  }
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
