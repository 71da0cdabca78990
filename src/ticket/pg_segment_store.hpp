// SegmentStore on PostgreSQL (libpq): for sequences shared by several hosts.
#pragma once

#include "idforge/ticket/segment_store.hpp"
#include "pg_connection.hpp"
#include "segment_checks.hpp"

namespace idforge::ticket::detail {

class PgSegmentStore final : public SegmentStore {
 public:
  /// Connects and creates the table idforge_segments if missing.
  PgSegmentStore(std::string url, DbTimeouts timeouts);
  void create(std::string_view name, std::int64_t start, std::int64_t step) override;
  SegmentBlock take(std::string_view name, std::int64_t count) override;
  void report_abandoned(std::string_view name, std::int64_t lost) override;
  std::vector<SegmentRow> stats() override;
  std::string describe() const override;
  const std::string& store_id() const noexcept override { return store_id_; }

 private:
  /// Runs CREATE TABLE IF NOT EXISTS, taking a concurrent creator's win as success.
  void create_table(std::string_view sql);
  /// Throws StoreReplaced (remembered for every later call) unless the store still holds
  /// store_id_ in the table idforge_segments opened here; pr is PgError from a statement.
  void check_identity(const PgError* pr = nullptr);
  /// The two identity parameters of the statements, as text.
  std::string table_oid_text() const { return std::to_string(table_oid_); }

  PgConnection db_;
  std::string store_id_;
  std::int64_t table_oid_ = 0;  // pg_class OID of idforge_segments: a re-made table has another
  std::string gone_;
};

}  // namespace idforge::ticket::detail
