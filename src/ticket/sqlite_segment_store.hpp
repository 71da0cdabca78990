// SegmentStore on SQLite: the embedded default. Each take is one BEGIN IMMEDIATE
// transaction, which holds SQLite's write lock from its start, so several processes on one
// host that share the file queue for it instead of reading the same next_value.
#pragma once

#include <sqlite3.h>

#include "idforge/ticket/segment_store.hpp"

namespace idforge::ticket::detail {

class SqliteSegmentStore final : public SegmentStore {
 public:
  /// Opens (creating) the file and the table; creates the parent folder if missing.
  explicit SqliteSegmentStore(std::string path);
  ~SqliteSegmentStore() override;
  void create(std::string_view name, std::int64_t start, std::int64_t step) override;
  SegmentBlock take(std::string_view name, std::int64_t count) override;
  void report_abandoned(std::string_view name, std::int64_t lost) override;
  std::vector<SegmentRow> stats() override;
  std::string describe() const override;

 private:
  void exec(const char* sql);
  [[noreturn]] void fail(const std::string& doing);

  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace idforge::ticket::detail
