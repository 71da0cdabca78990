// The SQLite driver: one database file under the lab's folder, WAL journal, WITHOUT ROWID
// tables so that each table is exactly its primary-key B-tree.
#include <sqlite3.h>

#include <filesystem>

#include "db_driver.hpp"
#include "idforge/error.hpp"
#include "idforge/lab/lab_errc.hpp"

namespace idforge::lab::detail {
namespace {

class SqliteDriver final : public DbDriver {
 public:
  SqliteDriver(const DbConnection& c, bool keep_file) : keep_file_(keep_file) {
    std::error_code ec;
    std::filesystem::create_directories(c.sqlite_dir, ec);
    if (ec)
      throw Error(lab_errc::store_unreachable,
                  "sqlite: cannot make folder '" + c.sqlite_dir + "': " + ec.message());
    path_ = c.sqlite_dir + "/index-lab.sqlite";
    remove_files();  // a fresh file: pages freed by an earlier run would blur the sizes
    if (sqlite3_open(path_.c_str(), &db_) != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw Error(lab_errc::store_unreachable, "sqlite: cannot open '" + path_ + "': " + why);
    }
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    page_bytes_ = static_cast<std::uint64_t>(query_int("PRAGMA page_size"));
    // Counts the WAL's frames at each commit. Setting a hook replaces SQLite's automatic
    // checkpoint, so the hook checkpoints at the same point SQLite would (1000 frames).
    sqlite3_wal_hook(db_, &SqliteDriver::on_commit, this);
  }
  ~SqliteDriver() override {
    sqlite3_finalize(insert_);
    sqlite3_close(db_);
    if (!keep_file_) remove_files();
  }

  std::string version() override { return std::string("SQLite ") + sqlite3_libversion(); }
  std::uint32_t page_bytes() override {
    return static_cast<std::uint32_t>(query_int("PRAGMA page_size"));
  }

  std::string set_cache(std::uint64_t bytes) override {
    if (bytes != 0) exec("PRAGMA cache_size=-" + std::to_string((bytes + 1023) / 1024));
    const std::int64_t v = query_int("PRAGMA cache_size");
    const std::int64_t kib = v < 0 ? -v : v * page_bytes() / 1024;
    return "cache_size " + std::to_string(kib) + " KiB per connection" +
           (bytes ? " (set by --cache)" : " (SQLite's default)") +
           "; the OS page cache still holds the file behind it";
  }

  std::string column_type(KeyKind kind) override {
    return kind == KeyKind::snowflake ? "INTEGER" : kind == KeyKind::uuid4_text ? "TEXT" : "BLOB";
  }

  void create_table(KeyKind kind, const std::string& table) override {
    exec("DROP TABLE IF EXISTS " + table);
    exec("CREATE TABLE " + table + " (id " + column_type(kind) +
         " NOT NULL PRIMARY KEY) WITHOUT ROWID");
    sqlite3_finalize(insert_);
    insert_ = nullptr;
    if (sqlite3_prepare_v2(db_, ("INSERT INTO " + table + " (id) VALUES (?)").c_str(), -1, &insert_,
                           nullptr) != SQLITE_OK)
      fail("prepare insert");
  }

  void insert_batch(KeyKind kind, const std::string&, std::span<const Key128> keys) override {
    exec("BEGIN");
    for (const Key128& k : keys) {
      bind(kind, k);
      if (sqlite3_step(insert_) != SQLITE_DONE) fail("insert");
      sqlite3_reset(insert_);
    }
    exec("COMMIT");
  }

  IndexReport index_report(const std::string& table) override {
    sqlite3_stmt* st = nullptr;
    const std::string sql =
        "SELECT count(*), coalesce(sum(pgsize),0), "
        "coalesce(sum(CASE WHEN pagetype='leaf' THEN 1 ELSE 0 END),0), "
        "coalesce(sum(CASE WHEN pagetype='leaf' THEN pgsize ELSE 0 END),0), "
        "coalesce(sum(CASE WHEN pagetype='leaf' THEN unused ELSE 0 END),0) FROM dbstat WHERE "
        "name=?";
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      fail("dbstat (needs SQLITE_ENABLE_DBSTAT_VTAB)");
    sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
    IndexReport r;
    if (sqlite3_step(st) == SQLITE_ROW) {
      r.index_bytes = static_cast<std::uint64_t>(sqlite3_column_int64(st, 1));
      r.leaf_pages = static_cast<std::uint64_t>(sqlite3_column_int64(st, 2));
      const double leaf_bytes = static_cast<double>(sqlite3_column_int64(st, 3));
      const double unused = static_cast<double>(sqlite3_column_int64(st, 4));
      r.leaf_fill = leaf_bytes > 0 ? 1.0 - unused / leaf_bytes : 0;
    }
    sqlite3_finalize(st);
    r.fill_method = "dbstat: 1 - unused/pgsize over leaf pages";
    return r;
  }

  std::optional<std::uint64_t> wal_position() override { return std::nullopt; }

  void drop_table(const std::string& table) override { exec("DROP TABLE IF EXISTS " + table); }

  void insert_one(KeyKind kind, const std::string&, const Key128& key) override {
    // No BEGIN: the statement commits on its own.
    bind(kind, key);
    if (sqlite3_step(insert_) != SQLITE_DONE) fail("insert");
    sqlite3_reset(insert_);
  }

  std::uint64_t index_bytes_now(const std::string&) override {
    // One table at a time lives in the file (the lab drops each kind's table after it), so
    // the pages in use are that table's B-tree plus the schema page.
    return static_cast<std::uint64_t>(query_int("PRAGMA page_count") -
                                      query_int("PRAGMA freelist_count")) *
           page_bytes_;
  }

  std::uint64_t cache_misses(const std::string&) override {
    int cur = 0, high = 0;
    sqlite3_db_status(db_, SQLITE_DBSTATUS_CACHE_MISS, &cur, &high, 0);
    return static_cast<std::uint64_t>(cur);
  }

  std::uint64_t redo_written() override { return wal_bytes_; }

 private:
  static int on_commit(void* self_ptr, sqlite3* db, const char* name, int frames) {
    auto* self = static_cast<SqliteDriver*>(self_ptr);
    // After a checkpoint the WAL starts again from its first frame.
    const auto now = static_cast<std::uint64_t>(frames);
    self->wal_bytes_ +=
        (now >= self->wal_frames_ ? now - self->wal_frames_ : now) * (self->page_bytes_ + 24);
    self->wal_frames_ = now;
    if (frames >= 1000)
      sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    return SQLITE_OK;
  }
  void bind(KeyKind kind, const Key128& k) {
    int rc;
    if (kind == KeyKind::snowflake) {
      rc = sqlite3_bind_int64(insert_, 1, static_cast<sqlite3_int64>(k.hi));
    } else if (kind == KeyKind::uuid4_text) {
      const std::string t = to_uuid_text(k);
      rc = sqlite3_bind_text(insert_, 1, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
    } else {
      const auto b = to_bytes(k);
      rc = sqlite3_bind_blob(insert_, 1, b.data(), static_cast<int>(b.size()), SQLITE_TRANSIENT);
    }
    if (rc != SQLITE_OK) fail("bind");
  }
  void remove_files() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix, ec);
  }
  [[noreturn]] void fail(const std::string& what) {
    throw Error(lab_errc::store_unreachable,
                "sqlite: " + what + " failed on '" + path_ + "': " + sqlite3_errmsg(db_));
  }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string why = err ? err : "unknown error";
      sqlite3_free(err);
      throw Error(lab_errc::store_unreachable, "sqlite: '" + sql + "' failed: " + why);
    }
  }
  std::int64_t query_int(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) fail(sql);
    std::int64_t v = 0;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
  }

  std::string path_;
  std::uint64_t page_bytes_ = 4096, wal_frames_ = 0, wal_bytes_ = 0;
  bool keep_file_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
};

}  // namespace

std::unique_ptr<DbDriver> make_sqlite_driver(const DbConnection& c, bool keep_file) {
  return std::make_unique<SqliteDriver>(c, keep_file);
}

}  // namespace idforge::lab::detail
