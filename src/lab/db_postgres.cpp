// The PostgreSQL driver (libpq). shared_buffers can only change with a server restart, so
// the driver reports it instead of changing it; the lab never restarts a server.
#include <libpq-fe.h>

#include <map>

#include "db_driver.hpp"
#include "idforge/error.hpp"
#include "idforge/lab/lab_errc.hpp"

namespace idforge::lab::detail {
namespace {

class PgDriver final : public DbDriver {
 public:
  explicit PgDriver(const DbConnection& c) : url_(c.pg_url) {
    if (url_.empty())
      throw Error(lab_errc::store_unreachable,
                  "postgres: IDFORGE_PG_URL is not set (start the server with 'bash "
                  "scripts/services.sh start postgres' "
                  "and source .data/services.env)");
    conn_ = PQconnectdb(url_.c_str());
    if (PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = PQerrorMessage(conn_);
      PQfinish(conn_);
      throw Error(lab_errc::store_unreachable,
                  "postgres: cannot connect to '" + url_ + "': " + trim(why));
    }
    exec("SET client_min_messages = warning");
    exec("CREATE EXTENSION IF NOT EXISTS pgstattuple");
  }
  ~PgDriver() override { PQfinish(conn_); }

  std::string version() override { return "PostgreSQL " + scalar("SHOW server_version"); }
  std::uint32_t page_bytes() override {
    return static_cast<std::uint32_t>(std::stoul(scalar("SHOW block_size")));
  }

  std::string set_cache(std::uint64_t bytes) override {
    const std::string sb = scalar("SHOW shared_buffers");
    std::string note = "shared_buffers " + sb;
    if (bytes != 0)
      note +=
          " (unchanged: shared_buffers takes effect only at server start, and the lab does not "
          "restart "
          "servers; start PostgreSQL with -c shared_buffers=" +
          std::to_string(bytes / (1024 * 1024)) + "MB to shrink it)";
    return note + "; the OS page cache holds what shared_buffers does not";
  }

  std::string column_type(KeyKind kind) override {
    return kind == KeyKind::snowflake ? "bigint" : kind == KeyKind::uuid4_text ? "text" : "uuid";
  }

  void create_table(KeyKind kind, const std::string& table) override {
    forget_prepared(table);
    exec("DROP TABLE IF EXISTS " + table);
    exec("CREATE TABLE " + table + " (id " + column_type(kind) + " NOT NULL PRIMARY KEY)");
  }

  void insert_batch(KeyKind kind, const std::string& table, std::span<const Key128> keys) override {
    std::string sql = "INSERT INTO " + table + " (id) VALUES ";
    sql.reserve(sql.size() + keys.size() * 44);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      sql += i ? ",(" : "(";
      sql += key_literal(kind, keys[i], true);
      sql += ')';
    }
    exec(sql);
  }

  IndexReport index_report(const std::string& table) override {
    const std::string idx = table + "_pkey";
    PGresult* r = query("SELECT pg_relation_size('" + idx +
                        "'), leaf_pages, avg_leaf_density FROM pgstatindex('" + idx + "')");
    IndexReport rep;
    rep.index_bytes = std::stoull(PQgetvalue(r, 0, 0));
    rep.leaf_pages = std::stoull(PQgetvalue(r, 0, 1));
    rep.leaf_fill = std::stod(PQgetvalue(r, 0, 2)) / 100.0;
    PQclear(r);
    rep.fill_method = "pgstatindex avg_leaf_density";
    return rep;
  }

  std::optional<std::uint64_t> wal_position() override {
    return std::stoull(scalar("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint"));
  }

  std::optional<std::uint64_t> full_page_images() override {
    // Statistics reach pg_stat_wal when a backend flushes them; force it, then read.
    exec("SELECT pg_stat_force_next_flush()");
    return std::stoull(scalar("SELECT wal_fpi FROM pg_stat_wal"));
  }

  void drop_table(const std::string& table) override {
    forget_prepared(table);
    exec("DROP TABLE IF EXISTS " + table);
  }

  void insert_one(KeyKind kind, const std::string& table, const Key128& key) override {
    // A prepared statement per table: the server plans the INSERT once, as an application's
    // driver would, so the time measured is the insert's and the commit's.
    auto it = prepared_.find(table);
    if (it == prepared_.end()) {
      const std::string name = "ins_" + table;
      PQclear(checked(PQprepare(conn_, name.c_str(),
                                ("INSERT INTO " + table + " (id) VALUES ($1)").c_str(), 1, nullptr),
                      "PREPARE " + name));
      it = prepared_.emplace(table, name).first;
    }
    const std::string v = kind == KeyKind::snowflake
                              ? std::to_string(static_cast<std::int64_t>(key.hi))
                              : to_uuid_text(key);
    const char* values[1] = {v.c_str()};
    PQclear(checked(PQexecPrepared(conn_, it->second.c_str(), 1, values, nullptr, nullptr, 0),
                    "INSERT INTO " + table + " VALUES ('" + v + "')"));
  }

  std::uint64_t index_bytes_now(const std::string& table) override {
    return std::stoull(scalar("SELECT pg_relation_size('" + table + "_pkey')"));
  }

  std::uint64_t cache_misses(const std::string& table) override {
    exec("SELECT pg_stat_force_next_flush()");
    const std::string v =
        scalar("SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = '" + table +
               "_pkey'");
    return v.empty() ? 0 : std::stoull(v);
  }

  std::uint64_t redo_written() override { return *wal_position(); }

 private:
  void forget_prepared(const std::string& table) {
    if (auto it = prepared_.find(table); it != prepared_.end()) {
      exec("DEALLOCATE " + it->second);
      prepared_.erase(it);
    }
  }
  PGresult* checked(PGresult* r, const std::string& what) {
    const auto st = PQresultStatus(r);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
      const std::string why = trim(PQerrorMessage(conn_));
      PQclear(r);
      throw Error(lab_errc::store_unreachable,
                  "postgres: '" + what.substr(0, 80) + "' failed: " + why);
    }
    return r;
  }
  static std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  PGresult* query(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    const auto st = PQresultStatus(r);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
      const std::string why = trim(PQerrorMessage(conn_));
      PQclear(r);
      throw Error(
          lab_errc::store_unreachable,
          "postgres: '" + sql.substr(0, 80) + (sql.size() > 80 ? "...'" : "'") + " failed: " + why);
    }
    return r;
  }
  void exec(const std::string& sql) { PQclear(query(sql)); }
  std::string scalar(const std::string& sql) {
    PGresult* r = query(sql);
    std::string v = PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    PQclear(r);
    return v;
  }

  std::string url_;
  PGconn* conn_ = nullptr;
  std::map<std::string, std::string> prepared_;  // table -> statement name
};

}  // namespace

std::unique_ptr<DbDriver> make_postgres_driver(const DbConnection& c) {
  return std::make_unique<PgDriver>(c);
}

}  // namespace idforge::lab::detail
