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

 private:
  PgConnection db_;
};

}  // namespace idforge::ticket::detail
