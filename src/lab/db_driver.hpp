// The one interface the lab's database runs go through; one implementation per engine.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "idforge/lab/db_bench.hpp"
#include "idforge/lab/key128.hpp"

namespace idforge::lab::detail {

/// What an engine reports about a primary-key index.
struct IndexReport {
  std::uint64_t index_bytes = 0;
  std::uint64_t leaf_pages = 0;
  double leaf_fill = 0;
  std::string fill_method;
};

/// A connection to one engine, set up for the lab.
class DbDriver {
 public:
  virtual ~DbDriver() = default;
  /// The server's version text.
  virtual std::string version() = 0;
  /// Bytes a page takes.
  virtual std::uint32_t page_bytes() = 0;
  /// Shrinks the cache to bytes (0: only report it); returns what it did, in words.
  virtual std::string set_cache(std::uint64_t bytes) = 0;
  /// The column type for kind.
  virtual std::string column_type(KeyKind kind) = 0;
  /// Drops and creates the table for kind.
  virtual void create_table(KeyKind kind, const std::string& table) = 0;
  /// Inserts keys in one transaction.
  virtual void insert_batch(KeyKind kind, const std::string& table,
                            std::span<const Key128> keys) = 0;
  /// The primary-key index of table.
  virtual IndexReport index_report(const std::string& table) = 0;
  /// Bytes of WAL / redo written so far (a position that only grows); nullopt if not exposed.
  virtual std::optional<std::uint64_t> wal_position() = 0;
  /// Full-page images written so far; nullopt if not exposed.
  virtual std::optional<std::uint64_t> full_page_images() { return std::nullopt; }
  /// Drops table.
  virtual void drop_table(const std::string& table) = 0;

  // For the memory-limited runs (memory_lab.hpp): one row a transaction and cheap counters
  // read between windows of rows.

  /// Inserts one key in a transaction of its own (autocommit): one order, one commit.
  virtual void insert_one(KeyKind kind, const std::string& table, const Key128& key) = 0;
  /// The primary-key index's size now, from what the engine knows without reading pages.
  virtual std::uint64_t index_bytes_now(const std::string& table) = 0;
  /// Pages the engine has read so far because they were not in its own cache: PostgreSQL
  /// idx_blks_read of table's primary key, InnoDB Innodb_buffer_pool_reads (server-wide),
  /// SQLite this connection's cache misses.
  virtual std::uint64_t cache_misses(const std::string& table) = 0;
  /// Bytes of WAL / redo written so far: PostgreSQL's WAL position, InnoDB's
  /// Innodb_os_log_written, SQLite's WAL frames (page + frame header) counted at each commit.
  virtual std::uint64_t redo_written() = 0;
  /// Reads the whole index so that index_report() sees every page (InnoDB reads its fill from
  /// the buffer pool's pages); nothing for the others.
  virtual void load_index(const std::string& table) { (void)table; }
};

std::unique_ptr<DbDriver> make_sqlite_driver(const DbConnection& c, bool keep_file);
std::unique_ptr<DbDriver> make_postgres_driver(const DbConnection& c);
std::unique_ptr<DbDriver> make_mariadb_driver(const DbConnection& c);

/// The key as a SQL literal for kind: a decimal BIGINT, a quoted uuid text, or hex bytes in
/// the engine's syntax (hex_prefix "X'" for SQLite and MariaDB).
std::string key_literal(KeyKind kind, const Key128& key, bool uuid_type_quoted);

}  // namespace idforge::lab::detail
