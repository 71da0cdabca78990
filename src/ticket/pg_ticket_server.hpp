// TicketServer on PostgreSQL: one sequence per set (nextval() per ID) and the set's record
// in idforge_ticket_members.
#pragma once

#include "idforge/ticket/ticket_server.hpp"
#include "pg_connection.hpp"

namespace idforge::ticket::detail {

class PgTicketServer final : public TicketServer {
 public:
  PgTicketServer(std::string url, DbTimeouts timeouts) : db_(std::move(url), timeouts, false) {}
  std::string describe() const override { return db_.where(); }
  std::string identity() override;
  TicketValue next(std::string_view name) override;
  std::optional<MemberRecord> read(std::string_view name) override;
  MemberRecord fence(std::string_view name, std::int64_t version,
                     const std::string& token) override;
  void prepare(std::string_view name, std::optional<std::int64_t> version, const std::string& token,
               const TicketConfig& next) override;
  MemberRecord activate(std::string_view name, const std::string& token) override;
  void discard(std::string_view name, const std::string& token) override;
  void set_statement_hook(StatementHook hook) override { db_.set_hook(std::move(hook)); }

 private:
  /// nextval() failed on a pinned sequence, but the record reads active again: a fence
  /// came and went while it waited (not an exhausted set).
  struct FenceEnded {};
  /// One try of next(); retried: FenceEnded is not thrown again.
  TicketValue next_once(std::string_view name, bool retried);
  void ensure_schema();
  std::optional<MemberRecord> read_row(std::string_view name, bool for_update);
  /// Runs body inside BEGIN ... COMMIT; rolls back (or drops the connection) on any error.
  template <class F>
  auto in_transaction(F&& body);

  PgConnection db_;
  std::string identity_;
  bool schema_ready_ = false;
};

}  // namespace idforge::ticket::detail
