// Real inserts: one table per key kind in SQLite, PostgreSQL or MariaDB (InnoDB), N rows in
// batches, the insert rate per tenth of the rows, and at the end the primary key index's
// size, its leaf fill as the engine reports it, and the WAL/redo bytes where exposed:
//   SQLite      WITHOUT ROWID table (the table is its primary-key B-tree), fill from the
//               dbstat virtual table: 1 - unused / page size over the leaf pages;
//   PostgreSQL  the table's primary-key B-tree, size from pg_relation_size, fill from
//               pgstatindex() (pgstattuple) avg_leaf_density; WAL from pg_current_wal_lsn
//               and full-page images from pg_stat_wal (both cluster-wide);
//   MariaDB     InnoDB clustered index, size from mysql.innodb_index_stats after ANALYZE
//               TABLE, fill from information_schema.INNODB_BUFFER_PAGE (record bytes of the
//               index's pages resident in the buffer pool / their page bytes); redo from
//               the Innodb_lsn_current status (server-wide).
// Columns: Snowflake BIGINT; UUIDv7, ULID, UUIDv4 as 16 bytes (BLOB / uuid / BINARY(16));
// UUIDv4 text as its 36 characters (TEXT / text / CHAR(36) ascii).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idforge/lab/key_kind.hpp"
#include "idforge/lab/key_source.hpp"
#include "idforge/lab/lab_errc.hpp"

namespace idforge::lab {

/// A database engine the lab drives.
enum class DbEngine { sqlite, postgres, mariadb };

/// "sqlite", "postgres", "mariadb".
std::string_view engine_name(DbEngine engine) noexcept;
/// The engine named (also "postgresql", "mysql"); Error(errc::invalid_argument) otherwise.
DbEngine parse_db_engine(std::string_view name);

/// Where the engines are.
struct DbConnection {
  std::string sqlite_dir;      ///< folder for the SQLite file (made if missing)
  std::string pg_url;          ///< libpq URL, e.g. postgres://postgres@127.0.0.1:15432/postgres
  std::string mariadb_url;     ///< mariadb://user[:password]@host:port[/db]
  std::string mariadb_socket;  ///< a socket path, used when mariadb_url is empty
  /// From IDFORGE_PG_URL, IDFORGE_MARIADB_URL, IDFORGE_MARIADB_SOCKET and IDFORGE_DATA
  /// (sqlite_dir = $IDFORGE_DATA/lab, default .data/lab).
  static DbConnection from_environment();
};

/// One run.
struct DbRunOptions {
  DbEngine engine = DbEngine::sqlite;
  std::uint64_t rows = 100'000;  ///< rows a kind; >= 10
  std::vector<KeyKind> kinds{KeyKind::snowflake, KeyKind::uuid7, KeyKind::ulid, KeyKind::uuid4,
                             KeyKind::uuid4_text};
  std::uint32_t batch = 1000;     ///< rows a transaction / statement
  std::uint64_t cache_bytes = 0;  ///< shrink the engine's cache to this; 0 = leave it
  bool keep_tables = false;       ///< leave the tables (and the SQLite file) behind
  DbConnection connection = DbConnection::from_environment();
  /// Makes the key source for a kind; default: make_model_key_source(kind, keys).
  std::function<std::unique_ptr<KeySource>(KeyKind)> make_source;
  KeySourceOptions keys{};
  /// Called with a line of progress (optional).
  std::function<void(const std::string&)> progress;
};

/// One kind's table after the run.
struct DbKindResult {
  KeyKind kind{};
  std::string column_type;  ///< as created, e.g. "uuid", "BINARY(16)"
  std::uint64_t rows = 0;
  double seconds = 0;
  double inserts_per_s = 0;
  std::vector<std::uint64_t> tenth_end;     ///< rows inserted at the end of each tenth
  std::vector<double> tenth_inserts_per_s;  ///< insert rate within each tenth
  std::uint64_t index_bytes = 0;  ///< the primary-key index (whole table for InnoDB / SQLite)
  std::uint64_t leaf_pages = 0;
  double leaf_fill = 0;                               ///< 0..1
  std::string fill_method;                            ///< how leaf_fill was measured
  std::optional<std::uint64_t> wal_bytes;             ///< WAL / redo written during the inserts
  std::optional<std::uint64_t> wal_full_page_images;  ///< PostgreSQL only
};

/// A whole run.
struct DbRunResult {
  DbEngine engine{};
  std::string server_version;
  std::string cache_note;  ///< what the cache setting was and what the run did to it
  std::uint32_t page_bytes = 0;
  std::vector<DbKindResult> results;
};

/// Runs the inserts. Throws Error(lab_errc::store_unreachable) when the engine cannot be reached
/// (naming where it looked and which variable sets it), Error(errc::invalid_argument) for
/// bad options.
DbRunResult run_db_bench(const DbRunOptions& options);

}  // namespace idforge::lab
