#include "sqlite_segment_store.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <system_error>

#include "idforge/error.hpp"
#include "idforge/ticket/sequence_name.hpp"
#include "idforge/ticket/ticket_errc.hpp"
#include "segment_checks.hpp"

namespace idforge::ticket::detail {
namespace {

using Stmt = std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)>;

// Writers wait this long for another process's transaction before giving up.
constexpr int kBusyTimeoutMs = 30'000;

}  // namespace

SqliteSegmentStore::SqliteSegmentStore(std::string path, bool create) : path_(std::move(path)) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path_, ec);
  absolute_ = ec ? path_ : abs.lexically_normal().string();
  const std::filesystem::path parent = std::filesystem::path(absolute_).parent_path();
  if (!create && !std::filesystem::exists(absolute_, ec))
    throw Error(ticket_errc::not_found,
                "SQLite store " + describe() +
                    " does not exist: only `idforge seq create NAME --store sqlite:" + path_ +
                    "` makes a store (check the path; a relative one resolves against the "
                    "working folder)");
  if (create && !parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec)
    throw Error(ticket_errc::store_unreachable, "SQLite store " + describe() +
                                                    " is unreachable: cannot create folder '" +
                                                    parent.string() + "': " + ec.message());
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    const std::string ro = read_only_reason();
    sqlite3_close(db_);
    db_ = nullptr;
    if (!ro.empty())
      throw Error(ticket_errc::store_unreachable,
                  "SQLite store " + describe() + " is read-only: " + ro);
    throw Error(ticket_errc::store_unreachable,
                "SQLite store " + describe() + " is unreachable: " + msg);
  }
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  try {
    // WAL lets readers (seq stats) run beside a writer; writers still take turns.
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec(
        "CREATE TABLE IF NOT EXISTS idforge_segments ("
        " name TEXT PRIMARY KEY,"
        " next_value INTEGER NOT NULL,"
        " step INTEGER NOT NULL CHECK (step > 0),"
        " blocks INTEGER NOT NULL DEFAULT 0,"
        " abandoned INTEGER NOT NULL DEFAULT 0)");
    store_id_ = ensure_store_id();
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

std::string SqliteSegmentStore::ensure_store_id() {
  // One row, made by whichever process opens the store first (a store made by an older
  // idforge gets its ID here); BEGIN IMMEDIATE makes the check and the insert one step.
  exec("BEGIN IMMEDIATE");
  exec(
      "CREATE TABLE IF NOT EXISTS idforge_store ("
      " one INTEGER PRIMARY KEY CHECK (one = 1),"
      " id TEXT NOT NULL)");
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, "INSERT OR IGNORE INTO idforge_store (one, id) VALUES (1, ?1)", -1,
                         &raw, nullptr) != SQLITE_OK)
    fail("preparing the store ID");
  Stmt ins(raw, &sqlite3_finalize);
  const std::string fresh = new_store_id();
  sqlite3_bind_text(raw, 1, fresh.data(), static_cast<int>(fresh.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(raw) != SQLITE_DONE) fail("writing the store ID");
  ins.reset();
  if (sqlite3_prepare_v2(db_, "SELECT id FROM idforge_store WHERE one = 1", -1, &raw, nullptr) !=
      SQLITE_OK)
    fail("preparing the store ID");
  Stmt sel(raw, &sqlite3_finalize);
  if (sqlite3_step(raw) != SQLITE_ROW) fail("reading the store ID");
  std::string id = reinterpret_cast<const char*>(sqlite3_column_text(raw, 0));
  sel.reset();
  exec("COMMIT");
  return id;
}

void SqliteSegmentStore::check_identity() {
  if (gone_.empty()) {
    int moved = 0;
    if (sqlite3_file_control(db_, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
      fail("checking that the file is still the one opened");
    if (moved) {
      struct stat st {};
      if (::stat(absolute_.c_str(), &st) != 0 && errno == ENOENT)
        gone_ = "was deleted while this client had it open (nothing is at " + absolute_ + " now)";
      else
        gone_ = "was replaced while this client had it open: the file at " + absolute_ +
                " is not the file it opened (deleted and made again, or moved away)";
    } else {
      // The same file, overwritten in place (a copy restored over it) holds another ID.
      sqlite3_stmt* raw = nullptr;
      if (sqlite3_prepare_v2(db_, "SELECT id FROM idforge_store WHERE one = 1", -1, &raw,
                             nullptr) != SQLITE_OK) {
        sqlite3_finalize(raw);
        gone_ = "was overwritten while this client had it open: it holds no store ID now";
      } else {
        Stmt sel(raw, &sqlite3_finalize);
        const int rc = sqlite3_step(raw);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail("reading the store ID");
        const auto* id =
            rc == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(raw, 0)) : nullptr;
        if (id == nullptr)
          gone_ = "was overwritten while this client had it open: it holds no store ID now";
        else if (store_id_ != id)
          gone_ = "was overwritten while this client had it open: it holds store ID " +
                  std::string(id) + " now";
      }
    }
  }
  if (gone_.empty()) return;
  if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  throw_replaced(describe(), store_id_, gone_);
}

void SqliteSegmentStore::begin_checked() {
  if (!gone_.empty()) throw_replaced(describe(), store_id_, gone_);  // the file is left alone
  exec("BEGIN IMMEDIATE");
  check_identity();
}

std::string SqliteSegmentStore::read_only_reason() const {
  // Root passes access() checks, but not a read-only mount or an immutable file, nor does
  // SQLite then: both are asked.
  const std::filesystem::path parent = std::filesystem::path(absolute_).parent_path();
  if (db_ && sqlite3_db_readonly(db_, "main") == 1)
    return "the file " + absolute_ + " is not writable";
  if (::access(absolute_.c_str(), F_OK) == 0 && ::access(absolute_.c_str(), W_OK) != 0)
    return "the file " + absolute_ + " is not writable (" + std::strerror(errno) + ")";
  if (::access(parent.c_str(), W_OK) != 0)
    return "its folder " + parent.string() +
           " is not writable, and SQLite keeps its journal and WAL files there (" +
           std::strerror(errno) + ")";
  return {};
}

SqliteSegmentStore::~SqliteSegmentStore() {
  sqlite3_close(db_);
}

std::string SqliteSegmentStore::describe() const {
  if (absolute_.empty() || absolute_ == path_) return "sqlite:" + path_;
  return "sqlite:" + path_ + " (" + absolute_ + ")";
}

void SqliteSegmentStore::fail(const std::string& doing) {
  const int code = sqlite3_errcode(db_);
  const std::string msg = sqlite3_errmsg(db_);
  const std::error_code e =
      (code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_CANTOPEN ||
       code == SQLITE_IOERR || code == SQLITE_READONLY || code == SQLITE_NOTADB ||
       code == SQLITE_CORRUPT)
          ? std::error_code(ticket_errc::store_unreachable)
          : std::error_code(errc::invalid_argument);
  if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  // "unable to open database file" or "attempt to write a readonly database" mostly mean
  // the file or its folder cannot be written: say so.
  if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM ||
      code == SQLITE_IOERR || code == SQLITE_AUTH)
    if (const std::string ro = read_only_reason(); !ro.empty())
      throw Error(e, "SQLite store " + describe() + " is read-only: " + ro + "; " + doing +
                         " failed: " + msg);
  throw Error(e, "SQLite store " + describe() + ": " + doing + " failed: " + msg);
}

void SqliteSegmentStore::exec(const char* sql) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
    fail(std::string("'") + sql + "'");
}

void SqliteSegmentStore::create(std::string_view name, std::int64_t start, std::int64_t step) {
  check_sequence_name(name);
  check_segment_args(name, start, step);
  begin_checked();
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(
          db_, "INSERT INTO idforge_segments (name, next_value, step) VALUES (?1, ?2, ?3)", -1,
          &raw, nullptr) != SQLITE_OK)
    fail("preparing create");
  Stmt st(raw, &sqlite3_finalize);
  sqlite3_bind_text(raw, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(raw, 2, start);
  sqlite3_bind_int64(raw, 3, step);
  const int rc = sqlite3_step(raw);
  if (rc == SQLITE_CONSTRAINT) {
    st.reset();
    exec("ROLLBACK");
    throw Error(ticket_errc::already_exists,
                "sequence '" + std::string(name) + "' already exists in " + describe());
  }
  if (rc != SQLITE_DONE) fail("creating sequence '" + std::string(name) + "'");
  st.reset();
  exec("COMMIT");
}

SegmentBlock SqliteSegmentStore::take(std::string_view name, std::int64_t count) {
  check_take_count(name, count);
  // BEGIN IMMEDIATE takes the write lock before the read, so the read-then-update below is
  // one step as far as any other process is concerned. The identity check runs under it too,
  // just before the block is taken.
  begin_checked();
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT next_value, step FROM idforge_segments WHERE name = ?1", -1,
                         &raw, nullptr) != SQLITE_OK)
    fail("preparing take");
  Stmt sel(raw, &sqlite3_finalize);
  sqlite3_bind_text(raw, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  const int rc = sqlite3_step(raw);
  if (rc == SQLITE_DONE) {
    exec("ROLLBACK");
    throw_missing(name, describe());
  }
  if (rc != SQLITE_ROW) fail("reading sequence '" + std::string(name) + "'");
  const std::int64_t first = sqlite3_column_int64(raw, 0);
  std::int64_t n = count > 0 ? count : sqlite3_column_int64(raw, 1);
  sel.reset();
  if (first < 0) {
    exec("ROLLBACK");
    throw Error(errc::counter_exhausted, "sequence '" + std::string(name) + "' in " + describe() +
                                             " has handed out every value up to 2^63-1");
  }
  // The last block ends at 2^63-1 (shorter when fewer values are left); next_value then marks
  // that every value is taken (kSegmentExhausted), since next_value cannot hold 2^63.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const bool last = first > kMax - n;
  if (last) n = kMax - first + 1;
  raw = nullptr;
  if (sqlite3_prepare_v2(
          db_, "UPDATE idforge_segments SET next_value = ?2, blocks = blocks + 1 WHERE name = ?1",
          -1, &raw, nullptr) != SQLITE_OK)
    fail("preparing take");
  Stmt upd(raw, &sqlite3_finalize);
  sqlite3_bind_text(raw, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(raw, 2, last ? kSegmentExhausted : first + n);
  if (sqlite3_step(raw) != SQLITE_DONE) fail("taking a block of '" + std::string(name) + "'");
  upd.reset();
  exec("COMMIT");
  return {first, n};
}

void SqliteSegmentStore::report_abandoned(std::string_view name, std::int64_t lost) {
  begin_checked();
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_,
                         "UPDATE idforge_segments SET abandoned = abandoned + ?2 WHERE name = ?1",
                         -1, &raw, nullptr) != SQLITE_OK)
    fail("preparing report");
  Stmt st(raw, &sqlite3_finalize);
  sqlite3_bind_text(raw, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(raw, 2, lost);
  if (sqlite3_step(raw) != SQLITE_DONE)
    fail("reporting abandoned values of '" + std::string(name) + "'");
  st.reset();
  exec("COMMIT");
}

std::vector<SegmentRow> SqliteSegmentStore::stats() {
  // Read-only, yet refused too when the store is gone: the rows of a deleted file describe
  // a store nobody else can reach.
  check_identity();
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(
          db_,
          "SELECT name, next_value, step, blocks, abandoned FROM idforge_segments ORDER BY name",
          -1, &raw, nullptr) != SQLITE_OK)
    fail("preparing stats");
  Stmt st(raw, &sqlite3_finalize);
  std::vector<SegmentRow> rows;
  int rc;
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW)
    rows.push_back({reinterpret_cast<const char*>(sqlite3_column_text(raw, 0)),
                    sqlite3_column_int64(raw, 1), sqlite3_column_int64(raw, 2),
                    sqlite3_column_int64(raw, 3), sqlite3_column_int64(raw, 4)});
  if (rc != SQLITE_DONE) fail("reading stats");
  return rows;
}

}  // namespace idforge::ticket::detail
