// SegmentStore on SQLite: the embedded default. Each take is one BEGIN IMMEDIATE
// transaction, which holds SQLite's write lock from its start, so several processes on one
// host that share the file queue for it instead of reading the same next_value.
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

 private:
  void exec(const char* sql);
  [[noreturn]] void fail(const std::string& doing);
  /// Why the store cannot be written, or empty when nothing says it cannot.
  std::string read_only_reason() const;

  std::string path_;      // as given
  std::string absolute_;  // for messages: where a relative path led
  sqlite3* db_ = nullptr;
};

}  // namespace idforge::ticket::detail
