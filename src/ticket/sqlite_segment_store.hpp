// SegmentStore on SQLite: the embedded default. Each take is one BEGIN IMMEDIATE
// transaction, which holds SQLite's write lock from its start, so several processes on one
// host that share the file queue for it instead of reading the same next_value.
//
// Identity (segment_store.hpp): every call that writes first checks, inside its write
// transaction, that the file open here is still the file at the path (SQLite's
// SQLITE_FCNTL_HAS_MOVED: a fresh stat of the path against the open file's inode) and that
// it holds the store ID read at open. A file deleted or replaced under an open store keeps
// working for that store's connection (POSIX keeps the inode alive), which is why the path
// is asked: without it the connection would go on writing to a file nobody else can see.
#pragma once

#include <sqlite3.h>

#include "idforge/ticket/segment_store.hpp"
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::ticket::detail {

class SqliteSegmentStore final : public SegmentStore {
 public:
  /// Opens the file and creates the table if missing. With create, a missing file and its
  /// parent folder are made; without, a missing file is ticket_errc::not_found.
  SqliteSegmentStore(std::string path, bool create);
  ~SqliteSegmentStore() override;
  void create(std::string_view name, std::int64_t start, std::int64_t step) override;
  SegmentBlock take(std::string_view name, std::int64_t count) override;
  void report_abandoned(std::string_view name, std::int64_t lost) override;
  std::vector<SegmentRow> stats() override;
  std::string describe() const override;
  const std::string& store_id() const noexcept override { return store_id_; }

 private:
  /// Makes idforge_store and its one row when missing; returns the ID it holds.
  std::string ensure_store_id();
  /// Throws StoreReplaced (and remembers why, for every later call) unless the file open
  /// here is still the one at the path and holds store_id_. Rolls back an open transaction.
  void check_identity();
  /// BEGIN IMMEDIATE, then check_identity().
  void begin_checked();
  void exec(const char* sql);
  [[noreturn]] void fail(const std::string& doing);
  /// Why the store cannot be written, or empty when nothing says it cannot.
  std::string read_only_reason() const;

  std::string path_;      // as given
  std::string absolute_;  // for messages: where a relative path led
  sqlite3* db_ = nullptr;
  std::string store_id_;
  std::string gone_;  // why the store is refused; empty while it is the one opened
};

}  // namespace idforge::ticket::detail
