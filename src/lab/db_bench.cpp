#include "idforge/lab/db_bench.hpp"

#include <chrono>
#include <cstdlib>

#include "db_driver.hpp"
#include "idforge/error.hpp"

namespace idforge::lab {
namespace detail {

std::string key_literal(KeyKind kind, const Key128& key, bool uuid_type_quoted) {
  switch (kind) {
    case KeyKind::snowflake:
      return std::to_string(static_cast<std::int64_t>(key.hi));
    case KeyKind::uuid4_text:
      return "'" + to_uuid_text(key) + "'";
    default:
      return uuid_type_quoted ? "'" + to_uuid_text(key) + "'" : "X'" + to_hex(key) + "'";
  }
}

}  // namespace detail

std::string_view engine_name(DbEngine e) noexcept {
  switch (e) {
    case DbEngine::sqlite:
      return "sqlite";
    case DbEngine::postgres:
      return "postgres";
    case DbEngine::mariadb:
      return "mariadb";
  }
  return "?";
}

DbEngine parse_db_engine(std::string_view name) {
  if (name == "sqlite" || name == "sqlite3") return DbEngine::sqlite;
  if (name == "postgres" || name == "postgresql" || name == "pg") return DbEngine::postgres;
  if (name == "mariadb" || name == "mysql" || name == "innodb") return DbEngine::mariadb;
  throw Error(errc::invalid_argument,
              "unknown engine '" + std::string(name) + "': expected sqlite, postgres or mariadb");
}

DbConnection DbConnection::from_environment() {
  auto env = [](const char* n) {
    const char* v = std::getenv(n);
    return v ? std::string(v) : std::string();
  };
  DbConnection c;
  const std::string data = env("IDFORGE_DATA");
  c.sqlite_dir = (data.empty() ? std::string(".data") : data) + "/lab";
  c.pg_url = env("IDFORGE_PG_URL");
  c.mariadb_url = env("IDFORGE_MARIADB_URL");
  c.mariadb_socket = env("IDFORGE_MARIADB_SOCKET");
  return c;
}

DbRunResult run_db_bench(const DbRunOptions& o) {
  if (o.rows < 10)
    throw Error(errc::invalid_argument,
                "rows " + std::to_string(o.rows) + ": need at least 10 (one per tenth)");
  if (o.batch == 0 || o.batch > 100'000)
    throw Error(errc::invalid_argument,
                "batch " + std::to_string(o.batch) + ": must be 1..100000 rows");
  if (o.kinds.empty()) throw Error(errc::invalid_argument, "no key kinds to run");
  std::unique_ptr<detail::DbDriver> db;
  switch (o.engine) {
    case DbEngine::sqlite:
      db = detail::make_sqlite_driver(o.connection, o.keep_tables);
      break;
    case DbEngine::postgres:
      db = detail::make_postgres_driver(o.connection);
      break;
    case DbEngine::mariadb:
      db = detail::make_mariadb_driver(o.connection);
      break;
  }
  DbRunResult run;
  run.engine = o.engine;
  run.server_version = db->version();
  run.page_bytes = db->page_bytes();
  run.cache_note = db->set_cache(o.cache_bytes);
  using clock = std::chrono::steady_clock;
  for (KeyKind kind : o.kinds) {
    const std::string table = "idforge_lab_" + std::string(info(kind).name);
    auto source = o.make_source ? o.make_source(kind) : make_model_key_source(kind, o.keys);
    DbKindResult r;
    r.kind = kind;
    r.column_type = db->column_type(kind);
    db->create_table(kind, table);
    if (o.progress)
      o.progress(std::string(engine_name(o.engine)) + ": " + std::string(info(kind).name) + ", " +
                 std::to_string(o.rows) + " rows");
    const auto wal0 = db->wal_position();
    const auto fpi0 = db->full_page_images();
    std::vector<Key128> buf(o.batch);
    std::uint64_t done = 0;
    for (int tenth = 1; tenth <= 10; ++tenth) {
      const std::uint64_t end = o.rows * static_cast<std::uint64_t>(tenth) / 10, start = done;
      const auto t0 = clock::now();
      while (done < end) {
        const auto m = static_cast<std::size_t>(std::min<std::uint64_t>(end - done, o.batch));
        source->fill(std::span(buf.data(), m));
        db->insert_batch(kind, table, std::span<const Key128>(buf.data(), m));
        done += m;
      }
      const double s = std::chrono::duration<double>(clock::now() - t0).count();
      r.seconds += s;
      r.tenth_end.push_back(done);
      r.tenth_inserts_per_s.push_back(s > 0 ? static_cast<double>(done - start) / s : 0);
    }
    r.rows = done;
    r.inserts_per_s = r.seconds > 0 ? static_cast<double>(done) / r.seconds : 0;
    const auto wal1 = db->wal_position();
    const auto fpi1 = db->full_page_images();
    if (wal0 && wal1) r.wal_bytes = *wal1 - *wal0;
    if (fpi0 && fpi1) r.wal_full_page_images = *fpi1 - *fpi0;
    const detail::IndexReport rep = db->index_report(table);
    r.index_bytes = rep.index_bytes;
    r.leaf_pages = rep.leaf_pages;
    r.leaf_fill = rep.leaf_fill;
    r.fill_method = rep.fill_method;
    if (!o.keep_tables) db->drop_table(table);
    run.results.push_back(std::move(r));
  }
  // Restores what set_cache changed (drivers do it when they are destroyed).
  db.reset();
  return run;
}

}  // namespace idforge::lab
