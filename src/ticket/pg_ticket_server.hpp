// TicketServer on PostgreSQL: one sequence per set, nextval() per ID.
#pragma once

#include "idforge/ticket/ticket_server.hpp"
#include "pg_connection.hpp"

namespace idforge::ticket::detail {

class PgTicketServer final : public TicketServer {
 public:
  explicit PgTicketServer(std::string url) : db_(std::move(url), false) {}
  std::string describe() const override { return db_.where(); }
  void install(std::string_view name, std::int64_t first, std::int64_t increment) override;
  std::int64_t next(std::string_view name) override;
  std::optional<TicketState> lock_for_resize(std::string_view name) override;
  void reconfigure(std::string_view name, std::int64_t first, std::int64_t increment) override;
  void retire(std::string_view name) override;
  void commit() override;
  void abort() noexcept override;

 private:
  PgConnection db_;
  bool in_tx_ = false;
};

}  // namespace idforge::ticket::detail
